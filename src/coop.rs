//! The cooperative budget (as tokio's `task/coop`): each task poll on a worker gets
//! [`BUDGET`] units; filch's IO objects, timers and [`consume_budget`] spend one unit per
//! operation that completes, and once the budget is spent they wake their task and return
//! `Pending` instead of completing. A task reading an always-ready socket, or looping on
//! `consume_budget`, thus goes back to its worker's queue every [`BUDGET`] operations, and
//! the other tasks of that worker (and its driver turns, timers included) get their turn.
//!
//! The budget is a thread-local, set by the worker around each poll ([`with_budget`]) and
//! by `block_on` around each poll of its future ([`budgeted`]); elsewhere (a future polled
//! by another crate's executor on a plain thread) it is unlimited. `JoinHandle`s (and so
//! `JoinSet::join_next`) spend one unit when they return `Ready`, as tokio's do.
//!
//! A task whose budget ran out wakes itself as a *yield*: it marks the poll as yielding
//! ([`note_yield`], a thread-local that the worker reads when the task wakes itself,
//! [`take_yield`]), so it is held back behind the other ready work of its worker, and runs
//! again only after its worker's next look at the IO driver and the timers, exactly as
//! after `yield_now` (`worker/schedule.rs`).

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Units of work a task may do in one poll before filch's resources make it yield. 128 as
/// in tokio.
pub(crate) const BUDGET: u8 = 128;

thread_local! {
    /// The budget left to the task being polled on this thread (`None`: unlimited).
    static LEFT: Cell<Option<u8>> = const { Cell::new(None) };
    /// Set by a yield during the poll running on this thread (`yield_now`, a spent budget);
    /// taken by the worker when the task wakes itself, and cleared before each poll.
    static YIELDED: Cell<bool> = const { Cell::new(false) };
}

/// Marks the poll running on this thread as yielding (module docs).
pub(crate) fn note_yield() {
    YIELDED.with(|y| y.set(true));
}

/// Whether the poll running on this thread yielded; clears the mark.
pub(crate) fn take_yield() -> bool {
    YIELDED.with(|y| y.replace(false))
}

/// Runs `f` (one task poll) with a fresh budget, restoring the outer one after (also on
/// unwind, through the guard).
pub(crate) fn with_budget<R>(f: impl FnOnce() -> R) -> R {
    with_left(Some(BUDGET), f)
}

/// Runs `f` with `left` as the budget, restoring the outer one after (also on unwind).
fn with_left<R>(left: Option<u8>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<u8>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LEFT.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LEFT.with(|l| l.replace(left)));
    f()
}

pin_project_lite::pin_project! {
    /// A future polled with a fresh budget each time (what `block_on` runs): once the
    /// budget of a poll is spent, filch's resources make it yield, and the wake-up that
    /// follows brings a new poll, and a new budget.
    pub(crate) struct Budgeted<F> {
        #[pin]
        future: F,
    }
}

/// `future`, polled with a budget (see [`Budgeted`]).
pub(crate) fn budgeted<F: Future>(future: F) -> Budgeted<F> {
    Budgeted { future }
}

impl<F: Future> Future for Budgeted<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let future = self.project().future;
        with_budget(|| future.poll(cx))
    }
}

/// Runs `f` with no budget (what a call that cannot yield, such as
/// `JoinSet::try_join_next`, polls under), restoring the budget after (also on unwind).
pub(crate) fn unconstrained<R>(f: impl FnOnce() -> R) -> R {
    with_left(None, f)
}

/// Ready if the current task may do one more operation; otherwise wakes it (as a yield)
/// and returns `Pending`. Spends nothing: call [`spend`] once the operation completes.
pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<()> {
    if LEFT.with(Cell::get) == Some(0) {
        return yield_now(cx);
    }
    Poll::Ready(())
}

/// Wakes the current task as a yield (it is deferred until its worker's next driver turn,
/// see `worker/mod.rs`) and returns `Pending`.
pub(crate) fn yield_now<T>(cx: &mut Context<'_>) -> Poll<T> {
    note_yield();
    cx.waker().wake_by_ref();
    Poll::Pending
}

/// Whether the current task may do one more operation (always, outside a budgeted poll).
pub(crate) fn has_budget_remaining() -> bool {
    LEFT.with(Cell::get) != Some(0)
}

/// Spends one unit of the current task's budget.
pub(crate) fn spend() {
    LEFT.with(|l| {
        if let Some(n) = l.get() {
            l.set(Some(n.saturating_sub(1)));
        }
    });
}

/// Counts one unit of the current task's cooperative budget, and yields to the other tasks
/// of its worker once the budget of this poll is spent. Use it in a loop that would
/// otherwise never return `Pending` (every filch IO operation and timer already counts).
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let sum = ex.block_on(ex.spawn(async {
///     let mut sum = 0u64;
///     for i in 0..10_000u64 {
///         filch::consume_budget().await;
///         sum += i;
///     }
///     sum
/// }));
/// assert_eq!(sum.unwrap(), 49_995_000);
/// ```
pub async fn consume_budget() {
    ConsumeBudget { done: false }.await
}

/// The future of [`consume_budget`].
struct ConsumeBudget {
    done: bool,
}

impl Future for ConsumeBudget {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        std::task::ready!(poll_proceed(cx));
        spend();
        self.done = true;
        Poll::Ready(())
    }
}
