//! Parallel iterators over a `HashMap` (rayon's `rayon::collections::hash_map`).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use super::gathered_iter;
use crate::par::iter::{IntoParallelIterator, ParallelDrainFull};

gathered_iter! {
    /// A parallel iterator over a map's entries, moved out: `map.into_par_iter()`.
    IntoIter<; K, V> => (K, V), where [K: Send, V: Send]
}

gathered_iter! {
    /// A parallel iterator over references to a map's entries: `map.par_iter()`.
    Iter<'a; K, V> => (&'a K, &'a V), where [K: Sync + 'a, V: Sync + 'a]
}

gathered_iter! {
    /// A parallel iterator over a map's entries, values by mutable reference:
    /// `map.par_iter_mut()`.
    IterMut<'a; K, V> => (&'a K, &'a mut V), where [K: Sync + 'a, V: Send + 'a]
}

gathered_iter! {
    /// A parallel iterator that empties a map (which keeps its allocation):
    /// `map.par_drain()`.
    Drain<'a; K, V> => (K, V), where [K: Send + 'a, V: Send + 'a]
}

impl<K: Hash + Eq + Send, V: Send, S: BuildHasher> IntoParallelIterator for HashMap<K, V, S> {
    type Item = (K, V);
    type Iter = IntoIter<K, V>;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter::gathered(self.into_iter().collect())
    }
}

impl<'a, K: Hash + Eq + Sync, V: Sync, S: BuildHasher> IntoParallelIterator
    for &'a HashMap<K, V, S>
{
    type Item = (&'a K, &'a V);
    type Iter = Iter<'a, K, V>;

    fn into_par_iter(self) -> Self::Iter {
        Iter::gathered(self.iter().collect())
    }
}

impl<'a, K: Hash + Eq + Sync, V: Send, S: BuildHasher> IntoParallelIterator
    for &'a mut HashMap<K, V, S>
{
    type Item = (&'a K, &'a mut V);
    type Iter = IterMut<'a, K, V>;

    fn into_par_iter(self) -> Self::Iter {
        IterMut::gathered(self.iter_mut().collect())
    }
}

impl<'a, K: Hash + Eq + Send, V: Send, S: BuildHasher> ParallelDrainFull
    for &'a mut HashMap<K, V, S>
{
    type Iter = Drain<'a, K, V>;
    type Item = (K, V);

    fn par_drain(self) -> Self::Iter {
        Drain::gathered(self.drain().collect())
    }
}
