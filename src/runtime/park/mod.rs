//! The idle-worker coordinator ([`Idle`]): who is searching for work, who sleeps, and who
//! gets woken; and ([`parker`]) where a thread sleeps and how it is woken.
//!
//! The protocol, its invariants and the argument that no wake-up is lost are written out in
//! `README.md` beside this file; the comments here name the steps.
//!
//! A worker that books itself as sleeping registers an `event-listener` listener on its own
//! event first; whoever takes it out of `sleepers` notifies that event, and the listener's
//! waker is the worker's [`Parker`]: the notification's effect is an unpark, which ends the
//! worker's wait wherever it is (the IO driver's OS poll, or its condition variable).
//!
//! Invariants:
//! - `searching(state)` is the number of workers between a successful
//!   [`Idle::try_start_search`] (or a wake-up as searcher) and their [`Idle::end_search`]
//!   or [`Idle::park`]; `unparked(state)` is the number of workers not in `sleepers`.
//! - A worker index is in `sleepers` iff its slot's `sleeping` flag is set; both change only
//!   under the `sleepers` lock, together with `unparked(state)`.
//! - A worker's listener is registered before its index enters `sleepers`, and only the
//!   thread that takes the index out of `sleepers` notifies its event: a notification is
//!   never sent to nobody.

#[cfg(all(test, loom))]
pub(crate) mod loom_model;
pub(crate) mod parker;

use std::future::Future;
use std::pin::Pin;
use std::task::Context;

use crossbeam_utils::CachePadded;
use event_listener::{Event, EventListener};

use crate::util::fault::{self, Fault};
use crate::util::sync::{fence, AtomicBool, AtomicUsize, Mutex, Ordering};
pub(crate) use parker::{NoReactor, Parker, Reactor};

/// One unparked worker in `state`; the searching count lives in the bits below.
const UNPARKED_ONE: usize = 1 << (usize::BITS / 2);
/// Mask of the searching count in `state`.
const SEARCHING_MASK: usize = UNPARKED_ONE - 1;

fn searching(state: usize) -> usize {
    state & SEARCHING_MASK
}

fn unparked(state: usize) -> usize {
    state >> (usize::BITS / 2)
}

/// Per-worker parking slot.
struct WorkerPark {
    /// The event this worker's listener waits on. Only its notifier (see invariants) notifies it.
    event: Event,
    /// Set while the worker is in `sleepers`. Written under the lock; read without it by
    /// [`Idle::notify_worker`] after a SeqCst fence (pairs with the fence in [`Idle::park`]).
    sleeping: AtomicBool,
    /// Whether the thread that woke this worker counted it as a searcher. Written under the
    /// lock before the event is notified; read by the worker after its wait returns (the
    /// event's notify/wait pair orders the two).
    woken_as_searcher: AtomicBool,
}

/// The notifier shared by the workers of one executor.
pub(crate) struct Idle {
    /// `searching | unparked << (BITS / 2)`.
    state: AtomicUsize,
    /// Indices of the workers that are parked or about to park.
    sleepers: Mutex<Vec<usize>>,
    parks: Box<[CachePadded<WorkerPark>]>,
    workers: usize,
}

impl Parked {
    /// Whether the worker counts as a searcher after [`Idle::park`].
    pub(crate) fn searching(self) -> bool {
        matches!(self, Parked::WokenSearching | Parked::SkippedSearching)
    }
    /// Whether the worker really slept.
    pub(crate) fn slept(self) -> bool {
        matches!(self, Parked::Woken | Parked::WokenSearching)
    }
}

impl Idle {
    /// A notifier for `workers` workers, all awake and none searching.
    pub(crate) fn new(workers: usize) -> Idle {
        assert!(workers < SEARCHING_MASK, "too many workers");
        Idle {
            state: AtomicUsize::new(workers * UNPARKED_ONE),
            sleepers: Mutex::new(Vec::with_capacity(workers)),
            parks: (0..workers)
                .map(|_| {
                    CachePadded::new(WorkerPark {
                        event: Event::new(),
                        sleeping: AtomicBool::new(false),
                        woken_as_searcher: AtomicBool::new(false),
                    })
                })
                .collect(),
            workers,
        }
    }

