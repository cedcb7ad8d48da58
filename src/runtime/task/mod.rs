//! What a task is, independent of the executor that runs it: its metadata ([`TaskMeta`]),
//! the future async-task polls ([`TaskFuture`]), the output it stores ([`TaskOutput`]) and
//! the [`JoinError`] a failed task gives.
//!
//! Generic over the task's *home* (`H`, the executor's state, [`TaskHome`]) so that this
//! module sits below the state that holds the queues of these tasks.
//!
//! [`TaskFuture`] wraps the user's future and
//! - catches a panic of its `poll` and turns it into a panic [`JoinError`], so the worker
//!   thread survives;
//! - drops the user's future itself, inside a panic guard, as soon as it is done with it
//!   (after `Ready`, after a panic, on abort): async-task would drop it inside its
//!   abort-on-panic guard, so a panicking destructor would end the process. A panic from that
//!   drop becomes the task's panic [`JoinError`]. When the future is dropped without a poll
//!   (shutdown drops the runnable), the panic is kept in the metadata for the `JoinHandle`;
//! - checks the abort flag before every poll, so an aborted task drops its future and
//!   completes with a cancelled error (the `JoinHandle` sees it only after the destructors
//!   ran);
//! - registers the task in the live-task registry the first time it returns `Pending` (a
//!   task that waits for a wake-up sits in no queue, so only the registry can reach it at
//!   shutdown or for an abort), and removes it when it is dropped;
//! - with `test-util` and `tokio-context`, makes each poll a scope in which tokio's timers
//!   are off while the executor's clock is paused (`runtime/tokio_context/paused.rs`).
//!
//! [`TaskOutput`] likewise drops an output that nobody takes (a detached task's) inside a
//! panic guard.
//!
//! For the task dump and slow-poll reports (`runtime/observe/record.rs`, `runtime/observe/poll_watch.rs`) each task has
//! an id and a spawn location in its metadata, and, once it waits (or from its spawn, for
//! tasks registered at once), a [`TaskRecord`] the polls stamp. The id is the thread's
//! current task id around each poll and while filch drops the task's future or output.

pub(crate) mod abort;
pub(crate) mod cold_tail;
pub(crate) mod id;
pub(crate) mod live_tasks;
#[cfg(all(test, loom))]
mod loom_model;
pub(crate) mod task_count;
pub(crate) mod yield_now;

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::runtime::observe::coarse_clock::coarse_now;
use crate::runtime::observe::poll_watch::PollWatch;
use crate::runtime::observe::record::{SpawnedAt, TaskRecord};
use crate::runtime::task::abort::{AbortCell, AbortHandle, AbortSlot};
use crate::runtime::task::id::CurrentId;
use crate::runtime::task::id::Id;
use crate::runtime::task::live_tasks::{Key, LiveTasks};
use crate::runtime::task::task_count::{Counted, CountedRef};
use crate::util::sync::{fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU8, Mutex, Ordering};
use crate::util::wake_all::drop_quietly;

/// A panic's payload.
pub(crate) type Payload = Box<dyn Any + Send + 'static>;

/// `TaskMeta::last_worker` of a task that has not run yet.
const NO_WORKER: u32 = u32::MAX;

/// A hint of [`TaskMeta`]: the task is a generator's request, spawned by a poll of its
/// spawner after the first that spawned anything (an accept loop's connection, an HTTP/2
/// connection's stream). Set once, at the spawn.
pub(crate) const GENERATED: u8 = 1;
/// A hint of [`TaskMeta`]: the task has spawned a task in one of its polls. Set by the first
/// spawn of its first poll that spawns.
pub(crate) const SPAWNED: u8 = 2;
/// A hint of [`TaskMeta`]: the task has yielded (`yield_now`, a spent budget) in one of its
/// polls, as every task an earlier driver turn released from a deferred list has. Set when
/// the task goes to its worker's deferred list.
pub(crate) const YIELDED: u8 = 4;

