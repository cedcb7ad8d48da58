//! The epoch: a process-wide counter that tells threads doing fork-join work when to look
//! up, and the ticker thread that moves it.
//!
//! This module owns one process-wide counter, the *epoch*, and the thread that advances it
//! every [`TICK`] while some worker is busy (the "ticker"). A thread doing fork-join work
//! remembers the epoch it last saw and checks, at each `join` and between the pieces and
//! blocks of items of a parallel iterator, that it has not moved ([`moved`]: one relaxed
//! load, a hit in the thread's cache until the next tick). When it has moved, the thread
//! takes its heartbeat (`runtime/scheduler/forkjoin/thread.rs`: it publishes work for idle
//! workers, has its worker's stand-in take its place, and unwinds if its call was cancelled
//! or its executor shut down) and an awaited loop reads its call's stop flag
//! (`par/loops/watched.rs`). [`bump`] moves the epoch at once: a cancelled call, an executor
//! that shuts down and a bridged call whose piece unwound call it, after setting their flag,
//! so every thread concerned looks up before its next piece or block of items.
//!
//! Why a ticker, not the clock: an item's cost can jump at any moment (a million 1 ns items,
//! then 1 ms ones), so a bound on the time a thread runs without looking up needs a check
//! between a few items; reading the clock costs ~20 ns, far more than a nanosecond body,
//! while the epoch costs a load and a never-taken branch.
//!
//! Invariants:
//! - the epoch only grows (wrapping after 2^64 ticks, which never happens);
//! - while [`Ticker::active`] is non-zero (a worker is busy: polling tasks or running
//!   fork-join pieces) the ticker is awake and bumps the epoch every [`TICK`] (modulo the OS
//!   scheduler); it parks only after [`IDLE_TICKS`] ticks with no active worker, and an
//!   entering worker that sees it parked (or about to park) unparks it: register, re-check,
//!   then wait ([`Ticker::park_while_idle`], [`Ticker::enter`]).
//!
//! The ticker's thread also runs the observer's tick (`runtime/observe/`: the coarse clock
//! of task stamps and the slow-poll scan) after each bump, and tells it when it sleeps and
//! wakes; since every busy worker counts as active (it enters at the start of a stretch of
//! polls and leaves when it parks), the coarse clock moves and a stuck poll is seen whenever
//! some worker polls. This module knows nothing else of what the observer does. After the
//! observer, it runs the tick hooks of the layers above ([`register_hook`]: each executor's
//! hand-over scan, `runtime/scheduler/standin/hold.rs`), listed as `Weak` references, so an
//! executor that is gone drops out of the list at the next tick.
//!
//! The ticker sleeps on a [`Parker`], the type every filch thread sleeps on; its atomics go
//! through `crate::util::sync`, so the loom model `ticker_park_is_never_lost` (`loom_model.rs`)
//! runs this code. The epoch is a std atomic: a static read before every item, and no part
//! of the park.

// std's, not `crate::util::sync`'s: the epoch lives in a static (loom's atomics have no `const fn
// new`).
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex as StaticMutex, OnceLock, Weak};
use std::thread;
use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::runtime::park::{NoReactor, Parker};
use crate::util::sync::{AtomicUsize, Ordering};

/// How often the ticker moves the epoch while workers are busy.
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// Ticks without any active worker before the ticker parks (about 50 ms), so that a program
/// that keeps its workers busy now and then does not pay an unpark each time.
const IDLE_TICKS: u32 = 50;

/// The epoch. Its own cache line: fork-join threads read it between every few items.
static EPOCH: CachePadded<AtomicU64> = CachePadded::new(AtomicU64::new(0));

/// The process's ticker ([`ticker`]).
static TICKER: OnceLock<Ticker> = OnceLock::new();

/// Set once the ticker's thread started ([`try_start`]).
static STARTED: OnceLock<()> = OnceLock::new();

/// What the ticker thread and the workers share: who is active, and where the ticker sleeps.
pub(crate) struct Ticker {
    /// Busy workers (polling tasks or running fork-join pieces), in every executor of the
    /// process.
    active: AtomicUsize,
    /// Where the ticker sleeps once idle; entering workers unpark it.
    parker: Parker<NoReactor>,
}

/// What a layer above has the ticker do every tick ([`register_hook`]).
pub(crate) trait TickHook: Send + Sync {
    /// Runs on the ticker's thread once per tick, after the epoch moved.
    fn on_tick(self: std::sync::Arc<Self>);
}

/// The hooks the ticker runs each tick. std's: a static.
static HOOKS: StaticMutex<Vec<Weak<dyn TickHook>>> = StaticMutex::new(Vec::new());

/// Has the ticker call `hook` every tick while it lives (module docs).
pub(crate) fn register_hook(hook: Weak<dyn TickHook>) {
    HOOKS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(hook);
}

