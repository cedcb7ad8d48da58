//! The task dump: [`TaskDump`], a snapshot of an executor's live tasks, its [`TaskInfo`] per
//! task and [`TaskState`]s, and [`collect`], which makes one from the [`Sources`] an
//! executor's state gives it (`runtime/scheduler/runtime.rs`).
//!
//! The dump walks the live-task registry (`runtime/task/live_tasks.rs`), one shard lock at a time:
//! a task is there from its first wait (or from its spawn, for tasks made by
//! [`Builder`](crate::task::Builder) and blocking jobs) until its future is dropped. Each
//! entry's waker keeps its task's allocation (and metadata) alive while the entry is there,
//! so under the shard's lock the dump reads the task's metadata and record
//! (`record.rs`). With a slow-poll threshold it also lists the polls in flight
//! from the workers' slow-poll slots (`poll_watch.rs`). Which tasks a dump
//! lists, and which it cannot, is stated once, in [`TaskDump`]'s doc. Nothing stops the
//! workers; each task's fields are read without a lock.

use std::fmt;
use std::panic::Location;
use std::time::{Duration, Instant};

use crate::runtime::observe::coarse_clock::to_ms;
use crate::runtime::observe::poll_watch::PollWatch;
use crate::runtime::observe::record::since;
use crate::runtime::task::id::Id;
use crate::runtime::task::live_tasks::LiveTasks;
use crate::runtime::task::{TaskHome, TaskMeta};

/// A snapshot of an executor's live tasks, from [`Executor::dump`](crate::Executor::dump) or
/// [`Handle::dump`](crate::Handle::dump).
///
/// Lists every task spawned and not yet dropped that has waited for a wake-up at least once,
/// and every task made by [`task::Builder`](crate::task::Builder) or `spawn_blocking` from its
/// spawn; a plain `spawn`'s task shows from its first wait (that keeps spawning free of any
/// bookkeeping for tasks that never wait), or, on an executor with a
/// [slow-poll threshold](crate::Builder::slow_poll_threshold), while its first poll runs.
/// Not atomic across tasks: the workers keep going.
///
/// Its `Display` is an aligned table, one line per task after a header, sorted by how long
/// each task has waited, longest first: the time since the task last ran (since its last
/// poll ended; for a running task, since the poll in flight began; for a task never polled,
/// since its spawn). A line after the table counts the live tasks the dump could not list
/// (plain `spawn`s before their first wait), if there were any; with the cargo feature
/// `tokio-context`, a last line reports the tokio runtime beside the executor (its workers,
/// tasks alive and queued, and busy time: `Stats::tokio`), whose tasks are not filch's.
///
/// With the cargo feature `serde` it implements `Serialize`: ids as numbers, `spawned_at`
/// as `"file:line:column"`, durations as serde's (`{"secs": u64, "nanos": u32}`), the
/// state as `"Idle"`, `"Scheduled"`, `"Blocking"` or `{"Running": {"worker": n}}`.
///
/// ```
/// use std::time::Duration;
///
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let sleeper = filch::task::Builder::new()
///     .name("sleeper")
///     .spawn_on(filch::time::sleep(Duration::from_secs(60)), &ex.handle())
///     .unwrap();
/// let dump = ex.dump();
/// let info = dump.tasks.iter().find(|t| t.id == sleeper.id()).unwrap();
/// assert_eq!(info.name.as_deref(), Some("sleeper"));
/// println!("{dump}");
/// sleeper.abort();
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TaskDump {
    /// The tasks, longest-waiting first.
    pub tasks: Vec<TaskInfo>,
    /// Live tasks not listed (the executor's live-task count minus the tasks listed, read
    /// a moment apart: approximate), for the table's last line.
    #[cfg_attr(feature = "serde", serde(skip))]
    unlisted: usize,
    /// The tokio runtime beside the executor (`tokio-context`), for the footer.
    #[cfg(feature = "tokio-context")]
    #[cfg_attr(feature = "serde", serde(skip))]
    tokio: crate::runtime::stats::TokioStats,
}