/// What a task needs from its executor's state.
pub(crate) trait TaskHome: Counted + Send + Sync + 'static {
    /// The live-task registry.
    fn live_tasks(&self) -> &LiveTasks;
    /// The registry shard for a task registered by the current thread.
    fn registry_shard(&self) -> usize;
    /// Keeps the panic of the future of task `tag` (dropped outside a poll) until its
    /// `JoinHandle` or its end takes it. Rare (a destructor panicking at shutdown), so it
    /// lives in a table of the executor rather than in every task.
    fn keep_drop_panic(&self, tag: usize, payload: Payload);
    /// Takes what [`TaskHome::keep_drop_panic`] kept for task `tag`.
    fn take_drop_panic(&self, tag: usize) -> Option<Payload>;
    /// Called by the poll that completes a task, on the thread that polled it.
    fn task_completed(&self);
    /// The executor's slow-poll watch, if it has a threshold.
    fn poll_watch(&self) -> Option<&PollWatch>;
    /// Whether the executor's clock is paused now (its polls then enter the context of a
    /// tokio runtime without timers: `runtime/tokio_context/paused.rs`).
    #[cfg(all(feature = "test-util", feature = "tokio-context"))]
    fn clock_paused(&self) -> bool;
}

/// Per-task data that both the runnable and the join handle reach.
pub(crate) struct TaskMeta<H: TaskHome> {
    /// The executor the task belongs to, kept alive by the task count.
    home: CountedRef<H>,
    /// The task's dump record (`runtime/observe/record.rs`), null until the task registers in the
    /// live-task registry; it holds the registry key (`Key::to_bits`, or `Key::NONE`),
    /// written by the registering poll and by the future's drop, read by `abort`. Set once,
    /// from `Box::into_raw`, freed with the metadata.
    record: AtomicPtr<TaskRecord>,
    /// The task's id.
    id: Id,
    /// Where the task was spawned.
    spawned_at: SpawnedAt,
    /// The link to the task's abort handles, if it has any (`abort.rs`).
    abort_slot: AbortSlot,
    /// The index of the worker that polled the task last, or [`NO_WORKER`]. A placement
    /// hint only: written Relaxed by the polling worker, read Relaxed by the scheduler.
    last_worker: AtomicU32,
    /// Set by an abort and read before every poll (see `abort` for the orderings).
    aborted: AtomicBool,
    /// Placement hints ([`GENERATED`], [`SPAWNED`], [`YIELDED`]), read and written Relaxed:
    /// each is written by the one thread that spawns, polls or queues the task at that
    /// moment, and a queue's push and pop order it before the next reader; a stale bit
    /// only places a task less well (`runtime/scheduler/worker/schedule.rs`).
    hints: AtomicU8,
    /// Set while the executor keeps a panic of this task's future's destructor for the
    /// `JoinHandle` ([`TaskHome::keep_drop_panic`]). Written and read by the thread that
    /// drops the future, the `JoinHandle` after async-task told it the task closed, and the
    /// metadata's drop: each ordered after the last by async-task's own synchronisation.
    has_drop_panic: AtomicBool,
}

impl<H: TaskHome> TaskMeta<H> {
    /// The metadata of a new task of `home`; counts the task as alive.
    #[inline]
    pub(crate) fn new(home: &Arc<H>, spawned_at: SpawnedAt) -> TaskMeta<H> {
        TaskMeta {
            home: CountedRef::new(home),
            record: AtomicPtr::new(std::ptr::null_mut()),
            id: Id::next(),
            spawned_at,
            abort_slot: AbortSlot::new(),
            last_worker: AtomicU32::new(NO_WORKER),
            aborted: AtomicBool::new(false),
            hints: AtomicU8::new(0),
            has_drop_panic: AtomicBool::new(false),
        }
    }

    /// The worker that polled the task last, if any (a placement hint).
    pub(crate) fn last_worker(&self) -> Option<usize> {
        // Relaxed: a hint; a stale value only places the task less well.
        match self.last_worker.load(Ordering::Relaxed) {
            NO_WORKER => None,
            // Lossless: worker indices fit in 32 bits (`set_last_worker`).
            index => Some(index as usize),
        }
    }

    /// Records that worker `index` polls the task.
    pub(crate) fn set_last_worker(&self, index: usize) {
        // The notifier caps an executor at fewer than 2^32 workers (`park/`), so the index
        // fits; a larger one would only lose the hint.
        let index = u32::try_from(index).unwrap_or(NO_WORKER);
        // Relaxed: a hint (see `last_worker`).
        self.last_worker.store(index, Ordering::Relaxed);
    }

