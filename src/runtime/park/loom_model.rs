//! Loom models of the park/notify protocol (`runtime/park/`): two workers and a pusher that is no
//! worker, over tiny loom-modelled queues. Proves no lost wake-up: every pushed item is
//! taken and every thread terminates. A lost wake-up leaves a worker parked forever while an
//! item waits, the pusher's `join` never returns, and loom reports the deadlock.
//!
//! The models run the shipped coordinator ([`Idle`], and its park composition
//! [`Idle::park`] that the worker loop calls), the shipped [`Parker`] and event-listener
//! (its `loom` feature); what stands in for the rest is the worker loop's search, over
//! queues modelled by their lengths, and the IO driver, a
//! [`Reactor`] stub (`Stub`): a try-lock, an OS poll that an IO event or a wake ends, and
//! the delivery of that event.
//!
//! Run with
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 CARGO_TARGET_DIR=target/loom cargo test --release
//! --lib loom`.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use super::{Idle, Parker, Reactor};
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use loom::sync::{Arc, Mutex, Notify};
use loom::thread;

const WORKERS: usize = 2;

/// A queue modelled by its length: pushing adds one, taking removes one if any.
struct Queue(AtomicUsize);

impl Queue {
    fn new() -> Queue {
        Queue(AtomicUsize::new(0))
    }

    fn push(&self) {
        self.0.fetch_add(1, SeqCst);
    }

