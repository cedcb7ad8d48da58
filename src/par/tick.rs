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
//! - while [`ACTIVE`] is non-zero (a helper is inside a poll) the ticker is awake and bumps
//!   the epoch every [`TICK`] (modulo the OS scheduler); it parks only after
//!   [`IDLE_TICKS`] ticks with no active helper, and an entering helper that sees it parked
//!   (or about to park) unparks it: register, re-check, then wait (see [`Active::enter`]).
//!
//! The atomics here are `std`'s even under `cfg(loom)`: statics, and no loom model
//! involves them (the models cover `steal_range.rs`).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::thread::{self, Thread};
use std::time::Duration;

use crossbeam_utils::CachePadded;

/// How often the ticker moves the epoch while helpers run.
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// Ticks without any active helper before the ticker parks (about 50 ms), so that a program
/// running loop after loop does not pay an unpark per loop.
const IDLE_TICKS: u32 = 50;

/// The epoch. Its own cache line: the helpers read it before every item.
static EPOCH: CachePadded<AtomicU64> = CachePadded::new(AtomicU64::new(0));

/// Helpers inside a poll, in every executor of the process.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// Set by the ticker just before it parks, cleared when it wakes up.
static PARKED: AtomicBool = AtomicBool::new(false);

/// The ticker thread, started by the first loop.
static TICKER: OnceLock<Thread> = OnceLock::new();

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
/// unrolled by the compiler as rayon's folds are. 4 was measured against 8 and 16 on a
/// multiply-hash sum (4 was fastest, 1.5x the speed of a check per item).
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
    TICKER.get_or_init(|| {
        thread::Builder::new()
            .name("filch-par-tick".to_owned())
            .spawn(run)
            .expect("filch: cannot start the data-parallel loops' tick thread")
            .thread()
            .clone()
    });
}

/// The ticker's loop: bump every [`TICK`] while helpers are active, park when idle.
fn run() {
    let mut idle = 0;
    loop {
        thread::sleep(TICK);
        bump();
        // SeqCst: the ticker's side of the store-load pair in `Active::enter` (below).
        if ACTIVE.load(Ordering::SeqCst) != 0 {
            idle = 0;
            continue;
        }
        idle += 1;
        if idle < IDLE_TICKS {
            continue;
        }
        // Register, re-check, wait. SeqCst on both sides (this store then the load of
        // ACTIVE; the helper's increment of ACTIVE then its load of PARKED): in the single
        // total order one of the two loads sees the other side's write, so either the
        // ticker stays up or the helper unparks it (an unpark before `park` is kept).
        PARKED.store(true, Ordering::SeqCst);
        if ACTIVE.load(Ordering::SeqCst) == 0 {
            // A spurious return is harmless: the loop re-checks.
            thread::park();
        }
        PARKED.store(false, Ordering::SeqCst);
        idle = 0;
    }
}

/// Marks a helper as running for as long as it lives (one poll): the ticker keeps ticking.
pub(crate) struct Active(());

impl Active {
    /// Enters; wakes the ticker if it parked. Call [`ensure_started`] once before.
    pub(crate) fn enter() -> Active {
        // SeqCst: pairs with the ticker's PARKED store and ACTIVE load (see `run`).
        ACTIVE.fetch_add(1, Ordering::SeqCst);
        // SeqCst: as above.
        if PARKED.load(Ordering::SeqCst) {
            if let Some(ticker) = TICKER.get() {
                ticker.unpark();
            }
        }
        Active(())
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        // Relaxed would do (the ticker only needs to see zero eventually); SeqCst keeps the
        // reasoning about ACTIVE in one total order.
        ACTIVE.fetch_sub(1, Ordering::SeqCst);
    }
}
