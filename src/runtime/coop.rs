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
//! ([`note_yield`], in the same thread-local, which the worker reads when the task wakes
//! itself, [`ThreadCoop::take_yield`]), so it is held back behind the other ready work of
//! its worker, and runs again only after its worker's next look at the IO driver and the
//! timers, exactly as after `yield_now` (`runtime/scheduler/worker/schedule.rs`).

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Units of work a task may do in one poll before filch's resources make it yield. 128 as
/// in tokio.
pub(crate) const BUDGET: u8 = 128;

thread_local! {
    /// The cooperative state of the poll running on this thread, in one word so that a
    /// task poll reads and writes it with few instructions, through one thread-local: the
    /// budget left in the low byte ([`UNLIMITED`]: none), and [`YIELDED`], set by a yield
    /// during the poll (`yield_now`, a spent budget), taken by the worker when the task
    /// wakes itself, and cleared when a poll starts ([`with_budget`]).
    static COOP: Cell<u16> = const { Cell::new(UNLIMITED) };
}

/// The low byte of [`COOP`] when the poll has no budget.
const UNLIMITED: u16 = 0xff;
/// The low byte of [`COOP`]: the budget left.
const LEFT: u16 = 0xff;
/// The yield mark of [`COOP`].
const YIELDED: u16 = 0x100;

const _: () = assert!((BUDGET as u16) < UNLIMITED);

/// The budget left to the poll running on this thread (`None`: unlimited).
fn left() -> Option<u8> {
    let left = COOP.with(Cell::get) & LEFT;
    // Lossless: masked to the low byte.
    (left != UNLIMITED).then_some(left as u8)
}

/// Marks the poll running on this thread as yielding (module docs).
pub(crate) fn note_yield() {
    COOP.with(|c| c.set(c.get() | YIELDED));
}

/// Runs `f` (one task poll) with a fresh budget and no yield mark (one left by an earlier
/// poll that did not wake itself is dropped), restoring the outer budget after (also on
/// unwind, through the guard). The mark is left as the poll left it: the worker's schedule
/// function takes it when the task wakes itself at the end of the poll.
pub(crate) fn with_budget<R>(f: impl FnOnce() -> R) -> R {
    COOP.with(|c| budget_poll(c, f))
}

/// [`with_budget`] on `coop`, this thread's [`COOP`].
fn budget_poll<R>(coop: &Cell<u16>, f: impl FnOnce() -> R) -> R {
    let outer = coop.replace(u16::from(BUDGET));
    let _restore = RestoreLeft(coop, outer & LEFT);
    f()
}

/// Restores the outer budget (a low byte of [`COOP`]) when dropped, keeping the yield mark
/// (see [`with_budget`] and [`unconstrained`]).
struct RestoreLeft<'a>(&'a Cell<u16>, u16);

impl Drop for RestoreLeft<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() & YIELDED | self.1);
    }
}

/// A worker thread's handle on its own [`COOP`]: a worker reads and writes the word at
/// every poll (the budget, the yield mark), and a thread-local access costs a call each
/// time, so the worker keeps the word's address.
///
/// Neither `Send` nor `Sync` (it holds a raw pointer): it is used only on the thread that
/// made it, and lives no longer than that thread (a worker keeps it on its own stack).
pub(crate) struct ThreadCoop(*const Cell<u16>);

impl ThreadCoop {
    /// The current thread's handle.
    pub(crate) fn current() -> ThreadCoop {
        ThreadCoop(COOP.with(|c| c as *const Cell<u16>))
    }

    fn cell(&self) -> &Cell<u16> {
        // SAFETY: the pointer is the address of this thread's `COOP` (`current`), and this
        // is the thread that took it (`ThreadCoop` is neither Send nor Sync). `COOP` is
        // const-initialised and has no destructor, so its storage is the same for the
        // thread's whole life, and the thread is alive while it runs this.
        unsafe { &*self.0 }
    }

    /// [`with_budget`], without the thread-local look-up.
    #[inline]
    pub(crate) fn with_budget<R>(&self, f: impl FnOnce() -> R) -> R {
        budget_poll(self.cell(), f)
    }

    /// Whether the poll running on this thread yielded; clears the mark.
    #[inline]
    pub(crate) fn take_yield(&self) -> bool {
        let cell = self.cell();
        let coop = cell.get();
        cell.set(coop & !YIELDED);
        coop & YIELDED != 0
    }
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
    COOP.with(|c| {
        let outer = c.replace(c.get() & YIELDED | UNLIMITED);
        let _restore = RestoreLeft(c, outer & LEFT);
        f()
    })
}

/// Ready if the current task may do one more operation; otherwise wakes it (as a yield)
/// and returns `Pending`. Spends nothing: call [`spend`] once the operation completes.
pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<()> {
    if left() == Some(0) {
        return yield_now(cx);
    }
    Poll::Ready(())
}

/// Wakes the current task as a yield (it is deferred until its worker's next driver turn,
/// see `runtime/scheduler/worker/mod.rs`) and returns `Pending`.
pub(crate) fn yield_now<T>(cx: &mut Context<'_>) -> Poll<T> {
    note_yield();
    cx.waker().wake_by_ref();
    Poll::Pending
}

/// Whether the current task may do one more operation (always, outside a budgeted poll).
pub(crate) fn has_budget_remaining() -> bool {
    left() != Some(0)
}

/// Spends one unit of the current task's budget.
pub(crate) fn spend() {
    COOP.with(|c| {
        let coop = c.get();
        let left = coop & LEFT;
        if left != UNLIMITED && left > 0 {
            c.set(coop - 1);
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