    fn try_take(&self) -> bool {
        let mut n = self.0.load(SeqCst);
        loop {
            if n == 0 {
                return false;
            }
            match self.0.compare_exchange(n, n - 1, SeqCst, SeqCst) {
                Ok(_) => return true,
                Err(actual) => n = actual,
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.0.load(SeqCst) == 0
    }
}

/// What the workers and the pusher share.
struct ParkModel {
    idle: Idle,
    /// The injector: any worker takes from it in its own search step.
    injector: Queue,
    /// Per-worker inboxes (WS-LAST): the owner takes from its own, searchers from others'.
    inboxes: [Queue; WORKERS],
    /// Per-worker pinned queues (`runtime/scheduler/pinned/worker_side.rs`): only the owner takes from
    /// its own; no searcher can help, so a lost wake-up of the owner is never covered by another.
    pinned: [Queue; WORKERS],
    /// Items taken so far.
    taken: AtomicUsize,
    /// Items the model will push in all (by the pusher and by workers).
    total: usize,
    /// Set by the worker that takes the last item; every worker then exits.
    done: AtomicBool,
    /// Items a worker pushes itself (to the injector) when it takes an item, while this
    /// count is positive: a task spawning work from inside a worker.
    respawn: AtomicUsize,
    /// Parks that unwind out of their wait (a panicking waker run by the driver a parked
    /// worker waits in): the worker gives back its booking (`Idle::unbook`, as the worker
    /// loop's drop does) and starts its loop again.
    unwinds: AtomicUsize,
}

impl ParkModel {
    fn new(total: usize, respawn: usize) -> Arc<ParkModel> {
        ParkModel::with_unwinds(total, respawn, 0)
    }

    fn with_unwinds(total: usize, respawn: usize, unwinds: usize) -> Arc<ParkModel> {
        Arc::new(ParkModel {
            idle: Idle::new(WORKERS),
            injector: Queue::new(),
            inboxes: [Queue::new(), Queue::new()],
            pinned: [Queue::new(), Queue::new()],
            taken: AtomicUsize::new(0),
            total,
            done: AtomicBool::new(false),
            respawn: AtomicUsize::new(respawn),
            unwinds: AtomicUsize::new(unwinds),
        })
    }

    /// The re-check before sleeping: every queue, and the termination flag.
    fn has_work(&self) -> bool {
        self.done.load(SeqCst)
            || !self.injector.is_empty()
            || self.inboxes.iter().any(|q| !q.is_empty())
    }

    /// A worker's own steps: its pinned queue, its inbox, then the injector.
    fn take_own(&self, index: usize) -> bool {
        self.pinned[index].try_take() || self.inboxes[index].try_take() || self.injector.try_take()
    }

    /// Worker `index`'s re-check before it sleeps: the shared queues and its own pinned
    /// queue (`WorkerLoop::park`'s closure).
    fn recheck(&self, index: usize) -> bool {
        self.has_work() || !self.pinned[index].is_empty()
    }

    /// The searcher's step: the other workers' inboxes, then the injector.
    fn steal(&self, index: usize) -> bool {
        (0..WORKERS).any(|v| v != index && self.inboxes[v].try_take()) || self.injector.try_take()
    }

    /// Runs an item: maybe pushes a follow-up from this worker; the last item ends the model.
    fn process(&self) {
        let left = self.respawn.load(SeqCst);
        if left > 0
            && self
                .respawn
                .compare_exchange(left, left - 1, SeqCst, SeqCst)
                .is_ok()
        {
            self.injector.push();
            self.idle.notify_work();
        }
        if self.taken.fetch_add(1, SeqCst) + 1 == self.total {
            self.done.store(true, SeqCst);
            self.idle.wake_all();
        }
    }

    /// Whether this park unwinds (one of `unwinds`).
    fn take_unwind(&self) -> bool {
        let left = self.unwinds.load(SeqCst);
        left > 0
            && self
                .unwinds
                .compare_exchange(left, left - 1, SeqCst, SeqCst)
                .is_ok()
    }

    /// The worker loop of `runtime/scheduler/worker/mod.rs`, reduced to the parking protocol: the
    /// same calls to the coordinator, sleeping on `parker`; `busy_turn` after each item stands
    /// for a busy worker's non-blocking driver turn.
    fn worker<R: Reactor>(&self, index: usize, parker: &Parker<R>, busy_turn: &dyn Fn()) {
        let mut searching = false;
        loop {
            if self.done.load(SeqCst) {
                break;
            }
            let found = self.take_own(index) || {
                if !searching {
                    searching = self.idle.try_start_search();
                }
                searching && self.steal(index)
            };
            if found {
                if searching {
                    searching = false;
                    // The last searcher to find work wakes another if work is left over.
                    if self.idle.end_search() && self.has_work() {
                        self.idle.notify_work();
                    }
                }
                self.process();
                busy_turn();
                continue;
            }
            // The shipped composition (`Idle::park`, as `WorkerLoop::park` calls it); an
            // unwinding park is a re-check that unwinds (a panicking waker run by a driver
            // turn there), after which the caller gives the booking back, as the worker
            // loop's drop does.
            let unwind = self.take_unwind();
            let mut booked = None;
            let park = catch_unwind(AssertUnwindSafe(|| {
                self.idle.park(
                    index,
                    searching,
                    parker,
                    || {
                        if unwind {
                            // `resume_unwind`: no panic hook, no message per interleaving.
                            resume_unwind(Box::new("a panicking waker"));
                        }
                        self.recheck(index)
                    },
                    &mut booked,
                )
            }));
            let parked = match park {
                Ok(parked) => parked,
                Err(_) => self
                    .idle
                    .unbook_unwound(index, &mut booked, parker)
                    .expect("a park that unwound left its booking"),
            };
            searching = parked.searching();
            if !parked.slept() {
                // The re-check saw work that another thread may take first (e.g. the
                // other worker's inbox while the search cap keeps us from stealing): the
                // real worker spins here; tell loom so that it lets the others progress.
                thread::yield_now();
            }
        }
        if searching {
            let _ = self.idle.end_search();
        }
    }
}

/// Starts the workers, runs `push` on the model's main thread (the pusher, no worker),
/// joins the workers and checks that every item was taken exactly once.
fn run_model(total: usize, respawn: usize, push: fn(&ParkModel)) {
    run_model_unwinding(total, respawn, 0, push)
}

/// [`run_model`] where the first `unwinds` parks unwind out of their wait. Also checks that
/// the notifier's counts are exact at the end: every worker unparked, none searching.
fn run_model_unwinding(total: usize, respawn: usize, unwinds: usize, push: fn(&ParkModel)) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(move || {
        let model = ParkModel::with_unwinds(total, respawn, unwinds);
        let workers: Vec<_> = (0..WORKERS)
            .map(|index| {
                let model = Arc::clone(&model);
                thread::spawn(move || model.worker(index, &Parker::new(), &|| {}))
            })
            .collect();
        push(&model);
        for worker in workers {
            worker.join().unwrap();
        }
        assert_eq!(model.taken.load(SeqCst), total);
        assert!(model.injector.is_empty());
        assert!(model.inboxes.iter().all(Queue::is_empty));
        assert!(model.pinned.iter().all(Queue::is_empty));
        assert_eq!(
            model.idle.counts(),
            (0, WORKERS),
            "(searching, unparked) at the end"
        );
    });
}

/// A worker unwinds out of its park (issue 8, defect 8) while pushes arrive from outside:
/// its booking is given back, no wake-up is lost, and the counts stay exact.
#[test]
fn a_park_that_unwinds_gives_its_booking_back() {
    run_model_unwinding(2, 0, 1, |model| {
        for target in 0..2 {
            model.inboxes[target].push();
            model.idle.notify_worker(target);
        }
    });
}

/// Pushes from outside to the injector, waking a searcher (`Shared::schedule_remote`).
#[test]
fn remote_pushes_are_never_lost() {
    run_model(2, 0, |model| {
        for _ in 0..2 {
            model.injector.push();
            model.idle.notify_work();
        }
    });
}

/// Targeted pushes to each worker's inbox (`WakePolicy::LastWorker` from another thread).
#[test]
fn targeted_pushes_are_never_lost() {
    run_model(2, 0, |model| {
        for target in 0..2 {
            model.inboxes[target].push();
            model.idle.notify_worker(target);
        }
    });
}

/// Pinned tasks woken from a thread that is no worker (`runtime/scheduler/pinned/worker_side.rs`'s
/// `push_pinned`: a push to the worker's pinned queue, then `notify_worker`) while their workers
/// park: only the owner can take each, so the wake-up must reach that worker, never only a
/// searcher.
#[test]
fn pinned_wakes_from_another_thread_are_never_lost() {
    run_model(2, 0, |model| {
        for target in [1, 0] {
            model.pinned[target].push();
            model.idle.notify_worker(target);
        }
    });
}

/// Two wakes of a task pinned to one worker, while the other worker may be searching: the
/// searcher finds nothing it may take, and the owner still wakes for both.
#[test]
fn pinned_wakes_to_one_worker_are_never_lost() {
    run_model(2, 0, |model| {
        for _ in 0..2 {
            model.pinned[1].push();
            model.idle.notify_worker(1);
        }
    });
}

/// One push from outside; the worker that takes it pushes a follow-up itself while the
/// other worker may be parking (a task spawning from a worker).
#[test]
fn pushes_from_a_worker_are_never_lost() {
    run_model(2, 1, |model| {
        model.injector.push();
        model.idle.notify_work();
    });
}

/// One `notify_work` grants the searcher role at most once: a worker that the notifier took
/// out of `sleepers` while it was re-checking (so it returns from `park` without sleeping)
/// must not be woken a second time, from a later `park`, by that same notification.
///
/// The worker's first re-check waits for the push, so that the notifier finds it booked
/// and in its re-check; loom then needs a single preemption (between the notifier's unlock
/// of `sleepers` and its `event.notify`) to reach the interleaving.
#[test]
fn one_notification_wakes_at_most_once() {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(|| {
        let sleep = Arc::new(Idle::new(1));
        let rechecking = Arc::new(AtomicBool::new(false));
        let pushed = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicBool::new(false));
        let worker = {
            let (sleep, done) = (Arc::clone(&sleep), Arc::clone(&done));
            let (rechecking, pushed) = (Arc::clone(&rechecking), Arc::clone(&pushed));
            thread::spawn(move || {
                let parker = Parker::new();
                let mut booked = None;
                let first = sleep.park(
                    0,
                    false,
                    &parker,
                    || {
                        rechecking.store(true, SeqCst);
                        while !pushed.load(SeqCst) {
                            thread::yield_now();
                        }
                        true
                    },
                    &mut booked,
                );
                let mut grants = vec![first];
                let mut searching = first.searching();
                // Later parks wait only for the end of the model.
                while !done.load(SeqCst) {
                    let parked =
                        sleep.park(0, searching, &parker, || done.load(SeqCst), &mut booked);
                    grants.push(parked);
                    searching = parked.searching();
                }
                grants
            })
        };
        while !rechecking.load(SeqCst) {
            thread::yield_now();
        }
        pushed.store(true, SeqCst);
        sleep.notify_work();
        done.store(true, SeqCst);
        sleep.wake_all();
        let grants = worker.join().unwrap();
        let searcher_grants = grants.iter().filter(|p| p.searching()).count();
        assert!(
            searcher_grants <= 1,
            "one notify_work made the worker a searcher {searcher_grants} times: {grants:?}"
        );
    });
}

