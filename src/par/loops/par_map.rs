//! [`par_map`]: a value for every index of a range, in index order.

use std::ops::Range;

use super::watched::watched;
use crate::par::iter::{IntoParallelIterator, ParallelIterator};
use crate::par::run::On;
use crate::par::Run;

/// The future of [`par_map`]: a [`Run`] that resolves to the results in index order.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParMap<usize> = ex.par_map(0..4, |i| i * 10);
/// assert_eq!(ex.block_on(fut), vec![0, 10, 20, 30]);
/// ```
pub type ParMap<T> = Run<Vec<T>>;

par_loop! {
    /// Computes `f(i)` for every index of `range` in parallel and gives the results in index
    /// order: a [`par::run`](crate::par::run) of
    /// `range.into_par_iter().map(f).collect::<Vec<_>>()`, each result written into its
    /// slot. Executor choice, empty ranges, panics and dropping work as for
    /// [`par_range`](crate::par_range).
    ///
    /// ```
    /// let squares = filch::block_on(filch::par_map(0..5, |i| i * i));
    /// assert_eq!(squares, vec![0, 1, 4, 9, 16]);
    /// ```
    fn par_map<T, F>(range: Range<usize>, f: F) -> ParMap<T>
    where [
        T: Send + 'static,
        F: Fn(usize) -> T + Send + Sync + 'static,
    ]
    builds build;
    on an executor: "assert_eq!(ex.block_on(on.par_map(0..3, |i| i * 2)), vec![0, 2, 4]);";
}

#[track_caller]
fn build<T, F>(on: On, range: Range<usize>, f: F) -> ParMap<T>
where
    T: Send + 'static,
    F: Fn(usize) -> T + Send + Sync + 'static,
{
    if range.is_empty() {
        return Run::at_once("par_map", Vec::new);
    }
    Run::on(on, "par_map", move || {
        watched(range.into_par_iter().map(&f)).collect::<Vec<T>>()
    })
}
