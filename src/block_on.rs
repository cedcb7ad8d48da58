//! `block_on`: poll a future on the calling thread until it completes, sleeping between
//! polls until its waker is called. Generic: it knows nothing of executors or workers (the
//! public `block_on`s check that they are not on a worker and enter their executor's context
//! first). Worker threads run their loop with `worker/drive.rs` instead, which parks in the
//! IO driver.

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// Wakes the thread blocked in `block_on`.
struct Signal {
    /// Set by a wake, cleared by the blocked thread before it polls again.
    notified: AtomicBool,
    thread: Thread,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Release: pairs with the Acquire swap in `block_on`, so the waker's writes before
        // the wake are visible to the next poll.
        if !self.notified.swap(true, Ordering::Release) {
            self.thread.unpark();
        }
    }
}

thread_local! {
    /// A reusable signal for this thread; taken while a `block_on` uses it, so a nested
    /// `block_on` makes its own instead of stealing the outer one's wake-ups.
    static CACHED: Cell<Option<Arc<Signal>>> = const { Cell::new(None) };
}

/// Runs `future` to completion on this thread.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let signal = CACHED.with(Cell::take).unwrap_or_else(|| {
        Arc::new(Signal {
            notified: AtomicBool::new(false),
            thread: thread::current(),
        })
    });
    let waker = Waker::from(Arc::clone(&signal));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    let output = loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            break output;
        }
        // Acquire: pairs with the Release swap in `wake_by_ref`. `park` may return
        // spuriously, hence the loop.
        while !signal.notified.swap(false, Ordering::Acquire) {
            thread::park();
        }
    };
    drop(waker);
    signal.notified.store(false, Ordering::Relaxed);
    CACHED.with(|c| c.set(Some(signal)));
    output
}