/// The IO driver, as a parker's [`Reactor`]: a try-lock, the OS poll (a `Notify`: the
/// driver's `mio::Waker` and an IO event both end the wait, and a permit left before the
/// wait ends it at once, as a ready descriptor or a pending eventfd write does), and an IO
/// event whose delivery runs `on_event` on the thread that holds the driver.
///
/// It is also the driver of the paused clock's model (`runtime/scheduler/loom_model.rs`), whose
/// holder runs a hook after each wait, as the shipped driver runs its auto-advance.
pub(crate) struct Stub {
    /// The try-lock. An atomic flag rather than loom's `Mutex`, whose `try_lock` blocks the
    /// model's thread while the lock is held.
    lock: AtomicBool,
    poll: Notify,
    /// An IO event that is ready in the OS and not yet delivered (the OS's ready list,
    /// behind its lock). A loom `Mutex` rather than an atomic: with an `AtomicBool` here
    /// loom 0.7 reported executions in which the main thread's own load after its store
    /// read the older value, which no memory model allows.
    io_event: Mutex<bool>,
    /// What delivering the IO event does (the waker of the task it readies).
    on_event: Box<dyn Fn() + Send + Sync>,
    /// What the holder runs after each wait (the shipped driver's `after_wait`), if set.
    after_wait: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>>,
}

