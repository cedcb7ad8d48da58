//! Each worker's stand-in slot and its phases (`mod.rs` says what a stand-in is for);
//! `serve.rs` holds the stand-in thread's body, `hold.rs` when a slot is activated.
//!
//! A slot is *activated* when its worker's poll is held (`hold.rs`: the epoch ticker's claim
//! after a tick, or `block_in_place` at once): its *server*, a thread of the executor's
//! started on first need and kept for the executor's life, then serves the worker's slot until
//! that poll ends and the worker *releases* it:
//! - it takes tasks from the worker's inbox, the injector, and every worker's deque and
//!   inbox (its own slot's included), one at a time, and polls them with a fresh budget;
//! - it turns the driver without blocking when it finds none, and parks *as the worker*
//!   (booked in the notifier under the worker's index, in the driver's OS poll if nobody
//!   holds it), so a wake-up aimed at the worker reaches it;
//! - while it serves it runs no fork-join piece (the pool stays the workers' size) and none
//!   of the worker's pinned tasks (bound to the worker's own thread: they wait for the poll
//!   to end); tasks it wakes or spawns go to the injector. A whole call on the board that no
//!   worker may take soon (every worker in a poll that is no fork-join work) it runs once
//!   it handed the slot on (`serve.rs`, `run_a_call`), as a worker would.
//!
//! A task that the stand-in polls may itself call `block_in_place`, `join`, `scope` or a
//! parallel iterator (`serve.rs`, `hand_off_while`): the stand-in then hands the slot to a
//! new thread (*hand-off*: the new thread becomes the slot's *server*; if the worker's poll
//! ended meanwhile, the slot is left with no server and its next activation starts one), runs
//! the call, finishes that poll, and exits; as tokio's `block_in_place` on a thread that took over a
//! core hands that core on. A poll of the stand-in that holds it for a tick, whatever it
//! does, has the epoch ticker hand the slot to a new server in the same way
//! ([`StandIns::hand_off_if_held`]), so no poll of a stand-in keeps the slot unserved either.
//!
//! **Invariants:** a slot's stand-in is booked in the notifier only while the slot is
//! `Active`: a release marks the slot, then wakes the stand-in if it is booked and waits
//! until it left its park (`parking` clear), so the worker never finds its booking taken when
//! it parks again. The release and the stand-in's re-check pair through SeqCst (the
//! `active` flag, then the notifier's fences): either the re-check sees the release, or the
//! release sees the booking. A slot is activated ([`StandIns::hand_over`]: by the ticker, or
//! by the worker's thread in `block_in_place`) and released (by the worker's thread) under
//! its lock, and only for a poll whose hold word the activation claimed, so a release
//! always finds the activation of its poll complete. Only the slot's server serves it or
//! parks as the worker: a thread that handed the slot off leaves `serve` at its next look
//! and exits. So a slot has one thread, plus one for each call that blocks a thread that
//! was its stand-in.

use std::io;
use std::sync::Arc;
use std::thread::{self, ThreadId};

use super::hold::Hold;
use crate::runtime::park::Idle;
use crate::util::sync::{AtomicBool, AtomicU64, AtomicUsize, Condvar, Mutex, Ordering};

/// Where a slot's stand-in is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// Not serving (its thread, if started, waits to be activated).
    Dormant,
    /// Serving the worker's slot.
    Active,
    /// Told to stop serving; goes dormant at its next look.
    Releasing,
}

struct SlotState {
    phase: Phase,
    /// Set while the stand-in is inside its park (booked, or about to be, in the notifier).
    parking: bool,
    /// The slot's threads: its server, once started, and those that handed it off and have
    /// not been joined yet.
    threads: Vec<thread::JoinHandle<()>>,
    /// The thread that serves the slot (or waits to be activated), once started.
    server: Option<ThreadId>,
    /// The hold word of the server's polls (`hold.rs`): a poll of the server that holds it
    /// for a tick has the ticker hand the slot to a new server
    /// ([`StandIns::hand_off_if_held`]).
    server_hold: Option<Arc<Hold>>,
    /// Set at shutdown: the threads exit.
    exit: bool,
}

