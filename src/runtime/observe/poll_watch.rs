//! Slow and stuck polls: [`SlowPoll`], the report, and [`PollWatch`], an executor's
//! threshold, callback and one slot per worker that says which poll runs there since when.
//!
//! Present only when `Builder::slow_poll_threshold` is set; then each task poll on a worker
//! reads the clock twice (about 20 ns each) and writes its slot: a sequence number, the
//! start, the task's id and spawn location (relaxed stores on the worker's own cache line,
//! published by a release store of the sequence number, a seqlock). A poll that returns
//! past the threshold is counted in the slot (`WorkerStats::slow_polls`, `longest_poll`)
//! and reported by the polling thread (`still_running: false`).
//!
//! The *watcher* is the observer's tick (`super::on_tick`), which the epoch ticker's thread
//! (`runtime/time/epoch.rs`) runs every tick (1 ms) while any worker of the process is busy,
//! and not while all are idle, so a stuck poll (whose worker stays busy) is always seen.
//! Each tick it calls [`scan_all`], which, for every
//! executor with a threshold, reads each worker's slot; a poll stuck past the threshold
//! whose sequence number was not reported yet is reported once (`still_running: true`),
//! from the ticker's thread. The executors are listed as `Weak` references: an executor
//! that is gone drops out of the list at the next scan, and no thread is left behind.
//!
//! **Stuck, not preempted.** The threshold counts the time a poll holds its worker: the
//! worker's thread runs it, or is blocked inside it (a sleep, a lock, a read). Time the
//! thread spends waiting for a CPU (preempted, on a busy machine) does not count: the wall
//! clock would take a worker descheduled in the middle of a short poll for a stuck one.
//! From a poll's first tick on, the watcher samples the worker's thread each tick
//! (`thread_state.rs`: blocked or not, and its CPU time) and adds up the ticks in which the
//! thread was blocked, and the CPU time it got in the others; the time before the first
//! sample counts up to [`SIGHTING_CREDIT`]. Where the thread cannot be sampled (no
//! `/proc`), every tick counts. The worker's own report when the poll returns goes by the
//! same sum (plus the last tick's, up to the credit), so a poll the watcher saw is reported
//! after it returned only if it held its worker past the threshold; one it never saw (the
//! ticker did not get to run while it did) goes by the wall clock.
//!
//! Invariants:
//! - a poll is reported as still running at most once (the slot's `reported` holds its
//!   sequence number; only the watcher writes it);
//! - a reading of a slot is used only if the sequence number was the same odd value before
//!   and after the reads of its fields (the seqlock's rule);
//! - the stuck time of a poll is written only by the watcher, for the sequence number in
//!   `sampled`, which it publishes after the time (Release; the worker's Acquire load at the
//!   poll's end pairs with it); it only grows while that number stays.

use std::fmt;
use std::panic::Location;
// std's, not `crate::util::sync`'s: the list of watches is a static.
use std::sync::Mutex as StaticMutex;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use crate::runtime::observe::thread_state::{self, Sample};
use crate::runtime::task::id::Id;
use crate::util::sync::{fence, AtomicPtr, AtomicU32, AtomicU64, Ordering};

/// A poll younger than this is not sampled (most polls end sooner; a sample reads two files).
const SAMPLE_AFTER: Duration = Duration::from_millis(1);

/// How much of a poll's time before the watcher's first sample of it, and after its last,
/// counts as stuck: about a tick (the watcher's period), whatever the thread did then.
const SIGHTING_CREDIT: Duration = Duration::from_millis(2);

