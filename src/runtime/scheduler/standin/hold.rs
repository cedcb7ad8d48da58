//! The hold word of each worker (`mod.rs`): which poll runs there and whether it is held;
//! `hand_over.rs` holds the epoch ticker's scan of it, and what a claim and a poll's end do.
//!
//! A worker brackets each task poll and each fork-join piece it runs from the board with
//! [`Hold::begin`] and [`Hold::end`]: the word's sequence number counts them, and its
//! `IN_POLL` bit is set between the two. Every tick (1 ms, while some worker is busy) the
//! ticker's thread reads each worker's word (`hand_over.rs`, `scan`). From the second tick
//! that sees the same poll in flight, it adds up the time the poll has *held* its worker
//! since the tick before: the CPU time its thread got (its CPU-time clock, one system call),
//! and, once [`BLOCKED_SAMPLES`] looks in a row found it blocked (in a system call, a lock,
//! a sleep: fewer may have caught a lock whose holder waits for a CPU on a busy machine), the
//! time between looks; its state is read (a file) only when it ran for less than half the
//! time since the last look. All as the kernel reports them
//! (`runtime/observe/thread_state.rs`, as the slow-poll watch does); where the thread cannot
//! be sampled, every tick counts. Time the thread spends waiting for a CPU (preempted on a
//! busy machine) does not count: a stand-in would only add a thread that waits for a CPU
//! too. Once a poll has held its worker for [`HOLD_BEFORE_HAND_OVER`] (or the executor's
//! `Builder::hand_over_after`), the ticker *claims* it (sets `HELD` with a compare-and-swap,
//! which fails if the poll ended meanwhile) and activates the worker's stand-in, both under
//! the stand-in slot's lock. So a poll that runs is handed over 1-2 ms after it began, one
//! that blocks 3-4 ms after. `task::block_in_place` claims its own poll at once
//! (`hand_over_now`).
//!
//! The poll's end clears both bits with a plain store, then reads `claimed`, the word of the
//! poll the ticker claimed last: if it is this poll's, the worker releases its stand-in
//! before it does anything else (its release takes the slot's lock, so it waits for a
//! claim's activation to finish). While `HELD` is set, the worker's schedule function sends
//! what it wakes or spawns to the injector (`worker/schedule.rs`, one relaxed load of the
//! word).
//!
//! **Cost:** two plain stores and two loads per poll, on a cache line that only its worker
//! writes but for a claim, and no read-modify-write; the ticker reads each word once a tick,
//! and a claim costs it a process-wide barrier (`util/asym_fence.rs`).
//!
//! **Orderings:** a claim and a poll's end are the two sides of an asymmetric Dekker pair
//! (`util/asym_fence.rs`). The claim sets `HELD` with a compare-and-swap (which fails if the
//! poll ended or another began), stores the poll's word in `claimed`, calls the heavy
//! barrier, and reads the word again: the claim holds only if the poll is still in flight
//! then. The end stores the cleared word, calls the light barrier, and reads `claimed`. So
//! when the claim holds, the end sees it (the end's load comes after its store, which the
//! claim's second read did not see); when the end misses a claim, the claim's second read
//! sees the end and the claim fails. The end may also see a claim that then failed (its
//! store came between the claim's compare-and-swap and its second read): its release then
//! finds no active slot and does nothing. The sequence number in both words tells a poll
//! from every later one. The activation a claim guards is ordered by the slot's lock, not
//! by the words.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::runtime::observe::thread_state;
use crate::util::sync::{AtomicU32, AtomicU64, Ordering};

/// How long a poll holds its worker (running or blocked, not waiting for a CPU) before the
/// ticker hands it over, unless `Builder::hand_over_after` says otherwise: a tick.
pub(crate) const HOLD_BEFORE_HAND_OVER: Duration = crate::runtime::time::epoch::TICK;

/// A poll (or piece) runs.
const IN_POLL: u64 = 1;
/// The poll was claimed: the worker's stand-in serves in its place until the poll ends.
const HELD: u64 = 2;
/// One step of the sequence number (the bits above the two flags).
const SEQ_ONE: u64 = 4;

