//! Parallel iterators over `Result` (rayon's `rayon::result`): the `Ok` value, if any.

use crate::par::iter::delegate_indexed;
use crate::par::iter::IntoParallelIterator;
use crate::par::option;

/// A parallel iterator over a `Result`'s `Ok` value: `res.into_par_iter()`.
#[derive(Debug, Clone)]
pub struct IntoIter<T: Send> {
    inner: option::IntoIter<T>,
}

impl<T: Send, E> IntoParallelIterator for Result<T, E> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter {
            inner: self.ok().into_par_iter(),
        }
    }
}

delegate_indexed!(IntoIter<; T> => option::IntoIter<T>, item = T, where [T: Send]);

/// A parallel iterator over a reference to a `Result`'s `Ok` value: `res.par_iter()`.
#[derive(Debug)]
pub struct Iter<'a, T: Sync> {
    inner: option::IntoIter<&'a T>,
}

impl<T: Sync> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

impl<'a, T: Sync, E> IntoParallelIterator for &'a Result<T, E> {
    type Item = &'a T;
    type Iter = Iter<'a, T>;

    fn into_par_iter(self) -> Iter<'a, T> {
        Iter {
            inner: self.as_ref().ok().into_par_iter(),
        }
    }
}

delegate_indexed!(Iter<'a; T> => option::IntoIter<&'a T>, item = &'a T, where [T: Sync + 'a]);

/// A parallel iterator over a mutable reference to a `Result`'s `Ok` value:
/// `res.par_iter_mut()`.
#[derive(Debug)]
pub struct IterMut<'a, T: Send> {
    inner: option::IntoIter<&'a mut T>,
}

impl<'a, T: Send, E> IntoParallelIterator for &'a mut Result<T, E> {
    type Item = &'a mut T;
    type Iter = IterMut<'a, T>;

    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut {
            inner: self.as_mut().ok().into_par_iter(),
        }
    }
}

delegate_indexed!(IterMut<'a; T> => option::IntoIter<&'a mut T>, item = &'a mut T, where [T: Send + 'a]);
