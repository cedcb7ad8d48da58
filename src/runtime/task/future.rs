//! [`TaskFuture`], the future async-task polls: the user's future plus panic capture, the
//! abort check, the live-task registry's bookkeeping and the dump's stamps (the list is in
//! the module docs of `runtime/task/mod.rs`).
//!
//! Invariants: the user's future is dropped exactly once, in place, inside a panic guard
//! (the [`LIVE`] flag); a task is in the live-task registry from its first `Pending` (or its
//! spawn) until its future is dropped; an abort either sees the task's registry key and
//! wakes it, or the registering poll sees the abort flag (`TaskFuture::register`).

use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::runtime::observe::coarse_clock::coarse_now;
use crate::runtime::observe::poll_watch::PollWatch;
use crate::runtime::observe::record::TaskRecord;
use crate::runtime::task::id::CurrentId;
use crate::runtime::task::live_tasks::Key;
use crate::runtime::task::{JoinError, Payload, TaskHome, TaskMeta, TaskOutput};
use crate::util::sync::{fence, Ordering};
use crate::util::wake_all::drop_quietly;

/// The future async-task runs: the user's future plus panic capture, abort and registry
/// bookkeeping (module docs).
pub(crate) struct TaskFuture<F, H: TaskHome> {
    /// Dropped by `drop_future`, never moved: structurally pinned.
    future: ManuallyDrop<F>,
    /// The task's metadata (a `&'static TaskMeta<H>`, see [`TaskFuture::new`]), with two
    /// flags in the low bits its alignment leaves free: [`LIVE`] (the future is still
    /// there, not yet dropped) and [`REGISTERED`] (the task is in the live-task registry).
    /// Two `bool` fields would cost a tiny task a word, and with it glibc's fastbin-sized
    /// allocation (`cold_tail.rs`).
    meta: *const TaskMeta<H>,
}

// SAFETY: `meta` stands for a `&'static TaskMeta<H>` (see the field), which is `Send` when
// the metadata is `Sync`; the flags are plain bits of the address.
unsafe impl<F: Send, H: TaskHome> Send for TaskFuture<F, H> where TaskMeta<H>: Sync {}
// SAFETY: as for `Send`: a shared `TaskFuture` gives out only `&'static TaskMeta<H>`.
unsafe impl<F: Sync, H: TaskHome> Sync for TaskFuture<F, H> where TaskMeta<H>: Sync {}

/// [`TaskFuture::meta`]'s flag: the user's future is still there.
const LIVE: usize = 1;
/// [`TaskFuture::meta`]'s flag: the task is registered in the live-task registry.
const REGISTERED: usize = 2;
/// [`TaskFuture::meta`]'s flag (feature `console`): the task has a span for tokio-console
/// (`runtime/observe/console/task_span.rs`).
const TRACED: usize = 4;

impl<F, H: TaskHome> TaskFuture<F, H> {
    /// Wraps `future`. `meta` is the task's own metadata, which async-task keeps until
    /// after the future is dropped (see the SAFETY comment at the spawn).
    pub(crate) fn new(future: F, meta: &'static TaskMeta<H>) -> TaskFuture<F, H> {
        const { assert!(std::mem::align_of::<TaskMeta<H>>() > (LIVE | REGISTERED | TRACED)) };
        TaskFuture {
            future: ManuallyDrop::new(future),
            meta: std::ptr::from_ref(meta).map_addr(|a| a | LIVE),
        }
    }

    /// The task made known to tokio-console as a task of kind `kind`, named `name`, spawned
    /// at `at` (`runtime/observe/console/task_span.rs`): if a subscriber traces it, the
    /// [`TRACED`] flag is set.
    #[cfg(feature = "console")]
    pub(crate) fn traced(
        mut self,
        kind: &'static str,
        name: Option<&str>,
        at: &'static std::panic::Location<'static>,
    ) -> TaskFuture<F, H> {
        let id = self.meta().id.as_u64();
        let traced = crate::runtime::observe::console::task_span::register(kind, name, id, at);
        self.set_flag(TRACED, traced);
        self
    }

