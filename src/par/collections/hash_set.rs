//! Parallel iterators over a `HashSet` (rayon's `rayon::collections::hash_set`).

use std::collections::HashSet;
use std::hash::{BuildHasher, Hash};

use super::gathered_iter;
use crate::par::iter::{IntoParallelIterator, ParallelDrainFull};

gathered_iter! {
    /// A parallel iterator over a set's items, moved out: `set.into_par_iter()`.
    IntoIter<; T> => T, where [T: Send]
}

gathered_iter! {
    /// A parallel iterator over references to a set's items: `set.par_iter()`.
    Iter<'a; T> => &'a T, where [T: Sync + 'a]
}

gathered_iter! {
    /// A parallel iterator that empties a set (which keeps its allocation):
    /// `set.par_drain()`.
    Drain<'a; T> => T, where [T: Send + 'a]
}

impl<T: Hash + Eq + Send, S: BuildHasher> IntoParallelIterator for HashSet<T, S> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter::gathered(self.into_iter().collect())
    }
}

impl<'a, T: Hash + Eq + Sync, S: BuildHasher> IntoParallelIterator for &'a HashSet<T, S> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter::gathered(self.iter().collect())
    }
}

impl<'a, T: Hash + Eq + Send, S: BuildHasher> ParallelDrainFull for &'a mut HashSet<T, S> {
    type Iter = Drain<'a, T>;
    type Item = T;

    fn par_drain(self) -> Self::Iter {
        Drain::gathered(self.drain().collect())
    }
}
