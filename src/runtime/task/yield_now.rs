//! [`yield_now`]: give the other ready tasks a turn.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Wakes the polling task as a yield: on a worker, the task is then deferred until the
/// worker's next driver turn, behind the worker's other ready work
/// (`runtime/scheduler/worker/schedule.rs`), instead of running again at once. The caller returns
/// `Pending`.
pub(crate) fn wake_to_yield(cx: &Context<'_>) {
    crate::runtime::coop::note_yield();
    cx.waker().wake_by_ref();
}

/// Returns a future that is pending once (waking itself) and ready on its second poll.
///
/// On a filch worker the woken task goes behind the other tasks ready on that worker, so a
/// loop that calls `yield_now().await` lets them run, and it runs again only after the
/// worker has looked at the IO driver and the timers (without blocking), as in tokio: an
/// event that has come by then reaches it on its next poll.
///
/// ```
/// filch::block_on(async {
///     for _ in 0..3 {
///         filch::yield_now().await;
///     }
/// });
/// ```
pub fn yield_now() -> YieldNow {
    YieldNow { yielded: false }
}

/// The future returned by [`yield_now`].
///
/// ```
/// let fut: filch::YieldNow = filch::yield_now();
/// filch::block_on(fut);
/// ```
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        wake_to_yield(cx);
        Poll::Pending
    }
}