/// One task of a [`TaskDump`].
///
/// Times come from a coarse clock (filch reads no clock per poll): stamps are at most about
/// a millisecond behind the real clock, and `busy` adds up each poll's length in whole
/// milliseconds of that clock, so a poll shorter than a millisecond counts as 0 or 1 ms
/// (exact on average over many polls) and a long poll is measured to within a millisecond.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let task = filch::task::Builder::new()
///     .name("waiter")
///     .spawn_on(std::future::pending::<()>(), &ex.handle())
///     .unwrap();
/// let dump = ex.dump();
/// let info: &filch::TaskInfo = dump.tasks.iter().find(|t| t.id == task.id()).unwrap();
/// assert_eq!(info.spawned_at.file(), file!());
/// task.abort();
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TaskInfo {
    /// The task's id.
    pub id: Id,
    /// Its name, if it was spawned with one.
    pub name: Option<String>,
    /// Where it was spawned.
    #[cfg_attr(feature = "serde", serde(serialize_with = "location"))]
    pub spawned_at: &'static Location<'static>,
    /// What it is doing.
    pub state: TaskState,
    /// Polls started (including one in flight).
    pub polls: u64,
    /// Time spent in its polls that ended (coarse: see the struct's docs).
    pub busy: Duration,
    /// Time since its last poll ended (for a running task: since the poll in flight began);
    /// `None` if it was never polled.
    pub since_last_poll: Option<Duration>,
    /// Time since it was last scheduled: woken, or spawned (a spawn counts as the first
    /// wake); `None` if the dump has no stamp of it (a plain `spawn`'s task is tracked from
    /// its first wait).
    pub since_last_wake: Option<Duration>,
}

/// What a task is doing, in a [`TaskInfo`].
///
/// ```
/// let state = filch::TaskState::Running { worker: 0 };
/// assert_ne!(state, filch::TaskState::Idle);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TaskState {
    /// Waiting for a wake-up (a timer, a socket, a channel...).
    Idle,
    /// Woken (or spawned) and queued, waiting for a worker to poll it.
    Scheduled,
    /// Being polled by worker `worker` now.
    Running {
        /// The worker's index.
        worker: usize,
    },
    /// A `spawn_blocking` job: queued on the blocking pool or running there.
    Blocking,
}

#[cfg(feature = "serde")]
fn location<S: serde::Serializer>(
    location: &&'static Location<'static>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(location)
}

impl TaskInfo {
    /// How long the task has waited (the sort key, see [`TaskDump`]).
    fn waiting(&self) -> Duration {
        self.since_last_poll
            .or(self.since_last_wake)
            .unwrap_or_default()
    }
}

/// What a dump reads of one executor.
pub(crate) struct Sources<'a> {
    /// The live-task registry, whose tasks' metadata is `TaskMeta<H>` for `collect`'s `H`.
    pub(crate) live_tasks: &'a LiveTasks,
    /// The slow-poll slots, if the executor has a threshold.
    pub(crate) poll_watch: Option<&'a PollWatch>,
    /// The number of live tasks (`TaskCount::alive`).
    pub(crate) alive: usize,
    /// The tokio runtime beside the executor.
    #[cfg(feature = "tokio-context")]
    pub(crate) tokio: crate::runtime::stats::TokioStats,
}

/// The dump of an executor's live tasks (module docs); `H` is the home of the tasks in
/// `from.live_tasks`.
pub(crate) fn collect<H: TaskHome>(from: Sources<'_>) -> TaskDump {
    let now = to_ms(Instant::now());
    let ago = |stamp: u32| Duration::from_millis(since(now, stamp));
    let mut tasks = Vec::new();
    from.live_tasks.visit(|tag| {
        // SAFETY: `tag` is the address of a task's metadata (`TaskMeta::tag`), a
        // `TaskMeta<H>` (the registry holds only its executor's tasks, whose home is `H`),
        // whose registry entry the visit holds under its shard's lock; the entry's waker
        // keeps the task's allocation, metadata included, alive until it is removed.
        let meta: &TaskMeta<H> = unsafe { &*(tag as *const TaskMeta<H>) };
        let Some(record) = meta.record() else {
            // Between its registration and its record's install: not visible yet.
            return;
        };
        let view = record.view();
        // A running poll runs on the task's last worker (set before each poll on a worker).
        let task_state = match meta.last_worker() {
            _ if record.blocking => TaskState::Blocking,
            Some(worker) if view.running => TaskState::Running { worker },
            _ if view.scheduled => TaskState::Scheduled,
            _ => TaskState::Idle,
        };
        tasks.push(TaskInfo {
            id: meta.id(),
            name: record.name.as_deref().map(str::to_owned),
            spawned_at: meta.spawned_at(),
            state: task_state,
            polls: view.polls,
            busy: view.busy,
            since_last_poll: view.last_poll.map(ago),
            since_last_wake: view.last_wake.map(ago).or_else(|| Some(ago(view.made))),
        });
    });
    // With a slow-poll threshold, the workers' slots name the polls in flight: a plain
    // `spawn`'s task in its first poll (in no registry yet) is listed from there.
    if let Some(watch) = from.poll_watch {
        for (worker, id, spawned_at, ran) in watch.in_flight() {
            if tasks.iter().any(|t| t.id == id) {
                continue;
            }
            tasks.push(TaskInfo {
                id,
                name: None,
                spawned_at,
                state: TaskState::Running { worker },
                polls: 1,
                busy: Duration::ZERO,
                since_last_poll: Some(ran),
                since_last_wake: None,
            });
        }
    }
    tasks.sort_by(|a, b| b.waiting().cmp(&a.waiting()).then(a.id.cmp(&b.id)));
    let unlisted = from.alive.saturating_sub(tasks.len());
    TaskDump {
        tasks,
        unlisted,
        #[cfg(feature = "tokio-context")]
        tokio: from.tokio,
    }
}