    /// The task's metadata.
    #[inline]
    fn meta(&self) -> &'static TaskMeta<H> {
        // SAFETY: `meta` is the `&'static TaskMeta<H>` given to `new`, with flags in bits
        // its alignment keeps clear (checked in `new`); clearing them gives it back.
        unsafe { &*self.meta.map_addr(|a| a & !(LIVE | REGISTERED | TRACED)) }
    }

    /// Whether `flag` ([`LIVE`] or [`REGISTERED`]) is set.
    #[inline]
    fn flag(&self, flag: usize) -> bool {
        self.meta.addr() & flag != 0
    }

    /// Sets or clears `flag`.
    #[inline]
    fn set_flag(&mut self, flag: usize, on: bool) {
        self.meta = self
            .meta
            .map_addr(|a| if on { a | flag } else { a & !flag });
    }

    /// Drops the user's future if it is still there, catching its destructor's panic, with
    /// the task's id as the current one.
    fn drop_future(&mut self) -> Option<Payload> {
        if !self.flag(LIVE) {
            return None;
        }
        let _id = CurrentId::enter(self.meta().id.as_u64());
        self.drop_future_as_current()
    }

    /// [`drop_future`](Self::drop_future) inside a poll, where the task's id is the current
    /// one already.
    fn drop_future_as_current(&mut self) -> Option<Payload> {
        if !self.flag(LIVE) {
            return None;
        }
        self.set_flag(LIVE, false);
        let meta = self.meta();
        let future = &mut self.future;
        // SAFETY: `LIVE` was set and is clear from now on, so the future is dropped exactly
        // once, in place (it is pinned), and never used again.
        let panic = catch_unwind(AssertUnwindSafe(|| unsafe { ManuallyDrop::drop(future) })).err();
        // After the future's destructor, whose wakers' drops report to the span.
        #[cfg(feature = "console")]
        if self.flag(TRACED) {
            self.set_flag(TRACED, false);
            crate::runtime::observe::console::task_span::close(meta.id.as_u64());
        }
        meta.abort_slot.finish();
        panic
    }
}

impl<F, H: TaskHome> Drop for TaskFuture<F, H> {
    fn drop(&mut self) {
        // Dropped without completing (shutdown dropped the runnable): keep a destructor's
        // panic for the JoinHandle.
        let meta = self.meta();
        if let Some(payload) = self.drop_future() {
            meta.keep_drop_panic(payload);
        }
        if let Some(record) = meta.record() {
            // Relaxed: this thread wrote the key, or received the task from the thread that
            // did through a queue (which orders the two).
            let key = Key::from_bits(record.key.swap(Key::NONE.to_bits(), Ordering::Relaxed));
            meta.home().live_tasks().remove(key);
        }
    }
}

impl<F: Future, H: TaskHome> Future for TaskFuture<F, H> {
    type Output = TaskOutput<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: `future` is never moved out of `self`: it is polled through the pinned
        // reference below and dropped in place by `drop_future`.
        let this = unsafe { self.get_unchecked_mut() };
        assert!(this.flag(LIVE), "filch: a task polled after it completed");
        let meta = this.meta();
        let id = meta.id;
        if meta.is_aborted() {
            // A panic of the future's destructor is the task's outcome; else cancelled.
            let error = this.drop_future().map_or_else(
                || JoinError::cancelled(id),
                |panic| JoinError::panic(panic, id),
            );
            meta.home().task_completed();
            return Poll::Ready(TaskOutput::new(Err(error), id));
        }
        let _id = CurrentId::enter(id.as_u64());
        // The dump's stamps (`record.rs`): a clock load, and for a task with a record (one
        // that waited before) three stores; the slow-poll watch only with a threshold.
        let record = meta.record();
        let started = coarse_now();
        if let Some(record) = record {
            record.poll_started(started);
        }
        let watch = match meta.home().poll_watch() {
            Some(watch) => watch_begin(watch, meta),
            None => None,
        };
        // Under a paused clock, tokio's timers are off for the poll, and their panic says so
        // in filch's words (`runtime/tokio_context/timers_off.rs`).
        #[cfg(all(feature = "test-util", feature = "tokio-context"))]
        let scope = crate::runtime::tokio_context::timers_off::TimersOffPoll::begin(
            meta.home().clock_paused(),
        );
        #[cfg(feature = "console")]
        let traced = this.flag(TRACED);
        // SAFETY: `future` is pinned along with `self` (see above) and still live.
        let future = unsafe { Pin::new_unchecked(&mut *this.future) };
        #[cfg(not(feature = "console"))]
        let polled = catch_unwind(AssertUnwindSafe(|| future.poll(cx)));
        // Inside the task's span, with a waker that reports to it.
        #[cfg(feature = "console")]
        let polled = if traced {
            crate::runtime::observe::console::task_span::poll(id.as_u64(), cx, |cx| {
                catch_unwind(AssertUnwindSafe(|| future.poll(cx)))
            })
        } else {
            catch_unwind(AssertUnwindSafe(|| future.poll(cx)))
        };
        #[cfg(all(feature = "test-util", feature = "tokio-context"))]
        let polled = {
            let polled = polled.map_err(|payload| scope.explain(payload));
            drop(scope);
            polled
        };
        if let Some(record) = record {
            record.poll_ended(started, coarse_now());
        }
        if let Some(poll) = watch {
            watch_end(poll, meta, record);
        }
        let result = match polled {
            Ok(Poll::Pending) => {
                if !this.flag(REGISTERED) {
                    this.register(cx, started);
                }
                return Poll::Pending;
            }
            Ok(Poll::Ready(output)) => match this.drop_future_as_current() {
                None => Ok(output),
                Some(panic) => {
                    drop_quietly(output);
                    Err(JoinError::panic(panic, id))
                }
            },
            Err(payload) => {
                // The poll's panic wins; a second one from the destructor is dropped.
                if let Some(second) = this.drop_future_as_current() {
                    drop_quietly(second);
                }
                Err(JoinError::panic(payload, id))
            }
        };
        meta.home().task_completed();
        Poll::Ready(TaskOutput::new(result, id))
    }
}