/// One worker's hold word, and what the ticker saw of it (module docs).
pub(crate) struct Hold {
    /// `sequence * SEQ_ONE | HELD | IN_POLL`. Written by the worker; the ticker sets `HELD`.
    word: AtomicU64,
    /// The word (`sequence * SEQ_ONE | IN_POLL`) of the poll claimed last; 0 before any.
    /// Written by a claim, read by the poll's end (module docs, "Orderings").
    claimed: AtomicU64,
    /// The word at the ticker's last scan. This and the fields below are the ticker's own
    /// (relaxed atomics only because the struct is shared).
    seen: AtomicU64,
    /// How long the poll in `seen` has held its thread, in nanoseconds, as far as sampled.
    held_ns: AtomicU64,
    /// When the ticker last sampled the poll's thread (nanoseconds since [`base`]).
    sampled_at: AtomicU64,
    /// The thread's CPU time at that sample, in nanoseconds.
    cpu_ns: AtomicU64,
    /// How many looks in a row found the thread blocked.
    blocked: AtomicU32,
    /// The kernel's id of the thread that writes the word (0: not known).
    tid: AtomicU32,
}

/// A store of the handshake between a claim and a poll's end (module docs, "Orderings"):
/// relaxed, the asymmetric fence's barriers order it. Under loom, which models no barrier
/// pair, an AcqRel swap: with [`handshake_load`]'s AcqRel read-modify-write, the chain of
/// reads gives the pair's guarantee (one side sees the other), which loom checks.
#[inline(always)]
fn handshake_store(word: &AtomicU64, value: u64) {
    #[cfg(not(loom))]
    word.store(value, Ordering::Relaxed);
    #[cfg(loom)]
    word.swap(value, Ordering::AcqRel);
}

/// A load of the handshake (see [`handshake_store`]).
#[inline(always)]
fn handshake_load(word: &AtomicU64) -> u64 {
    #[cfg(not(loom))]
    return word.load(Ordering::Relaxed);
    #[cfg(loom)]
    return word.fetch_add(0, Ordering::AcqRel);
}

/// How many looks in a row after the first sighting must find a poll's thread blocked before
/// the time between them counts as held (module docs): a poll blocked from its start is
/// handed over 3-4 ms after it began.
const BLOCKED_SAMPLES: u32 = 3;

/// The ticker's time base for `sampled_at`.
fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

impl Hold {
    pub(crate) fn new() -> Hold {
        // Before the threads that use the word start (`util/asym_fence.rs`).
        crate::util::asym_fence::init();
        Hold {
            word: AtomicU64::new(0),
            claimed: AtomicU64::new(0),
            seen: AtomicU64::new(0),
            held_ns: AtomicU64::new(0),
            sampled_at: AtomicU64::new(0),
            cpu_ns: AtomicU64::new(0),
            blocked: AtomicU32::new(0),
            tid: AtomicU32::new(0),
        }
    }

    /// Records the calling thread as the one whose polls this word brackets (the worker at
    /// its start, a stand-in's server when it starts serving).
    pub(crate) fn set_thread(&self) {
        // Relaxed: the ticker reads it for a sample only; a sample of an unknown thread
        // (0) counts the wall clock.
        self.tid
            .store(thread_state::current_tid(), Ordering::Relaxed);
    }

    /// The worker starts a poll or a piece. Only the worker writes the word while `IN_POLL`
    /// is clear (a claim needs it set), so a load and a store are enough.
    #[inline]
    pub(crate) fn begin(&self) {
        // Relaxed: the ticker only compares the value, and its claim is a compare-and-swap
        // against what it read (module docs).
        let word = self.word.load(Ordering::Relaxed);
        self.word.store(
            (word & !(IN_POLL | HELD)) + SEQ_ONE + IN_POLL,
            Ordering::Relaxed,
        );
    }

    /// The worker's poll or piece ended: whether it was held (the worker then releases its
    /// stand-in, `hand_over.rs`, `hand_back`).
    #[inline]
    pub(crate) fn end(&self) -> bool {
        // Relaxed: this thread's own last store, with perhaps a claim's `HELD` on top.
        let poll = self.word.load(Ordering::Relaxed) & !HELD;
        // The light side of the asymmetric pair orders this store and the load below
        // against the claim's store and second read (module docs, "Orderings").
        handshake_store(&self.word, poll & !IN_POLL);
        crate::util::asym_fence::light();
        handshake_load(&self.claimed) == poll
    }