    /// Whether hint `bit` ([`GENERATED`], [`SPAWNED`] or [`YIELDED`]) is set.
    #[inline]
    pub(crate) fn hint(&self, bit: u8) -> bool {
        // Relaxed: a hint (see the field).
        self.hints.load(Ordering::Relaxed) & bit != 0
    }

    /// Sets or clears hint `bit`. A load, then a store only if it changes: only the thread
    /// that owns the task at that moment writes (see the field), so no read-modify-write.
    #[inline]
    pub(crate) fn set_hint(&self, bit: u8, on: bool) {
        // Relaxed: a hint (see the field).
        let hints = self.hints.load(Ordering::Relaxed);
        let new = if on { hints | bit } else { hints & !bit };
        if new != hints {
            self.hints.store(new, Ordering::Relaxed);
        }
    }

    /// The task's id.
    pub(crate) fn id(&self) -> Id {
        self.id
    }

    /// Where the task was spawned.
    pub(crate) fn spawned_at(&self) -> SpawnedAt {
        self.spawned_at
    }

    /// The task's dump record, if it has one yet. Acquire: pairs with the SeqCst store that
    /// installs it (in `install_record`), so the record's fields are initialised.
    pub(crate) fn record(&self) -> Option<&TaskRecord> {
        let raw = self.record.load(Ordering::Acquire);
        // SAFETY: a non-null pointer came from `Box::into_raw` in `install_record` and is
        // freed only by the metadata's drop, which `&self` rules out.
        unsafe { raw.as_ref() }
    }

    /// The registry key in the record, or `Key::NONE`.
    fn key(&self, order: Ordering) -> Key {
        let raw = self.record.load(order);
        // SAFETY: as in `record`.
        match unsafe { raw.as_ref() } {
            Some(record) => Key::from_bits(record.key.load(order)),
            None => Key::NONE,
        }
    }

    /// Installs `record` (the task had none: only its first registration installs one).
    fn install_record(&self, record: TaskRecord) -> &TaskRecord {
        let raw = Box::into_raw(Box::new(record));
        // SeqCst: pairs with `abort`'s loads (see `TaskFuture::register`) and with `record`'s
        // Acquire.
        self.record.store(raw, Ordering::SeqCst);
        // SAFETY: just made from a live box, freed only with the metadata.
        unsafe { &*raw }
    }

    /// Registers the task in the live-task registry at its spawn (a task made by
    /// `task::Builder` or a blocking job, which the dump lists from the start), with a
    /// record named `name`. `waker` is the task's own. Before the task is first scheduled.
    pub(crate) fn register_at_spawn(
        &self,
        waker: std::task::Waker,
        name: Option<Box<str>>,
        blocking: bool,
    ) {
        let home = self.home();
        let record = self.install_record(TaskRecord::new(name, blocking, 0, 0, None));
        if let Some(key) = home
            .live_tasks()
            .register(home.registry_shard(), self.tag(), waker)
        {
            // SeqCst: as the registering poll's store (see `TaskFuture::register`); no abort
            // handle exists yet, and the `JoinHandle` is not out, so no abort can race.
            record.key.store(key.to_bits(), Ordering::SeqCst);
        }
    }

    /// The task's executor.
    pub(crate) fn home(&self) -> &H {
        self.home.get()
    }

    /// An `Arc` of the task's executor, for a caller that may drop the task (and so, perhaps,
    /// the last thing keeping the executor's state) while it uses the state.
    pub(crate) fn home_arc(&self) -> Arc<H> {
        self.home.to_arc()
    }

