//! hyper 1.x's runtime traits on filch (cargo feature `hyper`): [`HyperExecutor`] spawns
//! hyper's background tasks, [`HyperTimer`] gives it filch's timers. The streams of
//! [`crate::net`] implement `hyper::rt::Read` and `hyper::rt::Write` themselves, so a
//! connection needs no adapter:
//!
//! ```
//! use filch::hyper::{HyperExecutor, HyperTimer};
//! # let _ = (HyperExecutor::default(), HyperTimer::default());
//! // hyper::server::conn::http1::Builder::new().timer(HyperTimer::default())
//! //     .serve_connection(stream, service)
//! ```

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use crate::executor::Handle;

/// Spawns hyper's tasks on filch: on the current executor (else the global one) by
/// default, or on a given one ([`HyperExecutor::new`]).
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let on_ex = filch::hyper::HyperExecutor::new(ex.handle());
/// hyper::rt::Executor::execute(&on_ex, async {});
/// ```
#[derive(Clone, Debug, Default)]
pub struct HyperExecutor {
    handle: Option<Handle>,
}

impl HyperExecutor {
    /// An executor that spawns onto `handle`'s executor.
    pub fn new(handle: Handle) -> HyperExecutor {
        HyperExecutor {
            handle: Some(handle),
        }
    }
}

impl<F> hyper::rt::Executor<F> for HyperExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        match &self.handle {
            Some(handle) => drop(handle.spawn(future)),
            None => drop(crate::spawn(future)),
        }
    }
}

/// hyper's timer on filch's ([`crate::time`]): its sleeps belong to the executor current
/// where hyper makes them.
///
/// ```
/// use hyper::rt::Timer;
/// filch::block_on(filch::hyper::HyperTimer::default().sleep(std::time::Duration::from_millis(1)));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct HyperTimer;

/// A filch sleep as hyper's `rt::Sleep`.
struct HyperSleep(crate::time::Sleep);

impl Future for HyperSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl hyper::rt::Sleep for HyperSleep {}

impl hyper::rt::Timer for HyperTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(HyperSleep(crate::time::sleep(duration)))
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        Box::pin(HyperSleep(crate::time::sleep_until(deadline.into())))
    }
}
