//! [`par_map_vec`]: each item of an owned `Vec` moved into `f`, the results in order.

use super::in_place::{in_place, map_in_place};
use super::watched::watched;
use crate::par::iter::{IntoParallelIterator, ParallelIterator};
use crate::par::run::On;
use crate::par::Run;

/// The future of [`par_map_vec`]: a [`Run`] that resolves to the results in the order of the
/// items.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let words = vec!["a".to_string(), "bb".to_string()];
/// let fut: filch::ParMapVec<usize> = ex.par_map_vec(words, |w| w.len());
/// assert_eq!(ex.block_on(fut), vec![1, 2]);
/// ```
pub type ParMapVec<U> = Run<Vec<U>>;

par_loop! {
    /// Moves each item of `items` into `f`, in parallel, and gives the results in the order of
    /// the items: a [`par::run`](crate::par::run) of
    /// `items.into_par_iter().map(f).collect::<Vec<_>>()`. Executor choice, laziness, panics
    /// and dropping work as for [`par_range`](crate::par_range), over the indices
    /// `0..items.len()`.
    ///
    /// Each item is moved into `f` exactly once. If the loop stops early (a panic in `f`, the
    /// future dropped, the executor shut down), the items not yet moved into `f` and the
    /// results already made are each dropped exactly once (the item a panicking `f` held is
    /// dropped by that panic). An empty `items` completes at once with an empty `Vec`. When
    /// `U` has the size and alignment of `T`, the results are written over the items and the
    /// output reuses the allocation of `items` (as std's `into_iter().map().collect()` does).
    ///
    /// ```
    /// let lines = vec!["3".to_string(), "x".to_string(), "42".to_string()];
    /// let parsed = filch::block_on(filch::par_map_vec(lines, |s| s.parse::<u32>().ok()));
    /// assert_eq!(parsed, vec![Some(3), None, Some(42)]);
    /// ```
    ///
    /// Items need not be `Sync` or `Clone`, only `Send`; `f` runs on several threads at once,
    /// so it must be `Sync`:
    ///
    /// ```compile_fail
    /// use std::cell::Cell;
    /// let counter = Cell::new(0);
    /// let fut = filch::par_map_vec(vec![1, 2, 3], move |x: i32| {
    ///     counter.set(counter.get() + 1);
    ///     x
    /// });
    /// ```
    fn par_map_vec<T, U, F>(items: Vec<T>, f: F) -> ParMapVec<U>
    where [
        T: Send + 'static,
        U: Send + 'static,
        F: Fn(T) -> U + Send + Sync + 'static,
    ]
    builds build;
    on an executor: "let lens = ex.block_on(on.par_map_vec(vec![\"ab\".to_string(), \"c\".to_string()], |s| s.len()));\nassert_eq!(lens, vec![2, 1]);";
}

#[track_caller]
fn build<T, U, F>(on: On, items: Vec<T>, f: F) -> ParMapVec<U>
where
    T: Send + 'static,
    U: Send + 'static,
    F: Fn(T) -> U + Send + Sync + 'static,
{
    if items.is_empty() {
        // In place, the (empty) output keeps the input's allocation.
        return Run::at_once("par_map_vec", move || {
            if in_place::<T, U>() {
                map_in_place(items, &f)
            } else {
                Vec::new()
            }
        });
    }
    Run::on(on, "par_map_vec", move || {
        if in_place::<T, U>() {
            map_in_place(items, &f)
        } else {
            watched(items.into_par_iter().map(&f)).collect::<Vec<U>>()
        }
    })
}