    /// Whether the task was aborted, through its `JoinHandle` or an `AbortHandle`. Acquire:
    /// pairs with the SeqCst store in `abort` (and the cell's, see `abort.rs`).
    pub(crate) fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Acquire)
            || self
                .abort_slot
                .with_cell(AbortCell::is_aborted)
                .unwrap_or(false)
    }

    /// An abort handle for the task; the caller keeps the task alive (a `JoinHandle`).
    pub(crate) fn abort_handle(&self) -> AbortHandle {
        self.abort_slot.handle(self.id, || {
            // Relaxed: after the fence in `AbortSlot::handle`, which pairs with the one after
            // the task's key store in `TaskFuture::register` (`abort.rs`).
            let key = self.key(Ordering::Relaxed);
            self.home().live_tasks().waker(key, self.tag())
        })
    }

    /// The tag of this task in the registry: its metadata's address, unique among live
    /// tasks (`live_tasks.rs`).
    pub(crate) fn tag(&self) -> usize {
        self as *const Self as usize
    }

    /// Cancels the task: it drops its future at its next poll, and a task that waits for a
    /// wake-up is woken for that.
    pub(crate) fn abort(&self) {
        // SeqCst store, then SeqCst load: pairs with the registering poll in
        // `TaskFuture::poll` (its store of the key and load of the flag). The flag is also
        // read (Acquire) before every poll, so a task that is queued or running sees it at
        // its next poll without being woken.
        self.aborted.store(true, Ordering::SeqCst);
        let key = self.key(Ordering::SeqCst);
        if key != Key::NONE {
            // Registered: it may be waiting for a wake-up that never comes.
            self.home().live_tasks().wake(key, self.tag());
        }
    }

    /// Takes the panic of a future dropped outside a poll, if there was one.
    pub(crate) fn take_drop_panic(&self) -> Option<Payload> {
        // Relaxed: see the field. A load, then a store only if set: the callers never race
        // (see the field), and every task's end calls this, where a swap would be a locked
        // read-modify-write for a flag that is almost never set.
        if !self.has_drop_panic.load(Ordering::Relaxed) {
            return None;
        }
        self.has_drop_panic.store(false, Ordering::Relaxed);
        self.home().take_drop_panic(self.tag())
    }

    fn keep_drop_panic(&self, payload: Payload) {
        self.home().keep_drop_panic(self.tag(), payload);
        // Relaxed: see the field.
        self.has_drop_panic.store(true, Ordering::Relaxed);
    }
}

impl<H: TaskHome> Drop for TaskMeta<H> {
    fn drop(&mut self) {
        // A payload that no JoinHandle took: out of the executor's table (the tag may be
        // reused once this metadata is gone), dropped quietly (it may panic too).
        if let Some(payload) = self.take_drop_panic() {
            drop_quietly(payload);
        }
        // Relaxed: `&mut self` is exclusive; the install happened before (async-task orders
        // every use of the task before its drop).
        let raw = self.record.load(Ordering::Relaxed);
        if !raw.is_null() {
            // SAFETY: from `Box::into_raw` in `install_record`, freed only here.
            drop(unsafe { Box::from_raw(raw) });
        }
    }
}

/// The output a task stores: its result, dropped inside a panic guard if nobody takes it
/// (with the task's id as the current one).
pub(crate) struct TaskOutput<T> {
    /// Dropped by `Drop` unless `into_result` moved it out (which forgets the wrapper).
    result: ManuallyDrop<Result<T, JoinError>>,
    id: Id,
}

impl<T> TaskOutput<T> {
    fn new(result: Result<T, JoinError>, id: Id) -> TaskOutput<T> {
        TaskOutput {
            result: ManuallyDrop::new(result),
            id,
        }
    }

    /// The result (the `JoinHandle` takes it exactly once: this consumes the output).
    pub(crate) fn into_result(self) -> Result<T, JoinError> {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped (ManuallyDrop), so the result is moved out once
        // and not dropped again.
        unsafe { ManuallyDrop::take(&mut this.result) }
    }
}

impl<T> Drop for TaskOutput<T> {
    #[inline]
    fn drop(&mut self) {
        // A result without a destructor to run (a detached `()` task's): nothing to see the
        // id, nothing to drop.
        if !std::mem::needs_drop::<T>() && self.result.is_ok() {
            return;
        }
        // SAFETY: `drop` runs once, and `into_result` (the only other taker) forgets the
        // wrapper: the result is taken exactly once.
        let result = unsafe { ManuallyDrop::take(&mut self.result) };
        let _id = CurrentId::enter(self.id.as_u64());
        drop_quietly(result);
    }
}

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