/// One worker's stand-in.
struct StandinSlot {
    state: Mutex<SlotState>,
    changed: Condvar,
    /// `phase == Active`, readable without the lock (SeqCst: module invariants).
    active: AtomicBool,
    /// Task polls made by the slot's servers, for the worker's statistics (`Stats`): a
    /// read-modify-write, since a server that handed the slot off may count its last poll
    /// while the next one counts.
    polls: AtomicU64,
}

/// Starts a stand-in thread for a slot.
pub(crate) type StandinStart<'a> = &'a dyn Fn() -> io::Result<thread::JoinHandle<()>>;

/// The stand-ins of one executor, one slot per worker.
pub(crate) struct StandIns {
    slots: Box<[StandinSlot]>,
    /// Slots `Active` now (a hint: a count of the sleepers in the notifier that run no
    /// fork-join piece).
    active: AtomicUsize,
}

impl StandIns {
    /// Counts a task poll made by a server of slot `index`.
    pub(crate) fn count_poll(&self, index: usize) {
        // Relaxed: a statistic; it pairs with nothing.
        self.slots[index].polls.fetch_add(1, Ordering::Relaxed);
    }

    /// The task polls made by the servers of slot `index` so far.
    pub(crate) fn polls(&self, index: usize) -> u64 {
        // Relaxed: a statistic (see `count_poll`).
        self.slots[index].polls.load(Ordering::Relaxed)
    }

    pub(crate) fn new(workers: usize) -> StandIns {
        StandIns {
            slots: (0..workers)
                .map(|_| StandinSlot {
                    state: Mutex::new(SlotState {
                        phase: Phase::Dormant,
                        parking: false,
                        threads: Vec::new(),
                        server: None,
                        server_hold: None,
                        exit: false,
                    }),
                    changed: Condvar::new(),
                    active: AtomicBool::new(false),
                    polls: AtomicU64::new(0),
                })
                .collect(),
            active: AtomicUsize::new(0),
        }
    }

    /// How many slots are `Active` (a hint: one relaxed load).
    pub(crate) fn active(&self) -> usize {
        // Relaxed: a hint for fork-join's publication rule.
        self.active.load(Ordering::Relaxed)
    }

    /// Whether worker `index`'s stand-in serves its slot now (the stand-in's own check
    /// between two tasks, and the worker's before it activates or releases).
    pub(crate) fn is_active(&self, index: usize) -> bool {
        // SeqCst: module invariants.
        self.slots[index].active.load(Ordering::SeqCst)
    }

    /// Whether some worker's stand-in serves its slot now: a held poll is in flight on that
    /// worker's thread, while the notifier books the stand-in's state under the worker's
    /// index (the paused clock's idle test, `runtime/scheduler/auto_advance.rs`). SeqCst
    /// loads, after the caller's SeqCst fence: a stand-in's re-check, made after it booked
    /// itself sleeping, sees the activation that let it serve.
    #[cfg(feature = "test-util")]
    pub(crate) fn any_active(&self) -> bool {
        // SeqCst: see above, and the module invariants.
        self.slots
            .iter()
            .any(|slot| slot.active.load(Ordering::SeqCst))
    }

    /// Makes worker `index`'s stand-in serve its slot if `claim` (run under the slot's lock:
    /// the claim of the worker's hold word, `hold.rs`) succeeds; `start` starts its server if
    /// it has none yet (if that fails, the slot stays dormant: the held poll goes on without
    /// a stand-in, and its end releases nothing).
    pub(crate) fn hand_over(
        &self,
        index: usize,
        claim: impl FnOnce() -> bool,
        start: StandinStart<'_>,
    ) {
        let slot = &self.slots[index];
        let mut st = slot.state.lock();
        if st.exit || !claim() || st.phase == Phase::Active {
            return;
        }
        if st.server.is_none() && !start_server(&mut st, start) {
            return;
        }
        st.phase = Phase::Active;
        // SeqCst: module invariants.
        slot.active.store(true, Ordering::SeqCst);
        // Relaxed: a hint (`active`).
        self.active.fetch_add(1, Ordering::Relaxed);
        drop(st);
        slot.changed.notify_all();
    }