/// Holds [`Stub`]'s try-lock; lets go when dropped.
pub(crate) struct HeldFlag<'a>(&'a AtomicBool);

impl Drop for HeldFlag<'_> {
    fn drop(&mut self) {
        self.0.store(false, SeqCst);
    }
}

impl Stub {
    /// A stub shared as a parker's reactor is (a std `Arc`).
    pub(crate) fn new(on_event: Box<dyn Fn() + Send + Sync>) -> std::sync::Arc<Stub> {
        std::sync::Arc::new(Stub {
            lock: AtomicBool::new(false),
            poll: Notify::new(),
            io_event: Mutex::new(false),
            on_event,
            after_wait: std::sync::OnceLock::new(),
        })
    }

    /// Sets what the holder runs after each wait (once).
    pub(crate) fn set_after_wait(&self, hook: Box<dyn Fn() + Send + Sync>) {
        let _ = self.after_wait.set(hook);
    }

    /// Makes the IO event ready in the OS, which ends the driver holder's wait.
    pub(crate) fn ready(&self) {
        *self.io_event.lock().unwrap() = true;
        self.poll.notify();
    }

    /// Delivers the IO event if it is ready (the holder's part of a turn); whether it did.
    pub(crate) fn deliver(&self) -> bool {
        let ready = std::mem::take(&mut *self.io_event.lock().unwrap());
        if ready {
            (self.on_event)();
        }
        ready
    }

