//! `block_on`: poll a future on the calling thread until it completes, sleeping between
//! polls on a [`Parker`] (`runtime/park/parker.rs`, the type every filch thread sleeps on) whose
//! waker the future gets. Generic: it knows nothing of executors or workers (the public
//! `block_on`s check that they are not on a worker and enter their executor's context
//! first). Worker threads sleep on their own parker, which also waits in the IO driver.
//!
//! A thread keeps its parker between calls; a nested `block_on` (one inside a future that
//! an outer `block_on` polls) makes its own, so it cannot take the outer one's wake-ups.
//!
//! With the `test-util` feature, [`block_on_counted`] also keeps an activity count
//! (`runtime/time/clock.rs`): the thread counts as busy while it polls its future and from the
//! moment its waker is called until its next poll, and as idle while it waits; the paused
//! clock jumps only while nothing counts (`runtime/scheduler/auto_advance.rs`). Its signal is a
//! state word (`RUNNING`, `NOTIFIED`, `WAITING`, `DONE`) rather than a flag, so that the waker
//! and the thread agree on who counts the thread: the thread counts itself from its start
//! until it moves `RUNNING` to `WAITING`; the waker that moves `WAITING` to `NOTIFIED`
//! counts it again (before the move, taking it back if the move fails), so the count never
//! misses a thread that is about to poll.

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll};

use crate::runtime::park::{NoReactor, Parker};

thread_local! {
    /// This thread's parker while no `block_on` uses it (taken while one does).
    static CACHED: Cell<Option<Parker<NoReactor>>> = const { Cell::new(None) };
}

/// Runs `future` to completion on this thread.
#[cfg_attr(feature = "test-util", allow(dead_code))]
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let parker = CACHED.with(Cell::take).unwrap_or_else(Parker::new);
    let mut cx = Context::from_waker(parker.waker());
    let mut future = pin!(future);
    let output = loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            break output;
        }
        // Returns once the waker was called since the last park (what it wrote before is
        // visible then), or spuriously: the loop polls again either way.
        parker.park();
    };
    CACHED.with(|c| c.set(Some(parker)));
    output
}

#[cfg(feature = "test-util")]
pub(crate) use counted::block_on_counted;

#[cfg(feature = "test-util")]
mod counted {
    use std::future::Future;
    use std::pin::pin;
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    use crate::runtime::time::clock::Activity;
    use crate::util::sync::thread::{self, Thread};
    use crate::util::sync::{AtomicU8, Ordering};

    /// The thread polls (or is about to poll) its future; counted by itself.
    const RUNNING: u8 = 0;
    /// As `RUNNING`, and woken since its poll began: it polls again instead of waiting.
    const NOTIFIED: u8 = 1;
    /// The thread waits for its waker; not counted.
    const WAITING: u8 = 2;
    /// `block_on` returned; a late wake does nothing.
    const DONE: u8 = 3;

    /// Wakes the thread blocked in [`block_on_counted`], counting it busy again.
    struct CountedWaker {
        state: AtomicU8,
        thread: Thread,
        activity: Arc<Activity>,
    }

    impl Wake for CountedWaker {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            // SeqCst throughout: the state word orders the count's changes made by the
            // thread and by its wakers (module docs), and the waker's writes before the wake
            // are visible to the next poll.
            let mut state = self.state.load(Ordering::SeqCst);
            loop {
                match state {
                    RUNNING => match self.state.compare_exchange(
                        RUNNING,
                        NOTIFIED,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    ) {
                        Ok(_) => return,
                        // Why: the thread went to wait, or another waker came first.
                        Err(actual) => state = actual,
                    },
                    WAITING => {
                        // Count the thread before it may run: never a moment uncounted, and
                        // never in the middle of a jump of the clock.
                        self.activity.begin_fresh();
                        match self.state.compare_exchange(
                            WAITING,
                            NOTIFIED,
                            Ordering::SeqCst,
                            Ordering::SeqCst,
                        ) {
                            Ok(_) => {
                                self.thread.unpark();
                                return;
                            }
                            Err(actual) => {
                                // Why: another waker woke it first (and counted it); take
                                // ours back, which may be the last count (the idle hook
                                // then runs).
                                self.activity.end();
                                state = actual;
                            }
                        }
                    }
                    NOTIFIED => match self.state.compare_exchange(
                        NOTIFIED,
                        NOTIFIED,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    ) {
                        // Written, not only read: the thread's swap out of `NOTIFIED`
                        // then acquires this waker's writes too.
                        Ok(_) => return,
                        Err(actual) => state = actual,
                    },
                    _ => return,
                }
            }
        }
    }

    /// Ends the thread's count when `block_on_counted` returns or unwinds.
    struct CountEnd<'a>(&'a CountedWaker);

    impl Drop for CountEnd<'_> {
        fn drop(&mut self) {
            // SeqCst: see `wake_by_ref`. From `RUNNING` or `NOTIFIED`, where the thread
            // counts itself.
            self.0.state.store(DONE, Ordering::SeqCst);
            self.0.activity.block_on_ended();
            self.0.activity.end();
        }
    }

    /// [`block_on`](super::block_on), counting this thread in `activity` while it polls or
    /// has been woken (module docs).
    pub(crate) fn block_on_counted<F: Future>(future: F, activity: &Arc<Activity>) -> F::Output {
        activity.block_on_started();
        activity.begin_fresh();
        let signal = Arc::new(CountedWaker {
            state: AtomicU8::new(RUNNING),
            thread: thread::current(),
            activity: Arc::clone(activity),
        });
        let _done = CountEnd(&signal);
        let waker = Waker::from(Arc::clone(&signal));
        let mut cx = Context::from_waker(&waker);
        let mut future = pin!(future);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            // SeqCst: see `wake_by_ref`. If this fails, the future was woken during its
            // poll (`NOTIFIED`): poll again, still counted.
            if signal
                .state
                .compare_exchange(RUNNING, WAITING, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                // Waiting: no longer busy. The last to go idle runs the idle hook, which may
                // advance a paused clock and wake this very thread.
                activity.end();
                // `park` may return spuriously, hence the loop; a waker counts the thread and
                // moves the state to `NOTIFIED` before it unparks it.
                while signal.state.load(Ordering::SeqCst) == WAITING {
                    thread::park();
                }
            }
            // `NOTIFIED` to `RUNNING` (only this thread leaves `NOTIFIED`); a swap, so that
            // it acquires the writes of every waker that found `NOTIFIED`.
            signal.state.swap(RUNNING, Ordering::SeqCst);
        }
    }
}