    /// Ends the stand-in's service of worker `index`'s slot, if it serves it (the end of a
    /// held poll, on the worker's thread): once this returns, the stand-in is not booked in
    /// `idle` under `index` and will not be again until activated (module invariants).
    pub(crate) fn release(&self, idle: &Idle, index: usize) {
        let slot = &self.slots[index];
        // Under the lock: an activation of this poll, which the ticker may still be making,
        // is complete before this looks (module invariants).
        let mut st = slot.state.lock();
        if st.phase != Phase::Active {
            return;
        }
        st.phase = Phase::Releasing;
        // SeqCst: paired with the stand-in's re-check (module invariants).
        slot.active.store(false, Ordering::SeqCst);
        // Relaxed: a hint (`active`).
        self.active.fetch_sub(1, Ordering::Relaxed);
        // Wakes the stand-in if it is booked under `index` (its fence pairs with the re-check).
        idle.notify_worker(index);
        while st.parking {
            st = slot.changed.wait(st);
        }
        drop(st);
        slot.changed.notify_all();
    }

    /// Hands worker `index`'s slot, which the calling thread serves, to a new server started
    /// by `start` (module docs). If the slot is not `Active` (its worker's poll ended while
    /// the caller's own went on) the caller leaves it without a server, and the slot's next
    /// activation starts one: a thread about to block must not stay the server that an
    /// activation would count on. `false` if the caller does not serve the slot, at shutdown,
    /// or if the new thread cannot start (the caller then goes on serving it).
    pub(crate) fn hand_off(&self, index: usize, start: StandinStart<'_>) -> bool {
        let slot = &self.slots[index];
        let mut st = slot.state.lock();
        if st.exit || st.server != Some(thread::current().id()) {
            return false;
        }
        if st.phase != Phase::Active {
            st.server = None;
            st.server_hold = None;
            return true;
        }
        // The threads that handed off earlier and have exited since.
        st.threads.retain(|thread| !thread.is_finished());
        start_server(&mut st, start)
    }

    /// The ticker's look at the poll in flight on worker `index`'s server: if it has held the
    /// server since the ticker's last look while the slot is `Active`, the ticker claims it
    /// and hands the slot to a new server started by `start`; the old one leaves once that
    /// poll returns ([`StandIns::is_server`]). If the new thread cannot start, the old server
    /// goes on serving.
    pub(crate) fn hand_off_if_held(&self, index: usize, due: u64, start: StandinStart<'_>) {
        let slot = &self.slots[index];
        let mut st = slot.state.lock();
        if st.exit || st.phase != Phase::Active {
            return;
        }
        let Some(hold) = st.server_hold.clone() else {
            return;
        };
        if let Some(word) = hold.held_since_last_look(due) {
            if hold.claim_if_held(word) {
                st.threads.retain(|thread| !thread.is_finished());
                start_server(&mut st, start);
            }
        }
    }

    /// The hold word of the calling thread's polls, if it is worker `index`'s server.
    pub(crate) fn server_hold(&self, index: usize) -> Option<Arc<Hold>> {
        let st = self.slots[index].state.lock();
        (st.server == Some(thread::current().id()))
            .then(|| st.server_hold.clone())
            .flatten()
    }

    /// Whether the calling thread is worker `index`'s server (not one that handed it off).
    pub(crate) fn is_server(&self, index: usize) -> bool {
        self.slots[index].state.lock().server == Some(thread::current().id())
    }

