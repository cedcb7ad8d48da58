//! Parallel iterators over a `BTreeSet` (rayon's `rayon::collections::btree_set`), in
//! order.

use std::collections::BTreeSet;

use super::gathered_iter;
use crate::par::iter::IntoParallelIterator;

gathered_iter! {
    /// A parallel iterator over a set's items, moved out: `set.into_par_iter()`.
    IntoIter<; T> => T, where [T: Send]
}

gathered_iter! {
    /// A parallel iterator over references to a set's items: `set.par_iter()`.
    Iter<'a; T> => &'a T, where [T: Sync + 'a]
}

impl<T: Ord + Send> IntoParallelIterator for BTreeSet<T> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter::gathered(self.into_iter().collect())
    }
}

impl<'a, T: Ord + Sync> IntoParallelIterator for &'a BTreeSet<T> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter::gathered(self.iter().collect())
    }
}
