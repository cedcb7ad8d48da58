//! [`par_for_each_mut`]: each element of an owned `Vec` changed in place, the same `Vec`
//! given back.

use super::watched::watched;
use crate::par::iter::{IndexedParallelIterator, IntoParallelRefMutIterator, ParallelIterator};
use crate::par::run::On;
use crate::par::Run;

/// The future of [`par_for_each_mut`]: a [`Run`] that resolves to the same `Vec`, each
/// element changed in place.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParForEachMut<u32> = ex.par_for_each_mut(vec![1, 2, 3], |_, x| *x *= 2);
/// assert_eq!(ex.block_on(fut), vec![2, 4, 6]);
/// ```
pub type ParForEachMut<T> = Run<Vec<T>>;

par_loop! {
    /// Calls `f(k, &mut items[k])` for every element of `items`, in parallel, and gives the
    /// same `Vec` back (the same allocation), each element changed in place: a
    /// [`par::run`](crate::par::run) of `items.par_iter_mut().enumerate().for_each(..)`.
    /// Executor choice, laziness, panics and dropping work as for
    /// [`par_range`](crate::par_range), over the indices `0..items.len()`.
    ///
    /// If the loop stops early (a panic in `f`, the future dropped, the executor shut down),
    /// the elements are dropped with the `Vec` (each exactly once), as they stand. An empty
    /// `items` completes at once and gives the same empty `Vec` back.
    ///
    /// ```
    /// let mut scores = vec![10u32; 1000];
    /// scores = filch::block_on(filch::par_for_each_mut(scores, |k, s| *s += k as u32));
    /// assert_eq!(scores[0], 10);
    /// assert_eq!(scores[999], 1009);
    /// ```
    fn par_for_each_mut<T, F>(items: Vec<T>, f: F) -> ParForEachMut<T>
    where [
        T: Send + 'static,
        F: Fn(usize, &mut T) + Send + Sync + 'static,
    ]
    builds build;
    on an executor: "let v = ex.block_on(on.par_for_each_mut(vec![1, 2, 3], |_, x| *x = -*x));\nassert_eq!(v, vec![-1, -2, -3]);";
}

#[track_caller]
fn build<T, F>(on: On, mut items: Vec<T>, f: F) -> ParForEachMut<T>
where
    T: Send + 'static,
    F: Fn(usize, &mut T) + Send + Sync + 'static,
{
    if items.is_empty() {
        return Run::at_once("par_for_each_mut", move || items);
    }
    Run::on(on, "par_for_each_mut", move || {
        watched(items.par_iter_mut().enumerate()).for_each(|(k, item)| f(k, item));
        items
    })
}
