//! Parallel iterators over a `LinkedList` (rayon's `rayon::collections::linked_list`), in
//! order.

use std::collections::LinkedList;

use super::gathered_iter;
use crate::par::iter::IntoParallelIterator;

gathered_iter! {
    /// A parallel iterator over a list's items, moved out: `list.into_par_iter()`.
    IntoIter<; T> => T, where [T: Send]
}

gathered_iter! {
    /// A parallel iterator over references to a list's items: `list.par_iter()`.
    Iter<'a; T> => &'a T, where [T: Sync + 'a]
}

gathered_iter! {
    /// A parallel iterator over mutable references to a list's items:
    /// `list.par_iter_mut()`.
    IterMut<'a; T> => &'a mut T, where [T: Send + 'a]
}

impl<T: Send> IntoParallelIterator for LinkedList<T> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> Self::Iter {
        IntoIter::gathered(self.into_iter().collect())
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a LinkedList<T> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;

    fn into_par_iter(self) -> Self::Iter {
        Iter::gathered(self.iter().collect())
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut LinkedList<T> {
    type Item = &'a mut T;
    type Iter = IterMut<'a, T>;

    fn into_par_iter(self) -> Self::Iter {
        IterMut::gathered(self.iter_mut().collect())
    }
}