    /// Whether the worker is in a poll (or a fork-join piece) now (a hint: one relaxed load).
    #[inline]
    pub(crate) fn in_poll(&self) -> bool {
        // Relaxed: a hint; a stand-in's choice to take a whole call (`serve.rs`).
        self.word.load(Ordering::Relaxed) & IN_POLL != 0
    }

    /// Whether the worker's poll in flight is held: what it wakes or spawns goes to the
    /// injector (a hint: one relaxed load; a wake made before the claim that it misses goes
    /// where it would have gone anyway, `mod.rs`).
    #[inline]
    pub(crate) fn is_held(&self) -> bool {
        // Relaxed: a hint (see above).
        self.word.load(Ordering::Relaxed) & HELD != 0
    }

    /// The ticker's look at this word: `true` if it claimed the poll in flight (set `HELD`),
    /// which it did if it saw the same poll at its last look. Call it under the worker's
    /// stand-in slot's lock (`StandIns::hand_over`).
    pub(super) fn claim_if_held(&self, word: u64) -> bool {
        // Relaxed, here and below: the heavy side of the asymmetric pair orders the store of
        // `claimed` and the second read against the poll's end (module docs, "Orderings").
        // Fails if the poll ended (or another began).
        if self
            .word
            .compare_exchange(word, word | HELD, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        handshake_store(&self.claimed, word);
        crate::util::asym_fence::heavy();
        // The poll is still in flight: its end will see `claimed`.
        handshake_load(&self.word) == word | HELD
    }

    /// The ticker's look (module docs): the word, if a poll runs, not held, that has held
    /// its thread for `due` nanoseconds by the ticker's samples (then the ticker claims
    /// it); records what it saw for the next look.
    pub(super) fn held_since_last_look(&self, due: u64) -> Option<u64> {
        // Relaxed, here and below: a first look, and the ticker's own fields; the claim's
        // compare-and-swap decides.
        let word = self.word.load(Ordering::Relaxed);
        let before = self.seen.swap(word, Ordering::Relaxed);
        if word & (IN_POLL | HELD) != IN_POLL {
            return None;
        }
        let now = u64::try_from(base().elapsed().as_nanos()).unwrap_or(u64::MAX);
        let tid = self.tid.load(Ordering::Relaxed);
        let cpu = thread_state::cpu_time(tid);
        let last_at = self.sampled_at.swap(now, Ordering::Relaxed);
        let last_cpu = self.cpu_ns.swap(cpu.unwrap_or(0), Ordering::Relaxed);
        if before != word {
            // The first sighting of this poll: its count starts here.
            self.held_ns.store(0, Ordering::Relaxed);
            self.blocked.store(0, Ordering::Relaxed);
            return None;
        }
        let since = now.saturating_sub(last_at);
        let held = match cpu {
            // Not known: the whole time since the last look.
            None => since,
            Some(cpu) => {
                let ran = cpu.saturating_sub(last_cpu);
                // A thread that ran for less than half the time since the last look is
                // blocked or waits for a CPU: only then is its state read (a file read,
                // where the clock was one system call).
                let blocked = if ran.saturating_mul(2) < since
                    && thread_state::sample(tid).is_some_and(|sample| sample.blocked)
                {
                    self.blocked.load(Ordering::Relaxed).saturating_add(1)
                } else {
                    0
                };
                self.blocked.store(blocked, Ordering::Relaxed);
                if blocked >= BLOCKED_SAMPLES {
                    // Blocked at this look and the ones before: the time since the last.
                    since
                } else {
                    ran
                }
            }
        };
        let held = self.held_ns.load(Ordering::Relaxed).saturating_add(held);
        self.held_ns.store(held, Ordering::Relaxed);
        (held >= due).then_some(word)
    }

    /// Claims the poll in flight unconditionally (`block_in_place`, on the worker's own
    /// thread, inside the poll): under the slot's lock.
    pub(super) fn claim_now(&self) {
        // Relaxed: on the thread whose poll's end reads both words; a ticker's claim of the
        // same poll sets the same bit and stores the same `claimed`.
        let poll = self.word.fetch_or(HELD, Ordering::Relaxed) & !HELD;
        self.claimed.store(poll, Ordering::Relaxed);
    }
}