impl<F, H: TaskHome> TaskFuture<F, H> {
    /// Wraps `future`. `meta` is the task's own metadata, which async-task keeps until
    /// after the future is dropped (see the SAFETY comment at the spawn).
    pub(crate) fn new(future: F, meta: &'static TaskMeta<H>) -> TaskFuture<F, H> {
        const { assert!(std::mem::align_of::<TaskMeta<H>>() > (LIVE | REGISTERED)) };
        TaskFuture {
            future: ManuallyDrop::new(future),
            meta: std::ptr::from_ref(meta).map_addr(|a| a | LIVE),
        }
    }

    /// The task's metadata.
    #[inline]
    fn meta(&self) -> &'static TaskMeta<H> {
        // SAFETY: `meta` is the `&'static TaskMeta<H>` given to `new`, with flags in bits
        // its alignment keeps clear (checked in `new`); clearing them gives it back.
        unsafe { &*self.meta.map_addr(|a| a & !(LIVE | REGISTERED)) }
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
        // The dump's stamps (`runtime/observe/record.rs`): a clock load, and for a task with a record (one
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
        // in filch's words (`runtime/tokio_context/paused.rs`).
        #[cfg(all(feature = "test-util", feature = "tokio-context"))]
        let scope = crate::runtime::tokio_context::paused::Scope::begin(meta.home().clock_paused());
        // SAFETY: `future` is pinned along with `self` (see above) and still live.
        let future = unsafe { Pin::new_unchecked(&mut *this.future) };
        let polled = catch_unwind(AssertUnwindSafe(|| future.poll(cx)));
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

/// Why a task gave no output: it was cancelled, or it panicked.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let err = ex.block_on(ex.spawn(async { panic!("boom") })).unwrap_err();
/// assert!(err.is_panic());
/// assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");
/// ```
pub struct JoinError {
    repr: Repr,
    id: Id,
}

enum Repr {
    Cancelled,
    /// The payload behind a mutex only so that `JoinError` is `Sync` as well as `Send`;
    /// boxed, so that a task's stored result stays two words (a panic is rare).
    Panic(Box<Mutex<Payload>>),
}

impl JoinError {
    pub(crate) fn cancelled(id: Id) -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
            id,
        }
    }

    pub(crate) fn panic(payload: Payload, id: Id) -> JoinError {
        JoinError {
            repr: Repr::Panic(Box::new(Mutex::new(payload))),
            id,
        }
    }

    /// The id of the task that failed.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let handle = ex.spawn(async { panic!("boom") });
    /// let id = handle.id();
    /// assert_eq!(ex.block_on(handle).unwrap_err().id(), id);
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }

    /// Whether the task was cancelled (aborted, or dropped by shutdown).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let handle = ex.spawn(std::future::pending::<()>());
    /// handle.abort();
    /// assert!(ex.block_on(handle).unwrap_err().is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// Whether the task panicked (in its poll, or in a destructor of its future or output).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// assert!(ex.block_on(ex.spawn(async { panic!() })).unwrap_err().is_panic());
    /// ```
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic payload, to resume with [`std::panic::resume_unwind`].
    ///
    /// # Panics
    /// If the error is not a panic ([`JoinError::is_panic`] is false).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let err = ex.block_on(ex.spawn(async { std::panic::panic_any(7u32) })).unwrap_err();
    /// assert_eq!(*err.into_panic().downcast::<u32>().unwrap(), 7);
    /// ```
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        match self.repr {
            Repr::Panic(payload) => payload.into_inner(),
            Repr::Cancelled => {
                panic!("filch: JoinError::into_panic called on a cancelled task's error")
            }
        }
    }

    fn panic_message(&self) -> Option<String> {
        match &self.repr {
            Repr::Panic(payload) => {
                let payload = payload.lock();
                payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
            }
            Repr::Cancelled => None,
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => f.write_str("task was cancelled"),
            (Repr::Panic(_), Some(msg)) => write!(f, "task panicked with message {msg:?}"),
            (Repr::Panic(_), None) => f.write_str("task panicked"),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => f.write_str("JoinError::Cancelled"),
            (Repr::Panic(_), Some(msg)) => write!(f, "JoinError::Panic({msg:?})"),
            (Repr::Panic(_), None) => f.write_str("JoinError::Panic(..)"),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(err: JoinError) -> std::io::Error {
        std::io::Error::other(err.to_string())
    }
}
