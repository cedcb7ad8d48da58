//! [`par_range`]: a body on every index of a range.

use std::ops::Range;

use super::watched::watched;
use crate::par::iter::{IntoParallelIterator, ParallelIterator};
use crate::par::run::On;
use crate::par::Run;

/// The future of [`par_range`]: a [`Run`] that resolves to `()` once the body ran on every
/// index.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(2).build().unwrap();
/// let fut: filch::ParRange = ex.par_range(0..10, |_| {});
/// ex.block_on(fut);
/// ```
pub type ParRange = Run<()>;

par_loop! {
    /// Runs `body` on every index of `range`, in parallel on the current executor (else the
    /// global one), chosen when the future is first polled. Awaiting it never blocks a worker:
    /// it is a [`par::run`](crate::par::run) of `range.into_par_iter().for_each(body)`.
    ///
    /// An empty or reversed range completes at once without calling `body`. A panic in `body`
    /// stops the loop (indices not yet started are skipped) and is resumed in the awaiting
    /// task, with its payload, once the bodies already running have returned; polled again
    /// after that, the future panics again. Dropping the future stops the loop, and so does
    /// the executor's shutdown (the future then panics with a message). The loop shares the
    /// workers with other tasks: a worker that has run it for a tick has a stand-in thread
    /// poll its tasks and turn the IO driver and timers until it is done (others take its
    /// queued tasks meanwhile), and its part of the loop looks up every few items, however
    /// long each takes.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let sum = Arc::new(AtomicUsize::new(0));
    /// let s = Arc::clone(&sum);
    /// filch::block_on(filch::par_range(0..1000, move |i| {
    ///     s.fetch_add(i, Ordering::Relaxed);
    /// }));
    /// assert_eq!(sum.load(Ordering::Relaxed), 499_500);
    /// ```
    ///
    /// The body must be `Send + Sync`, since it runs on several threads at once:
    ///
    /// ```compile_fail
    /// use std::rc::Rc;
    /// let shared = Rc::new(5);
    /// let fut = filch::par_range(0..10, move |i| {
    ///     let _ = (&shared, i);
    /// });
    /// ```
    fn par_range<F>(range: Range<usize>, body: F) -> ParRange
    where [
        F: Fn(usize) + Send + Sync + 'static,
    ]
    builds build;
    on an executor: "ex.block_on(on.par_range(0..100, |i| assert!(i < 100)));";
}

#[track_caller]
fn build<F>(on: On, range: Range<usize>, body: F) -> ParRange
where
    F: Fn(usize) + Send + Sync + 'static,
{
    if range.is_empty() {
        return Run::at_once("par_range", || ());
    }
    Run::on(on, "par_range", move || {
        watched(range.into_par_iter()).for_each(&body)
    })
}