/// A poll that held its worker longer than `Builder::slow_poll_threshold` (running or blocked
/// inside the poll; time spent waiting for a CPU does not count): reported while it still
/// runs (once per poll, from a thread that is not the stuck worker) and once more when it
/// returns.
///
/// Its `Display` is one line, for a log:
/// ``worker 1 has been inside one poll of task 7 `db-sync` (src/main.rs:42:5) for 2.3 s``
/// while the poll runs, ``worker 1 spent 2.5 s in one poll of task 7 `db-sync`
/// (src/main.rs:42:5)`` once it returned.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use std::time::Duration;
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let ex = filch::Executor::builder()
///     .worker_threads(1)
///     .slow_poll_threshold(Duration::from_millis(20))
///     .on_slow_poll(move |report: &filch::SlowPoll| log.lock().unwrap().push(report.clone()))
///     .build()
///     .unwrap();
/// ex.block_on(ex.spawn(async { std::thread::sleep(Duration::from_millis(100)) })).unwrap();
/// // The report after the poll returned comes from the worker, before the task's output.
/// let reports = seen.lock().unwrap();
/// let last = reports.last().unwrap();
/// assert!(!last.still_running && last.duration >= Duration::from_millis(100));
/// println!("{last}");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SlowPoll {
    /// The task's id.
    pub task: Id,
    /// The task's name, if it was spawned with one (`filch::task::Builder::name`).
    pub name: Option<String>,
    /// Where the task was spawned.
    pub spawned_at: &'static Location<'static>,
    /// The worker that runs (or ran) the poll.
    pub worker: usize,
    /// How long the poll has run (`still_running`) or ran, on the wall clock.
    pub duration: Duration,
    /// `true`: reported while the poll runs (once per poll); `false`: after it returned.
    pub still_running: bool,
}

impl fmt::Display for SlowPoll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.duration.as_secs_f64();
        let how_long = if secs >= 1.0 {
            format!("{secs:.1} s")
        } else {
            format!("{:.1} ms", secs * 1e3)
        };
        let mut task = format!("task {}", self.task);
        if let Some(name) = &self.name {
            task = format!("{task} `{name}`");
        }
        if self.still_running {
            write!(
                f,
                "worker {} has been inside one poll of {task} ({}) for {how_long}",
                self.worker, self.spawned_at
            )
        } else {
            write!(
                f,
                "worker {} spent {how_long} in one poll of {task} ({})",
                self.worker, self.spawned_at
            )
        }
    }
}

/// The callback of `Builder::on_slow_poll`.
pub(crate) type OnSlowPoll = Arc<dyn Fn(&SlowPoll) + Send + Sync>;

/// The settings of `Builder::slow_poll_threshold` and `Builder::on_slow_poll`.
#[derive(Clone, Default)]
pub(crate) struct Settings {
    pub(crate) threshold: Option<Duration>,
    pub(crate) callback: Option<OnSlowPoll>,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlowPolls")
            .field("threshold", &self.threshold)
            .field("callback", &self.callback.is_some())
            .finish()
    }
}

/// What a worker writes about its poll in flight (module docs). Written only by its worker,
/// except `reported` (only by the watcher).
struct Slot {
    /// Odd while a poll runs; each poll adds two.
    seq: AtomicU64,
    /// Nanoseconds since the watch's base at the poll's start.
    started: AtomicU64,
    /// The task's id.
    task: AtomicU64,
    /// The task's spawn location.
    spawned_at: AtomicPtr<Location<'static>>,
    /// The `seq` of the last poll reported as still running (watcher only).
    reported: AtomicU64,
    /// Polls past the threshold, and the longest of them in nanoseconds.
    slow_polls: AtomicU64,
    longest: AtomicU64,
    /// The worker thread's kernel id (0: not known), written once by the worker at its start.
    tid: AtomicU32,
    /// The `seq` of the poll the watcher samples (module docs), published after the three
    /// fields below (watcher only).
    sampled: AtomicU64,
    /// The sampled poll's stuck time so far, in nanoseconds (watcher only).
    stuck: AtomicU64,
    /// When the watcher last sampled it, in nanoseconds since the watch's base (watcher only).
    sampled_at: AtomicU64,
    /// The worker thread's CPU time at that sample, in nanoseconds (watcher only).
    cpu: AtomicU64,
}

/// An executor's slow-poll watch (module docs).
pub(crate) struct PollWatch {
    threshold: Duration,
    callback: Option<OnSlowPoll>,
    base: Instant,
    slots: Box<[CachePadded<Slot>]>,
    /// Finds the name of the live task with this id (the executor's registry), set once the
    /// executor's state exists.
    name_of: OnceLock<NameOf>,
}