    /// Stops every stand-in thread and joins those that are not the calling thread
    /// (shutdown, once the workers exited).
    pub(crate) fn shutdown(&self) {
        let me = thread::current().id();
        for slot in self.slots.iter() {
            let mut st = slot.state.lock();
            st.exit = true;
            if st.phase == Phase::Active {
                // Relaxed: a hint (`active`).
                self.active.fetch_sub(1, Ordering::Relaxed);
            }
            st.phase = Phase::Dormant;
            // SeqCst: module invariants.
            slot.active.store(false, Ordering::SeqCst);
            let threads = std::mem::take(&mut st.threads);
            drop(st);
            slot.changed.notify_all();
            for thread in threads {
                if thread.thread().id() != me {
                    // The thread catches the panics of what it runs; an error here could only
                    // come from a bug, with nothing to recover.
                    let _ = thread.join();
                }
            }
        }
    }

    /// A stand-in thread's wait while dormant: `true` once activated, `false` if it must exit
    /// (shutdown, or it is no longer the slot's server: it handed the slot off).
    pub(crate) fn wait_until_active(&self, index: usize) -> bool {
        let slot = &self.slots[index];
        let me = thread::current().id();
        let mut st = slot.state.lock();
        loop {
            if st.exit || st.server != Some(me) {
                return false;
            }
            match st.phase {
                Phase::Active => return true,
                Phase::Releasing => st.phase = Phase::Dormant,
                Phase::Dormant => {}
            }
            st = slot.changed.wait(st);
        }
    }

    /// The stand-in is about to park as worker `index`: `false` if it no longer serves (then
    /// it must not park).
    pub(crate) fn begin_park(&self, index: usize) -> bool {
        let mut st = self.slots[index].state.lock();
        if st.phase != Phase::Active || st.exit {
            return false;
        }
        st.parking = true;
        true
    }

    /// The stand-in left its park (a waiting release goes on).
    pub(crate) fn end_park(&self, index: usize) {
        let slot = &self.slots[index];
        let mut st = slot.state.lock();
        st.parking = false;
        drop(st);
        slot.changed.notify_all();
    }
}

/// Starts a slot's new server with `start`; `false` if it cannot start. `st` is the slot's
/// state, locked.
fn start_server(st: &mut SlotState, start: StandinStart<'_>) -> bool {
    match start() {
        Ok(thread) => {
            st.server = Some(thread.thread().id());
            st.server_hold = Some(Arc::new(Hold::new()));
            st.threads.push(thread);
            true
        }
        Err(_) => false,
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{mpsc, Arc, Mutex};
    use std::thread;

    use super::StandIns;
    use crate::runtime::park::Idle;

    /// A server that hands its slot off after its worker's poll ended (a stand-in that takes
    /// a whole call and blocks in it) leaves the slot: the next activation starts a new
    /// server rather than counting on the blocked one.
    #[test]
    fn a_hand_off_after_the_release_leaves_the_slot_to_a_new_server() {
        let standins = Arc::new(StandIns::new(1));
        let idle = Idle::new(1);
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (handed_tx, handed_rx) = mpsc::channel::<bool>();
        let first = Mutex::new(Some((go_rx, handed_tx, Arc::clone(&standins))));
        let start_first = || {
            let (go, handed, standins) = first.lock().unwrap().take().expect("one start");
            Ok(thread::spawn(move || {
                go.recv().unwrap();
                let never = || -> std::io::Result<thread::JoinHandle<()>> {
                    panic!("no new server for a slot that is not active")
                };
                handed.send(standins.hand_off(0, &never)).unwrap();
            }))
        };
        standins.hand_over(0, || true, &start_first);
        assert!(standins.is_active(0));
        // The worker's poll ends: the slot is released while its server is in a poll.
        standins.release(&idle, 0);
        go_tx.send(()).unwrap();
        assert!(
            handed_rx.recv().unwrap(),
            "the server still serves the slot it is about to block in"
        );
        // The worker's next held poll: a new server takes the slot.
        let starts = AtomicUsize::new(0);
        let start_second = || {
            starts.fetch_add(1, Ordering::SeqCst);
            Ok(thread::spawn(|| {}))
        };
        standins.hand_over(0, || true, &start_second);
        assert!(standins.is_active(0));
        assert_eq!(
            starts.load(Ordering::SeqCst),
            1,
            "no new server was started"
        );
        standins.shutdown();
    }
}
