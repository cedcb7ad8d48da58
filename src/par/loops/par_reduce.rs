//! [`par_reduce`]: an ordered reduction over the indices of a range.

use std::ops::Range;

use super::watched::watched;
use crate::par::iter::{IntoParallelIterator, ParallelIterator};
use crate::par::run::On;
use crate::par::Run;
use crate::util::sync::{AtomicBool, Ordering};

/// The future of [`par_reduce`]: a [`Run`] that resolves to the combination of every
/// index's fold.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParReduce<u64> = ex.par_reduce(0..5, || 0, |a, i| a + i as u64, |a, b| a + b);
/// assert_eq!(ex.block_on(fut), 10);
/// ```
pub type ParReduce<T> = Run<T>;

par_loop! {
    /// Folds every index of `range` in parallel: a [`par::run`](crate::par::run) of
    /// `range.into_par_iter().fold(identity, fold).reduce(identity, reduce)`. Each run of
    /// consecutive indices that one worker folds at a time starts from `identity()`, and the
    /// partial results are combined with `reduce` in index order, as rayon does: `reduce` must
    /// be associative but need not be commutative (concatenating gives the sequential
    /// answer), and `identity()` must be neutral for it. An empty range gives `identity()`.
    /// Executor choice, panics and dropping work as for [`par_range`](crate::par_range).
    ///
    /// ```
    /// let sum = filch::block_on(filch::par_reduce(
    ///     1..101,
    ///     || 0u64,
    ///     |acc, i| acc + i as u64,
    ///     |a, b| a + b,
    /// ));
    /// assert_eq!(sum, 5050);
    ///
    /// // Not commutative: the partials are combined in index order.
    /// let digits = filch::block_on(filch::par_reduce(
    ///     0..10,
    ///     String::new,
    ///     |mut s, i| {
    ///         s.push_str(&i.to_string());
    ///         s
    ///     },
    ///     |a, b| a + &b,
    /// ));
    /// assert_eq!(digits, "0123456789");
    /// ```
    fn par_reduce<T, I, F, R>(range: Range<usize>, identity: I, fold: F, reduce: R) -> ParReduce<T>
    where [
        T: Send + 'static,
        I: Fn() -> T + Send + Sync + 'static,
        F: Fn(T, usize) -> T + Send + Sync + 'static,
        R: Fn(T, T) -> T + Send + Sync + 'static,
    ]
    builds build;
    on an executor: "let max = ex.block_on(on.par_reduce(0..10, || 0, |m, i| m.max(i), |a, b| a.max(b)));\nassert_eq!(max, 9);";
}

#[track_caller]
fn build<T, I, F, R>(on: On, range: Range<usize>, identity: I, fold: F, reduce: R) -> ParReduce<T>
where
    T: Send + 'static,
    I: Fn() -> T + Send + Sync + 'static,
    F: Fn(T, usize) -> T + Send + Sync + 'static,
    R: Fn(T, T) -> T + Send + Sync + 'static,
{
    if range.is_empty() {
        return Run::at_once("par_reduce", identity);
    }
    Run::on(on, "par_reduce", move || {
        // Set once `reduce` panicked: the loop has no value any more, so the partial results
        // still meeting are not reduced (the user's `reduce` runs no more than once per
        // worker after a panic, for those already inside it).
        let failed = AtomicBool::new(false);
        let reduce = |a: T, b: T| -> T {
            if failed.load(Ordering::Relaxed) {
                drop(b);
                return a;
            }
            let unwinding = SetOnUnwind(&failed);
            let ab = reduce(a, b);
            std::mem::forget(unwinding);
            ab
        };
        watched(range.into_par_iter())
            .fold(&identity, &fold)
            .reduce(&identity, &reduce)
    })
}

/// Sets its flag when dropped; only unwinding drops it.
struct SetOnUnwind<'a>(&'a AtomicBool);

impl Drop for SetOnUnwind<'_> {
    fn drop(&mut self) {
        // Relaxed: a hint that spares work; the panic itself reaches the caller through the
        // bridge's joins.
        self.0.store(true, Ordering::Relaxed);
    }
}
