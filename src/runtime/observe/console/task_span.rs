//! A task's `runtime.spawn` span, which console-subscriber reads as the task (its fields:
//! `kind`, `task.name`, `task.id`, `loc.file`, `loc.line`, `loc.col`, as tokio's).
//!
//! The span is entered around each poll of the task's future (console-subscriber times a
//! poll from the enter to the exit), and the future is polled with the traced waker of
//! `waker.rs`, so that the task's wakers report to the span. It has no parent: a task is not
//! part of the span that spawned it.
//!
//! The spans live in a table beside the tasks, keyed by task id ([`SPANS`]), not in the
//! tasks: a task traced by a subscriber has a flag bit set in its `TaskFuture`
//! (`runtime/task/future.rs`), and a task of a program that nobody traces grows by nothing
//! (so tiny tasks keep glibc's fastbin size, `runtime/task/cold_tail.rs`). A traced poll
//! takes a handle to its span from the table (a lock of one shard) and polls without the
//! lock.
//!
//! **Invariant:** a task's span is in the table from its spawn ([`register`]) until its
//! future is dropped ([`close`], after the future's own destructor ran, which may drop
//! wakers that report); the console then reports the task dropped.

use std::collections::HashMap;
use std::panic::Location;
use std::sync::{Mutex, PoisonError};
use std::task::Context;

use tracing::Span;

use super::waker;

/// What a task is, in tokio's words: `task` (spawned onto the workers), `local` (pinned to
/// one worker), `blocking` (on the blocking pool), `block_on` (a `block_on`'s future).
pub(crate) type TaskKind = &'static str;

/// The shards of the table of traced tasks' spans.
const SHARDS: usize = 64;

/// The spans of the traced tasks, by task id (module docs).
static SPANS: [Mutex<Option<HashMap<u64, Span>>>; SHARDS] = [const { Mutex::new(None) }; SHARDS];

fn shard(id: u64) -> &'static Mutex<Option<HashMap<u64, Span>>> {
    &SPANS[(id % SHARDS as u64) as usize]
}

/// Makes the span of task `id`, spawned at `at`; whether a subscriber traces it (then it is
/// in the table until [`close`]).
pub(crate) fn register(
    kind: TaskKind,
    name: Option<&str>,
    id: u64,
    at: &'static Location<'static>,
) -> bool {
    let span = new_span(kind, name, id, at);
    if span.is_disabled() {
        return false;
    }
    shard(id)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(id, span);
    true
}

fn new_span(kind: TaskKind, name: Option<&str>, id: u64, at: &'static Location<'static>) -> Span {
    let name = name.unwrap_or_default();
    tracing::trace_span!(
        target: "runtime::task",
        parent: None,
        "runtime.spawn",
        kind = %kind,
        task.name = %name,
        task.id = id,
        loc.file = at.file(),
        loc.line = at.line(),
        loc.col = at.column(),
    )
}

/// Runs `poll`, a poll of traced task `id`, inside its span, with a context whose waker
/// reports to it.
pub(crate) fn poll<T>(
    id: u64,
    cx: &mut Context<'_>,
    poll: impl FnOnce(&mut Context<'_>) -> T,
) -> T {
    let span = shard(id)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|spans| spans.get(&id).cloned());
    poll_in(span.as_ref(), cx, poll)
}

/// Runs `poll` inside `span` (if any, and enabled) with a context whose waker reports to it.
fn poll_in<T>(
    span: Option<&Span>,
    cx: &mut Context<'_>,
    poll: impl FnOnce(&mut Context<'_>) -> T,
) -> T {
    match span.and_then(|span| Some((span, span.id()?))) {
        None => poll(cx),
        Some((span, id)) => {
            let _entered = span.enter();
            waker::traced(cx, id.into_u64(), poll)
        }
    }
}

/// Closes traced task `id`'s span: the console reports the task dropped.
pub(crate) fn close(id: u64) {
    let span = shard(id)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
        .and_then(|spans| spans.remove(&id));
    // Dropped outside the lock: closing a span calls into the subscriber.
    drop(span);
}

/// A `block_on`'s future as a task of kind `block_on`, traced as a spawned task is (its
/// span in the future, which no allocation holds).
pub(crate) struct BlockOn<F> {
    future: F,
    span: Span,
}

impl<F: std::future::Future> BlockOn<F> {
    /// `future`, run by a `block_on` called at `at`.
    pub(crate) fn new(future: F, at: &'static Location<'static>) -> BlockOn<F> {
        let id = crate::runtime::task::id::Id::next().as_u64();
        BlockOn {
            future,
            span: new_span("block_on", None, id, at),
        }
    }
}

impl<F: std::future::Future> std::future::Future for BlockOn<F> {
    type Output = F::Output;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> std::task::Poll<F::Output> {
        // SAFETY: `future` is structurally pinned: it is never moved out of `self`, and
        // `BlockOn` has no `Drop` of its own nor an `Unpin` impl that would let it move.
        let this = unsafe { self.get_unchecked_mut() };
        // SAFETY: as above.
        let future = unsafe { std::pin::Pin::new_unchecked(&mut this.future) };
        poll_in(Some(&this.span), cx, |cx| future.poll(cx))
    }
}