    /// Tries to become a searcher (a worker allowed to steal). At most about half the
    /// workers search at once, so that a burst of idle workers does not hammer the deques.
    #[must_use]
    pub(crate) fn try_start_search(&self) -> bool {
        let mut state = self.state.load(Ordering::SeqCst);
        loop {
            // Why: the cap; a worker refused here parks after checking its own queues.
            if 2 * searching(state) >= self.workers {
                return false;
            }
            match self.state.compare_exchange_weak(
                state,
                state + 1,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => return true,
                // Why: another worker started or ended a search, or parked; retry on its value.
                Err(actual) => state = actual,
            }
        }
    }

    /// Stops searching because work was found. Returns `true` if this was the last
    /// searcher: pushes made meanwhile skipped their notification (they saw a searcher), so
    /// the caller must check for leftover work and call [`Idle::notify_work`] if any.
    #[must_use]
    pub(crate) fn end_search(&self) -> bool {
        let prev = self.state.fetch_sub(1, Ordering::SeqCst);
        debug_assert!(searching(prev) > 0);
        searching(prev) == 1
    }

    /// Called after work was pushed to a queue that any worker may take from.
    ///
    /// Wakes one sleeper as a searcher unless a worker is already searching (that one will
    /// find the work, or re-check before it parks) or nobody sleeps. The fence pairs with
    /// the fence in [`Idle::park`]: either the parker's re-check sees the push, or this
    /// load sees the parker's decrement of `state` (README, "No lost wake-up").
    pub(crate) fn notify_work(&self) {
        fence(Ordering::SeqCst);
        // Relaxed: ordered by the fence above against the parker's fence.
        let state = self.state.load(Ordering::Relaxed);
        if searching(state) == 0 && unparked(state) < self.workers {
            self.wake_one();
        }
    }

    /// As [`Idle::notify_work`], for work that only some sleepers can take: wakes one whose
    /// index `can_take` accepts (a fork-join piece, which a worker's stand-in booked under the
    /// worker's index does not take: `runtime/scheduler/forkjoin/publish.rs`).
    pub(crate) fn notify_work_for(&self, can_take: impl Fn(usize) -> bool) {
        fence(Ordering::SeqCst);
        // Relaxed: ordered by the fence above against the parker's fence.
        let state = self.state.load(Ordering::Relaxed);
        if searching(state) == 0 && unparked(state) < self.workers {
            let mut sleepers = self.sleepers.lock();
            // Why re-check: another pusher may have woken a searcher since our unlocked look.
            if searching(self.state.load(Ordering::SeqCst)) != 0 {
                return;
            }
            if let Some(pos) = sleepers.iter().rposition(|&w| can_take(w)) {
                let index = sleepers.swap_remove(pos);
                self.wake_locked(index, true);
                drop(sleepers);
                self.parks[index].event.notify(1);
            }
        }
    }

    /// Called after work was pushed to worker `index`'s own inbox: wakes that worker if it
    /// sleeps (not as a searcher: its work is waiting for it), else behaves as
    /// [`Idle::notify_work`] so that idle workers may help.
    pub(crate) fn notify_worker(&self, index: usize) {
        fence(Ordering::SeqCst);
        let park = &self.parks[index];
        // Relaxed: ordered by the fence above against the fence in `park` (README).
        if park.sleeping.load(Ordering::Relaxed) {
            let mut sleepers = self.sleepers.lock();
            if let Some(pos) = sleepers.iter().position(|&w| w == index) {
                sleepers.swap_remove(pos);
                self.wake_locked(index, false);
                drop(sleepers);
                park.event.notify(1);
                return;
            }
        }
        // Relaxed: ordered by the fence at the top against the parker's fence, as in
        // `notify_work`.
        let state = self.state.load(Ordering::Relaxed);
        if searching(state) == 0 && unparked(state) < self.workers {
            self.wake_one();
        }
    }

    /// Wakes one sleeping worker as a searcher, if one sleeps and nobody searches.
    fn wake_one(&self) {
        let mut sleepers = self.sleepers.lock();
        // Why re-check: another pusher may have woken a searcher since our unlocked look.
        if searching(self.state.load(Ordering::SeqCst)) != 0 {
            return;
        }
        if let Some(index) = sleepers.pop() {
            self.wake_locked(index, true);
            drop(sleepers);
            self.parks[index].event.notify(1);
        }
    }

    /// Books worker `index` as awake; the caller holds the `sleepers` lock, has removed
    /// `index` from it, and notifies the event after unlocking.
    fn wake_locked(&self, index: usize, as_searcher: bool) {
        let park = &self.parks[index];
        // Relaxed: both written under the lock; see the field docs for their readers.
        park.sleeping.store(false, Ordering::Relaxed);
        park.woken_as_searcher.store(as_searcher, Ordering::Relaxed);
        self.state
            .fetch_add(UNPARKED_ONE + usize::from(as_searcher), Ordering::SeqCst);
    }

