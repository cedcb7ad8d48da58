//! The tick: a coarse clock that tells running loop bodies when to look up.
//!
//! This module owns one process-wide counter, the *epoch*, and the thread that advances it
//! every [`TICK`] while some helper of a data-parallel loop is running (the "ticker"). A
//! helper reads the epoch when it starts running items and checks, before each item, that it
//! has not moved ([`moved`]: one relaxed load, a hit in the helper's cache until the next
//! tick). When it has moved, the helper looks at the real clock (has its budget been spent?)
//! and at the stop flag of its loop. [`bump`] moves the epoch at once: a loop being stopped
//! calls it, so every running helper notices the stop before its next item.
//!
//! Why a ticker, not the clock: an item's cost can jump at any moment (a million 1 ns items,
//! then 1 ms ones), so a bound on the time a helper runs without looking up needs a check
//! before *every* item; reading the clock costs ~20 ns, far more than a nanosecond body,
//! while the epoch costs a load and a never-taken branch. What a per-item check does cost
//! is the unrolling it forbids (a multiply-hash sum ran 1.4x slower than rayon's unrolled
//! fold), so items measured cheap run in blocks of [`BLOCK`] between checks
//! ([`fold_while`]). Between two looks a helper runs at most one tick plus one item (or
//! one block).
//!
//! Invariants:
//! - the epoch only grows (wrapping after 2^64 ticks, which never happens);
//! - while [`Ticker::active`] is non-zero (a helper is inside a poll) the ticker is awake and
//!   bumps the epoch every [`TICK`] (modulo the OS scheduler); it parks only after
//!   [`IDLE_TICKS`] ticks with no active helper, and an entering helper that sees it parked
//!   (or about to park) unparks it: register, re-check, then wait ([`Ticker::park_while_idle`],
//!   [`Ticker::enter`]).
//!
//! The ticker also serves the task dump and the slow-poll watch: each tick it moves the
//! coarse clock of task stamps (`runtime/task/record.rs`) and scans the executors' poll slots
//! (`runtime/task/poll_watch.rs`); and every busy worker counts as active (it enters at the start
//! of a stretch of polls and leaves when it parks), so the clock moves and a stuck
//! poll is seen whenever some worker polls.
//!
//! The ticker sleeps on a [`Parker`], the type every filch thread sleeps on; its atomics go
//! through `crate::util::sync`, so the loom model `ticker_park_is_never_lost` (`loom_model.rs`)
//! runs this code. The epoch is a std atomic: a static read before every item, and no part
//! of the park.

use std::ops::Range;
// std's, not `crate::util::sync`'s: the epoch lives in a static (loom's atomics have no `const fn
// new`).
use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;
use std::thread;
use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::runtime::park::{NoReactor, Parker};
use crate::util::sync::{AtomicUsize, Ordering};

/// How often the ticker moves the epoch while helpers run.
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// Ticks without any active helper before the ticker parks (about 50 ms), so that a program
/// running loop after loop does not pay an unpark per loop.
const IDLE_TICKS: u32 = 50;

/// The epoch. Its own cache line: the helpers read it before every item.
static EPOCH: CachePadded<AtomicU64> = CachePadded::new(AtomicU64::new(0));

/// The process's ticker ([`ticker`]).
static TICKER: OnceLock<Ticker> = OnceLock::new();

/// Set once the ticker's thread started ([`ensure_started`]).
static STARTED: OnceLock<()> = OnceLock::new();

/// What the ticker thread and the helpers share: who is active, and where the ticker sleeps.
pub(crate) struct Ticker {
    /// Helpers inside a poll, in every executor of the process.
    active: AtomicUsize,
    /// Where the ticker sleeps once idle; entering helpers unpark it.
    parker: Parker<NoReactor>,
}

/// The process's ticker.
fn ticker() -> &'static Ticker {
    TICKER.get_or_init(Ticker::new)
}

/// The current epoch, to pass to [`moved`]. A helper calls it when it starts and when it
/// looks up, before it reads its loop's stop flag.
#[inline]
pub(crate) fn now() -> u64 {
    // Acquire: pairs with the Release of `bump` (the ticker's increments continue its
    // release sequence), so a helper that saw a stop's bump also sees the stop flag set
    // before it.
    EPOCH.load(Ordering::Acquire)
}

/// Whether the epoch moved since `seen` (a tick, or a [`bump`]).
#[inline(always)]
pub(crate) fn moved(seen: u64) -> bool {
    // Relaxed: only the change matters; the helper then calls `now` (Acquire) before it
    // reads anything the bump published.
    EPOCH.load(Ordering::Relaxed) != seen
}

/// Moves the epoch now, so that every running helper looks up before its next item.
pub(crate) fn bump() {
    // Release: pairs with the Acquire load in `now`, publishing what the caller did before
    // (a stop's flag).
    EPOCH.fetch_add(1, Ordering::Release);
}

/// Items run between two checks of the epoch when they are cheap: a block this long is
/// unrolled by the compiler as rayon's folds are, and a check costs a quarter of what it
/// would per item (`benches/par.rs` compares the loops with rayon's).
pub(crate) const BLOCK: usize = 4;

