//! [`ParCall`]: a parallel call as the console sees it: a resource of kind `parallel` whose
//! async op is the call (`source`: `par::run`, `par::join`, `par::scope`, `par_iter`, …), at
//! the call's site where filch knows it, polled inside the task that makes it, with a
//! `pieces_taken` attribute: how many of the call's pieces threads took from the board.
//!
//! A `par::run` future (and so each awaited loop) holds one for its life, polled with it;
//! a `join`, `scope` or parallel-iterator call made outside every other fork-join call
//! (`runtime/scheduler/forkjoin/mod.rs`, the door) is one for its length ([`around`]), its
//! one poll ready when the call returns. While a thread runs inside a traced call, the roots
//! of the fork-join calls it makes count their taken pieces into that call
//! ([`taken_counter`]; `forkjoin/node.rs`), and a call nested in it is not traced again.
//!
//! **Invariant:** the thread's current call is set only for the length of a traced poll, and
//! put back as it was when the poll returns or unwinds.

use std::cell::RefCell;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;

use super::resource::Resource;

/// A traced call's count of pieces taken from the board.
pub(crate) type Taken = Arc<AtomicUsize>;

thread_local! {
    /// The count of the traced call this thread runs inside, if any.
    static INSIDE: RefCell<Option<Taken>> = const { RefCell::new(None) };
}

/// A parallel call as a resource and async op (module docs).
pub(crate) struct ParCall {
    resource: Resource,
    /// The count of pieces taken; `None` when nobody traces the call (nothing allocated).
    taken: Option<Taken>,
}

impl ParCall {
    /// The call `source`, made at `at` where known.
    pub(crate) fn new(source: &'static str, at: Option<&'static Location<'static>>) -> ParCall {
        let resource = Resource::new("ParallelCall", "parallel", source, at);
        let taken = resource.is_traced().then(|| Arc::new(AtomicUsize::new(0)));
        ParCall { resource, taken }
    }

    /// Runs `poll`, one poll of the call, inside it (module docs), and reports it with the
    /// call's pieces taken so far.
    pub(crate) fn poll<T>(&self, poll: impl FnOnce() -> Poll<T>) -> Poll<T> {
        let Some(taken) = &self.taken else {
            return poll();
        };
        let polled = {
            let _inside = Inside::enter(Arc::clone(taken));
            self.resource.poll_op("poll_call", poll)
        };
        // Relaxed: a count for display; the pieces it counts were claimed before the
        // call's threads reported back to this one (which orders them).
        self.resource
            .set_pieces_taken(taken.load(Ordering::Relaxed) as u64);
        polled
    }
}

/// Sets the thread's current call, and puts the previous one back when dropped.
struct Inside(Option<Taken>);

impl Inside {
    fn enter(taken: Taken) -> Inside {
        Inside(INSIDE.with(|inside| inside.replace(Some(taken))))
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        let previous = self.0.take();
        INSIDE.with(|inside| *inside.borrow_mut() = previous);
    }
}

/// Whether this thread runs inside a traced call.
fn inside() -> bool {
    INSIDE.with(|inside| inside.borrow().is_some())
}

/// The count a fork-join root made now on this thread adds its taken pieces to: the traced
/// call this thread runs inside, if any.
pub(crate) fn taken_counter() -> Option<Taken> {
    INSIDE.with(|inside| inside.borrow().clone())
}

/// Runs `call`, a synchronous parallel call named `source` made at `at`, as a traced call
/// for its length, unless this thread already runs inside one (or nobody traces).
pub(crate) fn around<R>(
    source: &'static str,
    at: Option<&'static Location<'static>>,
    call: impl FnOnce() -> R,
) -> R {
    if inside() {
        return call();
    }
    let traced = ParCall::new(source, at);
    if traced.taken.is_none() {
        return call();
    }
    match traced.poll(|| Poll::Ready(call())) {
        Poll::Ready(value) => value,
        Poll::Pending => unreachable!("the poll above is always ready"),
    }
}