/// The slow-poll watch's start of a poll (`runtime/observe/poll_watch.rs`): only a poll on a worker is
/// watched. Out of line: the common poll has no threshold.
#[inline(never)]
fn watch_begin<H: TaskHome>(
    watch: &PollWatch,
    meta: &TaskMeta<H>,
) -> Option<crate::runtime::observe::poll_watch::InFlight> {
    watch.begin(meta.last_worker()?, meta.id, meta.spawned_at)
}

/// The slow-poll watch's end of a poll that [`watch_begin`] saw start.
#[inline(never)]
fn watch_end<H: TaskHome>(
    poll: crate::runtime::observe::poll_watch::InFlight,
    meta: &TaskMeta<H>,
    record: Option<&TaskRecord>,
) {
    if let Some(watch) = meta.home().poll_watch() {
        let name = || record.and_then(|r| r.name.as_deref().map(str::to_owned));
        watch.end(poll, meta.id, name, meta.spawned_at);
    }
}

impl<F, H: TaskHome> TaskFuture<F, H> {
    /// The task's first wait for a wake-up: from now on only the registry can reach it, at
    /// shutdown or for an abort. (A task that completes in its first poll never pays for the
    /// registry.) `cx.waker()` is the task's own waker.
    /// `started` is the coarse start of this (the first waiting) poll, for the record.
    /// A task that finds the registry closed stays unregistered: it wakes itself, and if a
    /// worker still polls it once more (it took the task before it saw the shutdown), that
    /// poll comes here again and wakes it again, until the schedule function drops it.
    fn register(&mut self, cx: &mut Context<'_>, started: u64) {
        let meta = self.meta();
        let home = meta.home();
        let record = match meta.record() {
            // Relaxed: this thread wrote the key, or received the task from the thread that
            // did through a queue (which orders the two).
            Some(record) if Key::from_bits(record.key.load(Ordering::Relaxed)) != Key::NONE => {
                // Registered at its spawn (`TaskMeta::register_at_spawn`).
                self.set_flag(REGISTERED, true);
                return;
            }
            // Made by an earlier try that found the registry closed, or at the spawn.
            Some(record) => record,
            // One poll (this one), after one schedule call (the spawn's).
            None => meta.install_record(TaskRecord::new(None, false, 1, 1, Some(started))),
        };
        match home
            .live_tasks()
            .register(home.registry_shard(), meta.tag(), cx.waker().clone())
        {
            Some(key) => {
                self.set_flag(REGISTERED, true);
                // SeqCst store, then SeqCst load: pairs with `abort`'s store of the flag and
                // load of the key. Either `abort` sees the key and wakes us through the
                // registry, or we see the flag here.
                record.key.store(key.to_bits(), Ordering::SeqCst);
                // An abort handle made before now found no key: give its cell our waker,
                // then re-check its flag. The fence pairs with the one after the cell's
                // install in `AbortSlot::handle` (`abort.rs`).
                fence(Ordering::SeqCst);
                let aborted_by_handle = meta
                    .abort_slot
                    .with_cell(|cell| {
                        cell.deposit(cx.waker());
                        cell.is_aborted()
                    })
                    .unwrap_or(false);
                if meta.aborted.load(Ordering::SeqCst) || aborted_by_handle {
                    cx.waker().wake_by_ref();
                }
            }
            // The registry is closed: the executor is shutting down. Schedule the task,
            // which drops it.
            None => cx.waker().wake_by_ref(),
        }
    }
}