    /// A busy worker's turn that does not block: deliver what is ready, if the driver is
    /// free.
    fn busy_turn(&self) {
        if let Some(_held) = self.try_hold() {
            self.deliver();
        }
    }
}

impl Reactor for Stub {
    type Held<'a> = HeldFlag<'a>;

    fn try_hold(&self) -> Option<HeldFlag<'_>> {
        self.lock
            .compare_exchange(false, true, SeqCst, SeqCst)
            .is_ok()
            .then(|| HeldFlag(&self.lock))
    }

    fn wait(&self, _held: &mut HeldFlag<'_>, woke: impl FnOnce()) {
        self.poll.wait();
        woke();
        self.deliver();
        if let Some(hook) = self.after_wait.get() {
            hook();
        }
    }

    fn wake(&self) {
        self.poll.notify();
    }

    fn turn_now(&self, _held: &mut HeldFlag<'_>) -> bool {
        self.deliver()
    }
}

/// The parking path that ships: two workers whose parks wait in the driver (whoever gets
/// it) or on their parker's condition variable, a remote push to the injector, and an IO
/// event that only the thread holding the driver can deliver (to worker 1's inbox, as the
/// schedule function places a task woken by a parked worker's driver under `LastWorker`).
/// Every item must be taken and every thread must end: a lost wake-up of the driver holder,
/// or an IO event left undelivered while every worker sleeps, is a deadlock loom reports.
#[test]
fn driver_holder_is_never_lost() {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(|| {
        let model = ParkModel::new(2, 0);
        let driver = {
            let model = Arc::clone(&model);
            Stub::new(Box::new(move || {
                model.inboxes[1].push();
                model.idle.notify_worker(1);
            }))
        };
        let workers: Vec<_> = (0..WORKERS)
            .map(|index| {
                let model = Arc::clone(&model);
                let driver = std::sync::Arc::clone(&driver);
                thread::spawn(move || {
                    let parker = Parker::with_reactor(std::sync::Arc::clone(&driver));
                    model.worker(index, &parker, &|| driver.busy_turn());
                })
            })
            .collect();
        driver.ready();
        // The remote push.
        model.injector.push();
        model.idle.notify_work();
        for worker in workers {
            worker.join().unwrap();
        }
        assert_eq!(model.taken.load(SeqCst), 2);
    });
}

/// The parker alone: two threads each wait on their own parker, sharing one driver (so one
/// of them may wait in it while the other waits on its condition variable), for a round
/// counter that the main thread advances before it wakes the parker's waker, twice (so that
/// a thread parks again after a wake-up, and may find the driver taken or free). An unpark
/// racing a park, on either path, must never be lost: a lost one leaves its thread asleep
/// with its round already set, and loom reports the deadlock.
#[test]
fn parker_never_loses_an_unpark() {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(|| {
        let driver = Stub::new(Box::new(|| {}));
        let sides: Vec<_> = (0..2)
            .map(|_| {
                (
                    std::sync::Arc::new(Parker::with_reactor(std::sync::Arc::clone(&driver))),
                    Arc::new(AtomicUsize::new(0)),
                )
            })
            .collect();
        let threads: Vec<_> = sides
            .iter()
            .map(|(parker, round)| {
                let (parker, round) = (std::sync::Arc::clone(parker), Arc::clone(round));
                thread::spawn(move || {
                    for want in 1..=2 {
                        while round.load(SeqCst) < want {
                            parker.park();
                        }
                    }
                })
            })
            .collect();
        for next in 1..=2 {
            for (parker, round) in &sides {
                round.store(next, SeqCst);
                parker.waker().wake_by_ref();
            }
        }
        for thread in threads {
            thread.join().unwrap();
        }
    });
}