/// How the watcher finds a task's name by its id.
pub(crate) type NameOf = Box<dyn Fn(Id) -> Option<String> + Send + Sync>;

/// A poll in flight, from [`PollWatch::begin`].
pub(crate) struct InFlight {
    worker: usize,
    started: Instant,
}

impl PollWatch {
    pub(crate) fn new(
        workers: usize,
        threshold: Duration,
        callback: Option<OnSlowPoll>,
    ) -> PollWatch {
        PollWatch {
            threshold,
            callback,
            base: Instant::now(),
            slots: (0..workers)
                .map(|_| {
                    CachePadded::new(Slot {
                        seq: AtomicU64::new(0),
                        started: AtomicU64::new(0),
                        task: AtomicU64::new(0),
                        spawned_at: AtomicPtr::new(std::ptr::null_mut()),
                        reported: AtomicU64::new(0),
                        slow_polls: AtomicU64::new(0),
                        longest: AtomicU64::new(0),
                        tid: AtomicU32::new(0),
                        sampled: AtomicU64::new(0),
                        stuck: AtomicU64::new(0),
                        sampled_at: AtomicU64::new(0),
                        cpu: AtomicU64::new(0),
                    })
                })
                .collect(),
            name_of: OnceLock::new(),
        }
    }

    /// Sets how the watcher finds names (once; later calls are ignored).
    pub(crate) fn set_name_of(&self, name_of: NameOf) {
        let _ = self.name_of.set(name_of);
    }

    /// Worker `worker` starts on the calling thread (before its first poll): the thread the
    /// watcher samples for its polls.
    pub(crate) fn worker_started(&self, worker: usize) {
        if let Some(slot) = self.slots.get(worker) {
            // Relaxed: published to the watcher by the Release store of `seq` in `begin`.
            slot.tid
                .store(thread_state::current_tid(), Ordering::Relaxed);
        }
    }