    /// Wakes every sleeping worker (shutdown).
    pub(crate) fn wake_all(&self) {
        let mut sleepers = self.sleepers.lock();
        let woken: Vec<usize> = sleepers.drain(..).collect();
        for &index in &woken {
            self.wake_locked(index, false);
        }
        drop(sleepers);
        for index in woken {
            self.parks[index].event.notify(1);
        }
    }

    /// Parks worker `index` until it is woken, unless `has_work` finds work after the worker
    /// is booked as sleeping (steps 1–5, `README.md`). `searching` says whether the worker
    /// was a searcher. Returns how the park ended ([`Parked`]): whether the worker slept or
    /// its re-check found work, and whether it is a searcher now (it was woken, or taken
    /// back, as one). On return the worker is counted as unparked again.
    ///
    /// `has_work` must look at every queue the worker could take from, and at the shutdown
    /// flag.
    ///
    /// `booked` holds the worker's listener from its booking to its wake-up: the re-check
    /// and the sleep may unwind (a panicking waker, run by a driver turn in the re-check or
    /// by the OS poll the worker sleeps in), and the caller, whose drop sees the listener
    /// still there, gives the booking back with [`Idle::unbook_unwound`]. The worker loop
    /// and the loom models call this one composition.
    pub(crate) fn park<R: Reactor>(
        &self,
        index: usize,
        searching: bool,
        parker: &Parker<R>,
        has_work: impl FnOnce() -> bool,
        booked: &mut Option<EventListener>,
    ) -> Parked {
        let listener = booked.insert(self.book(index, searching));
        // Step 3: re-check every queue. The fence pairs with the one in `notify_work` /
        // `notify_worker`: a push we miss here saw our booking and wakes us.
        fence(Ordering::SeqCst);
        if has_work() {
            let listener = booked.take().expect("booked above");
            return self.unbook(index, listener, parker);
        }
        if fault::fires(Fault::Park, None) {
            panic!("filch test: a fault injected into a parked worker");
        }
        let parked = self.sleep(index, listener, parker);
        *booked = None;
        parked
    }

    /// Gives back the booking of a worker whose thread unwound out of [`Idle::park`]
    /// (`booked` still holds its listener), as a wake-up would; `None` if `park` was not
    /// left booked.
    pub(crate) fn unbook_unwound<R: Reactor>(
        &self,
        index: usize,
        booked: &mut Option<EventListener>,
        parker: &Parker<R>,
    ) -> Option<Parked> {
        booked
            .take()
            .map(|listener| self.unbook(index, listener, parker))
    }

    /// Steps 1–2 of [`Idle::park`]: registers the worker's listener, then books the worker
    /// as sleeping (out of the unparked and searching counts, into `sleepers`).
    fn book(&self, index: usize, searching: bool) -> EventListener {
        let park = &self.parks[index];
        // Step 1: register the listener before anyone can find us in `sleepers`.
        let listener = park.event.listen();
        // Step 2: book ourselves as sleeping, together with the counts.
        let mut sleepers = self.sleepers.lock();
        self.state
            .fetch_sub(UNPARKED_ONE + usize::from(searching), Ordering::SeqCst);
        sleepers.push(index);
        // Relaxed: ordered for `notify_worker` by the fence in `park`.
        park.sleeping.store(true, Ordering::Relaxed);
        listener
    }

    /// Step 5 of the park: sleeps on `parker` (in the IO driver's OS poll when the worker
    /// gets it, else on its condition variable) until `listener`, of [`Idle::book`], is
    /// notified; returns how the worker was woken. The listener's waker is the parker's:
    /// the notification unparks it.
    ///
    /// Events the driver delivers while the worker waits there run their wakers on this
    /// thread; if one panics, this unwinds with the worker still booked: the caller keeps
    /// `listener` to give the booking back ([`Idle::unbook`]).
    fn sleep<R: Reactor>(
        &self,
        index: usize,
        listener: &mut EventListener,
        parker: &Parker<R>,
    ) -> Parked {
        until_notified(listener, parker, Parker::park);
        self.woken(index)
    }

