//! [`drive`]: runs a worker's loop (a future) on its thread, and is where a parked worker
//! waits: in the OS poll of its executor's IO driver if no other thread holds it (a
//! try-lock hand-off, as tokio's), else on its thread parker.
//!
//! The loop's future returns `Pending` only while the worker is parked, waiting for its
//! event-listener (`park/`); the listener's notification calls this loop's waker. The
//! waker sets `notified`, then interrupts whichever wait the thread is in: the driver's
//! `mio::Waker` if `in_driver` is set, else the thread parker.
//!
//! No lost wake-up: the waiter stores `in_driver = true` and then loads `notified`, with a
//! SeqCst fence between, before it enters the OS poll; the waker stores `notified` and then
//! loads `in_driver`, with a SeqCst fence between. Either the waiter sees `notified` and
//! does not wait, or the waker sees `in_driver` and wakes the poll (a `mio::Waker` wake
//! that arrives before the poll makes it return at once). Outside the OS poll `in_driver` is false, and the thread
//! parker keeps an `unpark` that comes before its `park`. The loom model in
//! `park/loom_model.rs` (`driver_holder_is_never_lost`) checks this hand-shake together with
//! the park protocol.
//!
//! `in_driver` is cleared as soon as the OS poll returns, before the turn delivers events:
//! the wakers of IO events run on this thread, and a wake-up of this same worker then only
//! sets `notified`, without a needless `eventfd` write.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use crate::io::Driver;

/// The waker of a worker's loop.
struct Signal {
    /// Set by a wake, cleared by the worker before it polls its loop again.
    notified: AtomicBool,
    /// Set while the worker waits in the driver's OS poll.
    in_driver: AtomicBool,
    thread: Thread,
    driver: Arc<Driver>,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // SeqCst, and a fence between: the store of `notified` and the load of `in_driver`
        // pair with the store of `in_driver` and the load of `notified` in `wait` (module
        // docs). The fences make the pairing explicit (and let loom check it, which models
        // SeqCst accesses as acquire/release but SeqCst fences exactly).
        if !self.notified.swap(true, Ordering::SeqCst) {
            fence(Ordering::SeqCst);
            if self.in_driver.load(Ordering::SeqCst) {
                self.driver.wake();
            } else {
                self.thread.unpark();
            }
        }
    }
}

/// Polls `worker_loop` to completion on this thread, waiting in `driver` (when free) or on
/// the thread parker while it is pending (module docs).
pub(crate) fn drive(worker_loop: impl Future<Output = ()>, driver: &Arc<Driver>) {
    let signal = Arc::new(Signal {
        notified: AtomicBool::new(false),
        in_driver: AtomicBool::new(false),
        thread: thread::current(),
        driver: Arc::clone(driver),
    });
    let waker = Waker::from(Arc::clone(&signal));
    let mut cx = Context::from_waker(&waker);
    let mut worker_loop = pin!(worker_loop);
    loop {
        if let Poll::Ready(()) = worker_loop.as_mut().poll(&mut cx) {
            return;
        }
        wait(&signal, driver);
    }
}

/// Waits until `signal` is notified: in the driver's OS poll if it is free, else parked.
fn wait(signal: &Signal, driver: &Driver) {
    loop {
        // SeqCst: pairs with the swap in `wake_by_ref` (module docs).
        if signal.notified.swap(false, Ordering::SeqCst) {
            return;
        }
        match driver.try_lock() {
            Some(mut guard) => {
                let Some(poller) = guard.as_mut() else {
                    // The driver shut down: only the thread parker is left (let go of the
                    // lock first).
                    drop(guard);
                    thread::park();
                    continue;
                };
                signal.in_driver.store(true, Ordering::SeqCst);
                // Pairs with the fence in `wake_by_ref` (module docs).
                fence(Ordering::SeqCst);
                if signal.notified.load(Ordering::SeqCst) {
                    signal.in_driver.store(false, Ordering::SeqCst);
                    continue;
                }
                driver.turn(poller, None, || {
                    signal.in_driver.store(false, Ordering::SeqCst);
                });
            }
            None => thread::park(),
        }
    }
}