/// Runs every live hook once; drops the dead ones from the list.
fn run_hooks() {
    let live: Vec<std::sync::Arc<dyn TickHook>> = {
        let mut hooks = HOOKS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if hooks.is_empty() {
            return;
        }
        hooks.retain(|weak| weak.strong_count() > 0);
        hooks.iter().filter_map(Weak::upgrade).collect()
    };
    // Outside the list's lock: a hook may start an executor's thread, which may register.
    for hook in live {
        hook.on_tick();
    }
}

/// The process's ticker.
fn ticker() -> &'static Ticker {
    TICKER.get_or_init(Ticker::new)
}

/// The current epoch, to pass to [`moved`]. A thread calls it when it starts fork-join work
/// and when it looks up, before it reads the flags that a [`bump`] publishes.
#[inline]
pub(crate) fn now() -> u64 {
    // Acquire: pairs with the Release of `bump` (the ticker's increments continue its
    // release sequence), so a thread that saw a stop's bump also sees the stop flag set
    // before it.
    EPOCH.load(Ordering::Acquire)
}

/// Whether the epoch moved since `seen` (a tick, or a [`bump`]).
#[inline(always)]
pub(crate) fn moved(seen: u64) -> bool {
    // Relaxed: only the change matters; the thread then calls `now` (Acquire) before it
    // reads anything the bump published.
    EPOCH.load(Ordering::Relaxed) != seen
}

/// Moves the epoch now, so that every thread doing fork-join work looks up at its next check.
pub(crate) fn bump() {
    // Release: pairs with the Acquire load in `now`, publishing what the caller did before
    // (a stop's flag).
    EPOCH.fetch_add(1, Ordering::Release);
}

/// Starts the ticker if it is not running yet; the OS's error if it refuses the thread (a
/// later call tries again). For `Runtime::start`, which returns errors rather than panics.
pub(crate) fn try_start() -> std::io::Result<()> {
    // std's: a static. Held only while starting, so that two callers start one thread.
    static STARTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    if STARTED.get().is_some() {
        return Ok(());
    }
    let _starting = STARTING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if STARTED.get().is_none() {
        let ticker = ticker();
        thread::Builder::new()
            .name("filch-par-tick".to_owned())
            .spawn(move || run(ticker))?;
        let _ = STARTED.set(());
    }
    Ok(())
}

/// The ticker's loop: bump every [`TICK`] while workers are active, park when idle.
fn run(ticker: &Ticker) {
    let mut idle = 0;
    loop {
        thread::sleep(TICK);
        bump();
        crate::runtime::observe::on_tick(std::time::Instant::now());
        run_hooks();
        if ticker.is_active() {
            idle = 0;
            continue;
        }
        idle += 1;
        if idle < IDLE_TICKS {
            continue;
        }
        crate::runtime::observe::on_idle();
        ticker.park_while_idle();
        crate::runtime::observe::on_wake(std::time::Instant::now());
        idle = 0;
    }
}

impl Ticker {
    pub(super) fn new() -> Ticker {
        Ticker {
            active: AtomicUsize::new(0),
            parker: Parker::new(),
        }
    }

    /// Whether some worker is busy.
    pub(super) fn is_active(&self) -> bool {
        // Relaxed: a look between ticks; the park's re-check is what orders against
        // `enter` (see `park_while_idle`).
        self.active.load(Ordering::Relaxed) != 0
    }

    /// The ticker's sleep once idle: until a worker enters (or spuriously; the loop then
    /// counts idle ticks again). Register, re-check, then wait: the parker registers as
    /// parked, fences, then reads `active`; `enter` increments `active`, fences, then reads
    /// the parker's state. Of the two fences one comes first, so either the re-check sees
    /// the worker and the ticker stays up, or the worker sees the ticker parked and unparks
    /// it (`Parker::park_condvar`, `Parker::unpark_if_parked`).
    pub(super) fn park_while_idle(&self) {
        // Relaxed: ordered by the parker's fence after it registers.
        self.parker
            .park_condvar(|| self.active.load(Ordering::Relaxed) != 0);
    }

    /// Marks a worker as active until the returned guard drops; wakes the ticker if it
    /// parked (see [`Ticker::park_while_idle`]).
    pub(super) fn enter(&self) -> Active<'_> {
        // Relaxed: `unpark_if_parked` fences before it reads the parker's state, which
        // orders this increment against the ticker's re-check.
        self.active.fetch_add(1, Ordering::Relaxed);
        self.parker.unpark_if_parked();
        Active(self)
    }
}

/// Marks a worker as busy for as long as it lives: the ticker keeps ticking.
pub(crate) struct Active<'a>(&'a Ticker);

impl Active<'static> {
    /// Enters the process's ticker; wakes it if it parked. Call [`try_start`] once
    /// before (else no thread ticks).
    pub(crate) fn enter() -> Active<'static> {
        ticker().enter()
    }
}

impl Drop for Active<'_> {
    fn drop(&mut self) {
        // Relaxed: the ticker only needs to see zero eventually (it then parks a little
        // later, or not at all).
        self.0.active.fetch_sub(1, Ordering::Relaxed);
    }
}