    /// Takes back a worker booked as sleeping by [`Idle::book`] that will not wait
    /// for its listener after all (its re-check found work, or its thread unwound out of
    /// [`Idle::sleep`]): restores the counts as a wake-up would.
    fn unbook<R: Reactor>(
        &self,
        index: usize,
        mut listener: EventListener,
        parker: &Parker<R>,
    ) -> Parked {
        let park = &self.parks[index];
        let mut sleepers = self.sleepers.lock();
        if let Some(pos) = sleepers.iter().position(|&w| w == index) {
            // Nobody woke us yet: take ourselves back, not as a searcher.
            sleepers.swap_remove(pos);
            self.wake_locked(index, false);
            return Parked::Skipped;
        }
        // A notifier already took us out and booked us awake (perhaps as a searcher). It
        // notifies our event after unlocking, maybe not yet: wait for that notification
        // here, so that it cannot reach a listener of a later park (which would then return
        // while still booked in `sleepers`). The wait is short: the notifier is between its
        // unlock and its `notify`. On the condition variable only: no IO event is
        // delivered here, so this runs no waker (it also runs while unwinding).
        drop(sleepers);
        until_notified(&mut listener, parker, |parker| {
            parker.park_condvar(|| false)
        });
        // Relaxed: written under the lock we just held.
        if park.woken_as_searcher.load(Ordering::Relaxed) {
            Parked::SkippedSearching
        } else {
            Parked::Skipped
        }
    }

    /// Whether every worker is booked as sleeping: the paused clock's test that the workers
    /// are idle (`runtime/scheduler/auto_advance.rs`), made by a worker in its re-check (after its own
    /// booking and fence) or by a thread that just went idle.
    #[cfg(feature = "test-util")]
    pub(crate) fn all_parked(&self) -> bool {
        // SeqCst: the booking's decrement and this load order a parking worker against a
        // thread that goes idle (`runtime/scheduler/auto_advance.rs`, "Who advances").
        unparked(self.state.load(Ordering::SeqCst)) == 0
    }

    /// How many workers are searching for work now: a hint for fork-join, which publishes a
    /// piece for stealing while searchers outnumber the pieces on offer
    /// (`runtime/scheduler/forkjoin/thread.rs`). One relaxed load.
    #[inline]
    pub(crate) fn searching(&self) -> usize {
        // Relaxed: a hint; a publication that misses a searcher is made at the next
        // heartbeat, and the publisher's notification fences on its own.
        searching(self.state.load(Ordering::Relaxed))
    }

    /// How many workers are booked as sleeping now: a hint for fork-join, which wakes one for a
    /// long piece when nobody else wants work (`runtime/scheduler/forkjoin/thread.rs`). One
    /// relaxed load.
    #[inline]
    pub(crate) fn sleeping(&self) -> usize {
        // Relaxed: a hint; the publication that follows notifies with its own fence.
        self.workers - unparked(self.state.load(Ordering::Relaxed))
    }

    /// `(searching, unparked)` (the loom models' end-of-run check).
    #[cfg(all(test, loom))]
    pub(crate) fn counts(&self) -> (usize, usize) {
        let state = self.state.load(Ordering::SeqCst);
        (searching(state), unparked(state))
    }

    /// The workers booked as sleeping, sorted (white-box tests only).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn sleepers(&self) -> Vec<usize> {
        let mut sleepers = self.sleepers.lock().clone();
        sleepers.sort_unstable();
        sleepers
    }

    /// After the listener of [`Idle::book`] fired: how the worker was woken.
    fn woken(&self, index: usize) -> Parked {
        // Relaxed: written before the notification the listener received.
        if self.parks[index].woken_as_searcher.load(Ordering::Relaxed) {
            Parked::WokenSearching
        } else {
            Parked::Woken
        }
    }
}

/// Polls `listener` with `parker`'s waker until it is notified, calling `park` between polls
/// (a park may return early: the poll re-checks).
fn until_notified<R: Reactor>(
    listener: &mut EventListener,
    parker: &Parker<R>,
    park: impl Fn(&Parker<R>),
) {
    let mut cx = Context::from_waker(parker.waker());
    while Pin::new(&mut *listener).poll(&mut cx).is_pending() {
        park(parker);
    }
}

/// How [`Idle::park`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parked {
    /// The re-check found work; the worker never slept and is not a searcher.
    Skipped,
    /// The re-check found work, but a notifier had already booked the worker awake as a
    /// searcher: it only waited for that notifier's notification, and counts in `searching`.
    SkippedSearching,
    /// Woken by a targeted wake-up or shutdown; not a searcher.
    Woken,
    /// Woken as a searcher: it counts in `searching` and must call `end_search` or park.
    WokenSearching,
}
