//! Parallel iterators over a `BTreeMap` (rayon's `rayon::collections::btree_map`), in key
//! order.

use std::collections::BTreeMap;

use super::gathered_iter;
use crate::par::iter::IntoParallelIterator;

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

impl<K: Ord + Send, V: Send> IntoParallelIterator for BTreeMap<K, V> {
    type Item = (K, V);
    type Iter = IntoIter<K, V>;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter::gathered(self.into_iter().collect())
    }
}

impl<'a, K: Ord + Sync, V: Sync> IntoParallelIterator for &'a BTreeMap<K, V> {
    type Item = (&'a K, &'a V);
    type Iter = Iter<'a, K, V>;

    fn into_par_iter(self) -> Self::Iter {
        Iter::gathered(self.iter().collect())
    }
}

impl<'a, K: Ord + Sync, V: Send> IntoParallelIterator for &'a mut BTreeMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type Iter = IterMut<'a, K, V>;

    fn into_par_iter(self) -> Self::Iter {
        IterMut::gathered(self.iter_mut().collect())
    }
}