    /// Nanoseconds from the watch's base to `at`.
    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX)
    }

    /// Marks a poll of task `task` starting on `worker` (the caller is that worker).
    pub(crate) fn begin(
        &self,
        worker: usize,
        task: Id,
        spawned_at: &'static Location<'static>,
    ) -> Option<InFlight> {
        let slot = self.slots.get(worker)?;
        let started = Instant::now();
        let nanos = self.nanos(started);
        // Relaxed: this worker is the only writer of these fields; the release store of the
        // odd `seq` below publishes them to the watcher.
        let seq = slot.seq.load(Ordering::Relaxed);
        slot.started.store(nanos, Ordering::Relaxed);
        slot.task.store(task.as_u64(), Ordering::Relaxed);
        slot.spawned_at
            .store(std::ptr::from_ref(spawned_at).cast_mut(), Ordering::Relaxed);
        // Release: pairs with the watcher's Acquire load of `seq` in `scan`.
        slot.seq.store(seq + 1, Ordering::Release);
        Some(InFlight { worker, started })
    }

    /// Ends the poll `poll`; past the threshold, counts it and reports it (`report` makes
    /// the report's name and spawn location).
    pub(crate) fn end(
        &self,
        poll: InFlight,
        task: Id,
        name: impl FnOnce() -> Option<String>,
        spawned_at: &'static Location<'static>,
    ) {
        let slot = &self.slots[poll.worker];
        // Release: the watcher that reads this even value knows the poll it saw ended
        // (pairs with its Acquire load).
        let seq = slot.seq.load(Ordering::Relaxed);
        slot.seq.store(seq + 1, Ordering::Release);
        let ended = Instant::now();
        let duration = ended.saturating_duration_since(poll.started);
        if duration <= self.threshold || !self.held_past_threshold(slot, seq, ended) {
            return;
        }
        // Relaxed, load then store: this worker is the only writer (statistics).
        let slow = slot.slow_polls.load(Ordering::Relaxed);
        slot.slow_polls.store(slow + 1, Ordering::Relaxed);
        let nanos = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
        if nanos > slot.longest.load(Ordering::Relaxed) {
            slot.longest.store(nanos, Ordering::Relaxed);
        }
        self.report(&SlowPoll {
            task,
            name: name(),
            spawned_at,
            worker: poll.worker,
            duration,
            still_running: false,
        });
    }

    /// Worker `worker`'s slow polls and the longest of them.
    pub(crate) fn stats(&self, worker: usize) -> (u64, Duration) {
        self.slots.get(worker).map_or((0, Duration::ZERO), |slot| {
            // Relaxed: statistics.
            (
                slot.slow_polls.load(Ordering::Relaxed),
                Duration::from_nanos(slot.longest.load(Ordering::Relaxed)),
            )
        })
    }

    /// Hands `report` to the callback (else prints it to stderr). A panic of the callback
    /// is dropped: it must not unwind through a task's poll (`end` runs inside one) nor
    /// end the ticker.
    fn report(&self, report: &SlowPoll) {
        let call = || match &self.callback {
            Some(callback) => callback(report),
            None => eprintln!("filch: {report}"),
        };
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)) {
            // Leaked, not dropped: dropping a panic's payload may panic again.
            std::mem::forget(payload);
        }
    }

    /// Whether the poll `seq` (odd: the value while it ran), which ended at `ended` after
    /// more than the threshold on the wall clock, held its worker past the threshold: its
    /// stuck time as the watcher summed it, plus the time since the watcher's last sample,
    /// up to [`SIGHTING_CREDIT`] (module docs). A poll the watcher never sampled (the ticker
    /// did not run while it did) goes by the wall clock: nothing says it was preempted.
    fn held_past_threshold(&self, slot: &Slot, seq: u64, ended: Instant) -> bool {
        // Acquire: pairs with the watcher's Release store of `sampled`, after `stuck` and
        // `sampled_at` for that poll.
        if slot.sampled.load(Ordering::Acquire) != seq {
            return true;
        }
        // Relaxed: see above; a later value of the same poll is as good.
        let stuck = slot.stuck.load(Ordering::Relaxed);
        let since = self
            .nanos(ended)
            .saturating_sub(slot.sampled_at.load(Ordering::Relaxed));
        let tail = since.min(nanos_of(SIGHTING_CREDIT));
        stuck.saturating_add(tail) > nanos_of(self.threshold)
    }

    /// Adds the time since the watcher's last look at the poll `seq` of `slot` (in flight
    /// since `started`, now `now`) to its stuck time, as the worker's thread spent it (module
    /// docs); returns the stuck time in nanoseconds. The first look samples the thread and
    /// counts the time before, up to [`SIGHTING_CREDIT`].
    fn add_stuck_time(&self, slot: &Slot, seq: u64, started: Instant, now: Instant) -> u64 {
        // Relaxed: only the watcher writes these; the Release store of `sampled` publishes
        // them to the worker.
        let tid = slot.tid.load(Ordering::Relaxed);
        let sample = thread_state::sample(tid);
        let at = self.nanos(now);
        let stuck = if slot.sampled.load(Ordering::Relaxed) == seq {
            let dt = at.saturating_sub(slot.sampled_at.load(Ordering::Relaxed));
            let held = match sample {
                // Blocked inside the poll: the whole tick. Else the CPU time it got: none
                // while it waited for a CPU. Not capped at this tick's length: a reading of
                // the CPU time may lag (`thread_state.rs`) and catch up at a later sample.
                Some(Sample { blocked: true, .. }) => dt,
                Some(Sample { cpu_ns, .. }) => {
                    cpu_ns.saturating_sub(slot.cpu.load(Ordering::Relaxed))
                }
                // No sample: the wall clock.
                None => dt,
            };
            // The poll cannot have held its worker longer than it has run.
            let ran = nanos_of(now.saturating_duration_since(started));
            slot.stuck
                .load(Ordering::Relaxed)
                .saturating_add(held)
                .min(ran)
        } else {
            let before = now.saturating_duration_since(started).min(SIGHTING_CREDIT);
            nanos_of(before)
        };
        slot.stuck.store(stuck, Ordering::Relaxed);
        slot.sampled_at.store(at, Ordering::Relaxed);
        slot.cpu
            .store(sample.map_or(0, |s| s.cpu_ns), Ordering::Relaxed);
        // Release: see the field.
        slot.sampled.store(seq, Ordering::Release);
        stuck
    }

    /// Reports each poll that has been stuck past the threshold and was not reported yet
    /// (module docs). Called by the watcher (the epoch ticker) only.
    fn scan(&self) {
        let now = Instant::now();
        for (worker, slot) in self.slots.iter().enumerate() {
            // Relaxed: only the watcher writes `reported`.
            let reported = slot.reported.load(Ordering::Relaxed);
            let Some((seq, poll)) = read(slot).filter(|(seq, _)| *seq != reported) else {
                continue;
            };
            let started = self.base + poll.started;
            let duration = now.saturating_duration_since(started);
            if duration < SAMPLE_AFTER {
                continue;
            }
            if self.add_stuck_time(slot, seq, started, now) <= nanos_of(self.threshold) {
                continue;
            }
            slot.reported.store(seq, Ordering::Relaxed);
            self.report(&SlowPoll {
                task: poll.task,
                name: self.name_of.get().and_then(|name_of| name_of(poll.task)),
                spawned_at: poll.spawned_at,
                worker,
                duration,
                still_running: true,
            });
        }
    }

    /// The polls in flight now, by worker: the task, its spawn location, and how long the
    /// poll has run (for the task dump, which lists them when their task is in no registry
    /// yet: a plain `spawn`'s first poll).
    pub(crate) fn in_flight(&self) -> Vec<(usize, Id, &'static Location<'static>, Duration)> {
        let now = Instant::now();
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(worker, slot)| {
                let (_, poll) = read(slot)?;
                let ran = now.saturating_duration_since(self.base + poll.started);
                Some((worker, poll.task, poll.spawned_at, ran))
            })
            .collect()
    }
}