/// How a kind runs items until the next look-up: the epoch it must not see move, and
/// whether items are cheap enough to run [`BLOCK`] at a time between checks (else one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Watch {
    pub(crate) epoch: u64,
    pub(crate) blocks: bool,
}

/// Folds `f` over the indices of `part` in order, from `init`, as long as the epoch stays
/// `watch.epoch`: checked before each item, or before each [`BLOCK`] of items when
/// `watch.blocks`. Returns the fold and the first index not run (`part.end` if all ran).
/// A panic of `f` propagates.
#[inline(always)]
pub(crate) fn fold_while<A>(
    part: Range<usize>,
    watch: Watch,
    init: A,
    mut f: impl FnMut(A, usize) -> A,
) -> (A, usize) {
    let mut acc = init;
    let mut i = part.start;
    if watch.blocks {
        // `part.end - i` cannot underflow: `i <= part.end` throughout.
        while part.end - i >= BLOCK && !moved(watch.epoch) {
            for j in 0..BLOCK {
                acc = f(acc, i + j);
            }
            i += BLOCK;
        }
    }
    while i < part.end && !moved(watch.epoch) {
        acc = f(acc, i);
        i += 1;
    }
    (acc, i)
}

/// Calls `f` on the indices of `part` in order as [`fold_while`] does, and keeps `*done` at
/// the first index not completed: written when the call returns, or unwinds from a panic of
/// `f` (then `*done` is the index whose `f` panicked). The progress lives in a register
/// meanwhile, so the loop stores nothing but what `f` stores (a store to `*done` per item
/// could alias the results `f` writes, and would forbid vectorising them).
#[inline(always)]
pub(crate) fn for_each_while(
    part: Range<usize>,
    watch: Watch,
    done: &mut usize,
    mut f: impl FnMut(usize),
) -> usize {
    /// Writes the progress out on return and on unwind.
    struct Progress<'a> {
        next: usize,
        out: &'a mut usize,
    }
    impl Drop for Progress<'_> {
        fn drop(&mut self) {
            *self.out = self.next;
        }
    }
    let mut p = Progress {
        next: part.start,
        out: done,
    };
    if watch.blocks {
        // `part.end - p.next` cannot underflow: `p.next <= part.end` throughout.
        while part.end - p.next >= BLOCK && !moved(watch.epoch) {
            for _ in 0..BLOCK {
                f(p.next);
                p.next += 1;
            }
        }
    }
    while p.next < part.end && !moved(watch.epoch) {
        f(p.next);
        p.next += 1;
    }
    p.next
}

/// Starts the ticker if it is not running yet.
///
/// # Panics
///
/// If the thread cannot be started (the OS refused a thread); the next loop tries again.
pub(crate) fn ensure_started() {
    try_start().expect("filch: cannot start the data-parallel loops' tick thread");
}

/// Starts the ticker if it is not running yet; the OS's error if it refuses the thread (a
/// later call tries again). For `Builder::build`, which returns errors rather than panics.
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

/// The ticker's loop: bump every [`TICK`] while helpers are active, park when idle.
fn run(ticker: &Ticker) {
    let mut idle = 0;
    loop {
        thread::sleep(TICK);
        bump();
        crate::runtime::task::record::refresh(std::time::Instant::now());
        crate::runtime::task::poll_watch::scan_all();
        if ticker.is_active() {
            idle = 0;
            continue;
        }
        idle += 1;
        if idle < IDLE_TICKS {
            continue;
        }
        crate::runtime::task::record::mark_stale();
        ticker.park_while_idle();
        crate::runtime::task::record::refresh(std::time::Instant::now());
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

    /// Whether some helper is inside a poll.
    pub(super) fn is_active(&self) -> bool {
        // Relaxed: a look between ticks; the park's re-check is what orders against
        // `enter` (see `park_while_idle`).
        self.active.load(Ordering::Relaxed) != 0
    }

    /// The ticker's sleep once idle: until a helper enters (or spuriously; the loop then
    /// counts idle ticks again). Register, re-check, then wait: the parker registers as
    /// parked, fences, then reads `active`; `enter` increments `active`, fences, then reads
    /// the parker's state. Of the two fences one comes first, so either the re-check sees
    /// the helper and the ticker stays up, or the helper sees the ticker parked and unparks
    /// it (`Parker::park_condvar`, `Parker::unpark_if_parked`).
    pub(super) fn park_while_idle(&self) {
        // Relaxed: ordered by the parker's fence after it registers.
        self.parker
            .park_condvar(|| self.active.load(Ordering::Relaxed) != 0);
    }

    /// Marks a helper as active until the returned guard drops; wakes the ticker if it
    /// parked (see [`Ticker::park_while_idle`]).
    pub(super) fn enter(&self) -> Active<'_> {
        // Relaxed: `unpark_if_parked` fences before it reads the parker's state, which
        // orders this increment against the ticker's re-check.
        self.active.fetch_add(1, Ordering::Relaxed);
        self.parker.unpark_if_parked();
        Active(self)
    }
}

/// Marks a helper as running for as long as it lives (one poll): the ticker keeps ticking.
pub(crate) struct Active<'a>(&'a Ticker);

impl Active<'static> {
    /// Enters the process's ticker; wakes it if it parked. Call [`ensure_started`] once
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