/// The name of the live task `id` of `live_tasks` (whose tasks' home is `H`), if it is in
/// the registry and has one (for the slow-poll watcher's reports).
pub(crate) fn name_of<H: TaskHome>(live_tasks: &LiveTasks, id: Id) -> Option<String> {
    let mut name = None;
    live_tasks.visit(|tag| {
        if name.is_some() {
            return;
        }
        // SAFETY: as in `collect`.
        let meta: &TaskMeta<H> = unsafe { &*(tag as *const TaskMeta<H>) };
        if meta.id() == id {
            name = meta
                .record()
                .and_then(|record| record.name.as_deref().map(str::to_owned));
        }
    });
    name
}

/// A duration for the table: seconds with one decimal from one second up, else
/// milliseconds.
fn short(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs >= 1.0 {
        format!("{secs:.1}s")
    } else {
        format!("{}ms", duration.as_millis())
    }
}

impl fmt::Display for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskState::Idle => f.pad("idle"),
            TaskState::Scheduled => f.pad("scheduled"),
            TaskState::Running { worker } => f.pad(&format!("running on {worker}")),
            TaskState::Blocking => f.pad("blocking"),
        }
    }
}

impl fmt::Display for TaskDump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = [
            "ID",
            "NAME",
            "STATE",
            "POLLS",
            "BUSY",
            "SINCE POLL",
            "SINCE WAKE",
            "SPAWNED AT",
        ];
        let rows: Vec<[String; 8]> = self
            .tasks
            .iter()
            .map(|t| {
                [
                    t.id.to_string(),
                    t.name.clone().unwrap_or_else(|| "-".to_owned()),
                    t.state.to_string(),
                    t.polls.to_string(),
                    short(t.busy),
                    t.since_last_poll.map_or_else(|| "-".to_owned(), short),
                    t.since_last_wake.map_or_else(|| "-".to_owned(), short),
                    t.spawned_at.to_string(),
                ]
            })
            .collect();
        let mut widths = header.map(str::len);
        for row in &rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let line = |f: &mut fmt::Formatter<'_>, cells: [&str; 8]| -> fmt::Result {
            for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
                match i {
                    // The last column unpadded: no trailing blanks.
                    7 => write!(f, "{cell}")?,
                    // Numbers to the right.
                    0 | 3 | 4 | 5 | 6 => write!(f, "{cell:>width$}  ")?,
                    _ => write!(f, "{cell:<width$}  ")?,
                }
            }
            writeln!(f)
        };
        line(f, header)?;
        for row in &rows {
            line(f, row.each_ref().map(String::as_str))?;
        }
        if self.unlisted > 0 {
            writeln!(
                f,
                "(and about {} more: spawned, not yet waited for a wake-up)",
                self.unlisted
            )?;
        }
        #[cfg(feature = "tokio-context")]
        {
            let t = &self.tokio;
            writeln!(
                f,
                "tokio runtime beside filch (not in this table): {} worker{}, {} task{} alive, \
                 {} queued, busy {} in all",
                t.workers,
                if t.workers == 1 { "" } else { "s" },
                t.alive_tasks,
                if t.alive_tasks == 1 { "" } else { "s" },
                t.global_queue_depth,
                short(t.busy)
            )?;
        }
        Ok(())
    }
}
