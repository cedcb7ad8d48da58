//! `block_on`: poll a future on the calling thread until it completes, sleeping between
//! polls on a [`Parker`] (`park/parker.rs`, the type every filch thread sleeps on) whose
//! waker the future gets. Generic: it knows nothing of executors or workers (the public
//! `block_on`s check that they are not on a worker and enter their executor's context
//! first). Worker threads sleep on their own parker, which also waits in the IO driver.
//!
//! A thread keeps its parker between calls; a nested `block_on` (one inside a future that
//! an outer `block_on` polls) makes its own, so it cannot take the outer one's wake-ups.

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll};

use crate::park::{NoReactor, Parker};

thread_local! {
    /// This thread's parker while no `block_on` uses it (taken while one does).
    static CACHED: Cell<Option<Parker<NoReactor>>> = const { Cell::new(None) };
}

/// Runs `future` to completion on this thread.
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
