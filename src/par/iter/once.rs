//! `once(item)`: a parallel iterator of one item.

use super::{delegate_indexed, IntoParallelIterator};
use crate::par::option;

/// A parallel iterator that yields `item` once.
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::once;
///
/// let v: Vec<i32> = (0..3).into_par_iter().chain(once(9)).collect();
/// assert_eq!(v, [0, 1, 2, 9]);
/// ```
pub fn once<T: Send>(item: T) -> Once<T> {
    Once {
        inner: Some(item).into_par_iter(),
    }
}

/// The iterator of [`once()`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct Once<T: Send> {
    inner: option::IntoIter<T>,
}

delegate_indexed!(Once<; T> => option::IntoIter<T>, item = T, where [T: Send]);