/// `duration` in nanoseconds, saturating.
fn nanos_of(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// A poll in flight, as read from its slot.
struct SlotPoll {
    task: Id,
    spawned_at: &'static Location<'static>,
    /// Since the watch's base.
    started: Duration,
}

/// The poll in flight in `slot` and its sequence number, if one runs (the seqlock's read:
/// module docs).
fn read(slot: &Slot) -> Option<(u64, SlotPoll)> {
    // Acquire: pairs with the Release stores of `seq` in `begin` and `end`.
    let seq = slot.seq.load(Ordering::Acquire);
    if seq % 2 == 0 {
        return None;
    }
    // Relaxed: validated by the seqlock's second read below.
    let started = slot.started.load(Ordering::Relaxed);
    let task = slot.task.load(Ordering::Relaxed);
    let spawned_at = slot.spawned_at.load(Ordering::Relaxed);
    // Acquire fence: orders the field reads before the second read of `seq`.
    fence(Ordering::Acquire);
    if slot.seq.load(Ordering::Relaxed) != seq || spawned_at.is_null() || task == 0 {
        return None;
    }
    // SAFETY: `spawned_at` came from a `&'static Location` (`begin`), and the seqlock's
    // check says it is the one `begin` stored for this poll.
    let spawned_at: &'static Location<'static> = unsafe { &*spawned_at };
    Some((
        seq,
        SlotPoll {
            task: Id::from_u64(task),
            spawned_at,
            started: Duration::from_nanos(started),
        },
    ))
}

/// Every executor with a threshold (module docs).
static WATCHES: StaticMutex<Vec<Weak<PollWatch>>> = StaticMutex::new(Vec::new());

/// Lists `watch` for the watcher's scans.
pub(crate) fn register(watch: &Arc<PollWatch>) {
    WATCHES
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .push(Arc::downgrade(watch));
}

/// One scan of every live watch (the ticker calls it every tick); drops the dead ones.
pub(crate) fn scan_all() {
    let live: Vec<Arc<PollWatch>> = {
        let mut watches = WATCHES.lock().unwrap_or_else(|poison| poison.into_inner());
        if watches.is_empty() {
            return;
        }
        watches.retain(|weak| weak.strong_count() > 0);
        watches.iter().filter_map(Weak::upgrade).collect()
    };
    // Outside the list's lock: a callback may build an executor.
    for watch in live {
        watch.scan();
    }
}
