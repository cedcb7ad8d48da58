//! A task's metadata, [`TaskMeta`], which both its runnable and its join handle reach, and
//! what it needs from its executor, [`TaskHome`]; the placement hints ([`GENERATED`],
//! [`SPAWNED`], [`YIELDED`]) it carries for the scheduler.
//!
//! Invariants: the metadata keeps its executor's state alive through the task count
//! ([`CountedRef`], `task_count.rs`); its dump record is installed at most once and freed
//! only with the metadata; the hints and the last worker are placement hints only, read and
//! written Relaxed, so a stale value places a task less well and nothing else.

use std::sync::Arc;

use crate::runtime::observe::poll_watch::PollWatch;
use crate::runtime::observe::record::{SpawnedAt, TaskRecord};
use crate::runtime::task::abort::{AbortCell, AbortHandle, AbortSlot};
use crate::runtime::task::id::Id;
use crate::runtime::task::live_tasks::{Key, LiveTasks};
use crate::runtime::task::task_count::{Counted, CountedRef};
use crate::runtime::task::Payload;
use crate::util::sync::{AtomicBool, AtomicPtr, AtomicU32, AtomicU8, Ordering};
use crate::util::wake_all::drop_quietly;

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
    /// tokio runtime without timers: `runtime/tokio_context/timers_off.rs`).
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
    pub(super) id: Id,
    /// Where the task was spawned.
    pub(super) spawned_at: SpawnedAt,
    /// The link to the task's abort handles, if it has any (`abort.rs`).
    pub(super) abort_slot: AbortSlot,
    /// The index of the worker that polled the task last, or [`NO_WORKER`]. A placement
    /// hint only: written Relaxed by the polling worker, read Relaxed by the scheduler.
    last_worker: AtomicU32,
    /// Set by an abort and read before every poll (see `abort` for the orderings).
    pub(super) aborted: AtomicBool,
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
    pub(super) fn install_record(&self, record: TaskRecord) -> &TaskRecord {
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

    pub(super) fn keep_drop_panic(&self, payload: Payload) {
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
