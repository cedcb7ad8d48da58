//! [`Parker`]: where one filch thread sleeps and how it is woken. Each worker has one, and
//! so do the epoch ticker (`runtime/time/epoch.rs`) and every thread blocked in `block_on`. One state
//! word says where the thread sleeps, so that whoever wakes it knows how to end that wait
//! (the model is tokio's `runtime/scheduler/multi_thread/park.rs`).
//!
//! A parker made [`Parker::with_reactor`] waits in the reactor's OS poll (the executor's
//! driver stack, `runtime/driver/mod.rs`) when no other thread holds it (a try-lock hand-off), else
//! on its own condition variable; one made with [`Parker::new`] has only the condition
//! variable. Only the thread that owns a parker parks on it; any thread may unpark it
//! through its [`Waker`] ([`Parker::waker`]), or with [`Parker::unpark_if_parked`].
//!
//! # The state word
//!
//! - `EMPTY`: no unpark is pending, and the thread is not asleep.
//! - `PARKED_CONDVAR`: the thread sleeps on `condvar`, or is about to: it holds `mutex` from
//!   before it sets this state until the condition variable's wait releases it.
//! - `PARKED_DRIVER`: the thread waits in the OS poll of the reactor it holds, or is about to.
//! - `NOTIFIED`: an unpark came that no park has consumed yet.
//!
//! Only the parking thread writes `EMPTY` (when it consumes `NOTIFIED`, and when its wait
//! ends: in the reactor, as soon as the OS poll returns, before the events are delivered)
//! and moves `EMPTY` to a `PARKED_*` state. An unpark only writes `NOTIFIED`: it swaps it in
//! whatever the state was, then ends the wait the old state names.
//!
//! # No lost wake-up
//!
//! A park sets `PARKED_*` by a compare-and-swap from `EMPTY`, so an unpark that came before it
//! (which left `NOTIFIED`) makes the park return at once. An unpark that comes after it sees
//! the `PARKED_*` state and ends that wait:
//! - `PARKED_CONDVAR`: the unparker takes and releases `mutex` before it notifies the
//!   condition variable; the sleeper held `mutex` from its compare-and-swap until its wait
//!   began, so the notification cannot come before the wait;
//! - `PARKED_DRIVER`: the unparker wakes the reactor, and a wake that comes before the OS
//!   wait makes that wait return at once (the driver's eventfd write stays pending).
//!
//! A park that returns may not have been unparked (a spurious wake-up of the condition
//! variable; an OS poll that ended for an IO event or a timer): callers re-check what they
//! wait for and park again.
//!
//! # Memory ordering
//!
//! Every access to the state word is SeqCst. An unpark is a swap (a release even when the
//! state already was `NOTIFIED`), and a park consumes `NOTIFIED` with a read-modify-write
//! that reads it (an acquire), so what the unparker wrote before `unpark` is visible to the
//! parked thread once its park returns. [`Parker::park_condvar`]'s re-check and
//! [`Parker::unpark_if_parked`] add a SeqCst fence each (register, re-check, then sleep; see
//! there).
//!
//! The loom models run this code: in `loom_model.rs` with a stub reactor
//! (`parker_never_loses_an_unpark`, `driver_holder_is_never_lost`, and the coordinator's
//! models), in `runtime/time/loom_model.rs` the ticker's re-checked park
//! (`ticker_park_is_never_lost`).

use std::sync::Arc;
use std::task::{Wake, Waker};

use crate::util::sync::{fence, AtomicUsize, Condvar, Mutex, Ordering};

/// No unpark pending; the thread is awake.
const EMPTY: usize = 0;
/// The thread sleeps (or is about to) on the condition variable.
const PARKED_CONDVAR: usize = 1;
/// The thread waits (or is about to) in the reactor's OS poll.
const PARKED_DRIVER: usize = 2;
/// An unpark came that no park consumed yet.
const NOTIFIED: usize = 3;

/// The name of a state word, for messages.
fn state_name(state: usize) -> &'static str {
    match state {
        EMPTY => "EMPTY",
        PARKED_CONDVAR => "PARKED_CONDVAR",
        PARKED_DRIVER => "PARKED_DRIVER",
        NOTIFIED => "NOTIFIED",
        _ => "invalid",
    }
}

/// The OS poll a parker can wait in: the executor's driver stack (`driver::Driver`), or a
/// stub in the loom models. At most one thread holds it at a time.
pub(crate) trait Reactor: Send + Sync + 'static {
    /// The proof of holding it (the try-lock's guard).
    type Held<'a>
    where
        Self: 'a;

    /// Takes the reactor if no other thread holds it and it can still be waited in (it has
    /// not shut down).
    fn try_hold(&self) -> Option<Self::Held<'_>>;

    /// Waits in the OS poll until an event, a [`Reactor::wake`] or the next timer; calls
    /// `woke` once the wait is over, then delivers what came (runs wakers).
    fn wait(&self, held: &mut Self::Held<'_>, woke: impl FnOnce());

    /// Ends the wait in the OS poll, or makes the next one return at once.
    fn wake(&self);

    /// A turn that does not block, by the thread holding it: delivers what the OS has
    /// ready now (runs wakers); whether it woke anything. The paused clock's jump comes
    /// only after such a turn found nothing (`runtime/scheduler/auto_advance.rs`).
    fn turn_now(&self, held: &mut Self::Held<'_>) -> bool;
}

/// The reactor of a parker that has none ([`Parker::new`]): it cannot be made.
pub(crate) enum NoReactor {}

impl Reactor for NoReactor {
    type Held<'a> = NoReactor;

    fn try_hold(&self) -> Option<NoReactor> {
        match *self {}
    }

    fn wait(&self, held: &mut NoReactor, _woke: impl FnOnce()) {
        match *held {}
    }

    fn wake(&self) {
        match *self {}
    }

    fn turn_now(&self, held: &mut NoReactor) -> bool {
        match *held {}
    }
}

/// One thread's parker (module docs).
pub(crate) struct Parker<R: Reactor> {
    inner: Arc<Inner<R>>,
    /// A waker that unparks this parker.
    waker: Waker,
}

/// What the parker and its waker share.
struct Inner<R> {
    /// `EMPTY`, `PARKED_CONDVAR`, `PARKED_DRIVER` or `NOTIFIED` (module docs).
    state: AtomicUsize,
    /// Held by a thread going to sleep on `condvar` from before it sets `PARKED_CONDVAR`;
    /// taken (and let go) by an unparker before it notifies `condvar`.
    mutex: Mutex<()>,
    condvar: Condvar,
    /// The OS poll this parker may wait in, if any.
    reactor: Option<Arc<R>>,
}

impl Parker<NoReactor> {
    /// A parker that waits on its condition variable only.
    pub(crate) fn new() -> Parker<NoReactor> {
        Parker::make(None)
    }
}

impl<R: Reactor> Parker<R> {
    /// A parker that waits in `reactor` when no other thread holds it, else on its condition
    /// variable.
    pub(crate) fn with_reactor(reactor: Arc<R>) -> Parker<R> {
        Parker::make(Some(reactor))
    }

    fn make(reactor: Option<Arc<R>>) -> Parker<R> {
        let inner = Arc::new(Inner {
            state: AtomicUsize::new(EMPTY),
            mutex: Mutex::new(()),
            condvar: Condvar::new(),
            reactor,
        });
        let waker = Waker::from(Arc::clone(&inner));
        Parker { inner, waker }
    }

    /// A waker whose wake unparks this parker: the thread parked here wakes, or its next
    /// park returns at once.
    pub(crate) fn waker(&self) -> &Waker {
        &self.waker
    }

    /// Sleeps until unparked (or spuriously): in the reactor's OS poll if this parker has
    /// one and no other thread holds it, else on the condition variable. Returns at once if
    /// an unpark came since the last park returned. Only the owning thread parks.
    ///
    /// A wait in the reactor delivers the events it took before returning (their wakers run
    /// on this thread); a panic of one of them unwinds out of `park`, leaving the parker
    /// awake (`EMPTY`, or `NOTIFIED`).
    pub(crate) fn park(&self) {
        let inner = &*self.inner;
        if inner.consume_notified() {
            return;
        }
        if let Some(reactor) = inner.reactor.as_deref() {
            if let Some(mut held) = reactor.try_hold() {
                inner.park_driver(reactor, &mut held);
                return;
            }
        }
        inner.park_condvar(|| false);
    }

    /// Sleeps on the condition variable only (never in the reactor), unless `ready` holds
    /// once the parker is registered as parked, or until unparked (or spuriously).
    ///
    /// Register, re-check, then sleep: `ready` runs after the state says `PARKED_CONDVAR`
    /// and a SeqCst fence. A thread that makes `ready` true and then calls
    /// [`Parker::unpark_if_parked`] (which fences before it reads the state) either is seen
    /// by `ready`, or sees the parker parked and unparks it.
    pub(crate) fn park_condvar(&self, ready: impl FnOnce() -> bool) {
        let inner = &*self.inner;
        if inner.consume_notified() {
            return;
        }
        inner.park_condvar(ready);
    }

    /// Unparks the parker if it is parked (or about to park), else does nothing: cheaper
    /// than a wake of its waker (a load, no write) for a caller that does this often. Only
    /// sound against a park made with [`Parker::park_condvar`] whose `ready` sees what the
    /// caller did before: the fence here pairs with the one after that park registers.
    pub(crate) fn unpark_if_parked(&self) {
        let inner = &*self.inner;
        fence(Ordering::SeqCst);
        // Relaxed: ordered by the fence above against the fence in `Inner::park_condvar`.
        if matches!(
            inner.state.load(Ordering::Relaxed),
            PARKED_CONDVAR | PARKED_DRIVER
        ) {
            inner.unpark();
        }
    }
}

impl<R: Reactor> Inner<R> {
    /// Consumes a pending unpark; `true` if there was one.
    fn consume_notified(&self) -> bool {
        self.state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Waits in the reactor's OS poll (held by this thread).
    fn park_driver(&self, reactor: &R, held: &mut R::Held<'_>) {
        if !self.register(PARKED_DRIVER) {
            return;
        }
        // Back to awake however the wait ends, by a return or by a panic of a waker the
        // reactor runs; this also consumes an unpark that came while it delivered events.
        let _awake = Awake(&self.state);
        reactor.wait(held, || {
            // Awake as soon as the OS poll returns, before events are delivered: the wakers
            // run on this thread, and an unpark of this same parker then only sets
            // `NOTIFIED`, without a needless wake of the reactor.
            self.state.swap(EMPTY, Ordering::SeqCst);
        });
    }

    /// Sleeps on the condition variable unless `ready` holds once registered
    /// ([`Parker::park_condvar`]).
    fn park_condvar(&self, ready: impl FnOnce() -> bool) {
        // Held from before the state says PARKED_CONDVAR until the wait releases it, so an
        // unparker's notification (made after it took this lock) cannot come before the
        // wait.
        let mut guard = self.mutex.lock();
        if !self.register(PARKED_CONDVAR) {
            return;
        }
        // Pairs with the fence in `Parker::unpark_if_parked`.
        fence(Ordering::SeqCst);
        if ready() {
            // The old state is PARKED_CONDVAR, or NOTIFIED by an unpark meanwhile, which is
            // consumed here: the caller re-checks what it waits for anyway.
            self.state.swap(EMPTY, Ordering::SeqCst);
            return;
        }
        loop {
            guard = self.condvar.wait(guard);
            if self.consume_notified() {
                return;
            }
            // A spurious wake-up of the condition variable: sleep again.
        }
    }

    /// Moves the state from `EMPTY` to `parked`; `false` if an unpark came first (and is
    /// consumed now: the park returns).
    fn register(&self, parked: usize) -> bool {
        match self
            .state
            .compare_exchange(EMPTY, parked, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => true,
            Err(NOTIFIED) => {
                // A swap rather than a plain store: it reads the last unpark's write, so
                // what that unparker did before is visible here (an unpark may have come
                // again since the compare-and-swap read NOTIFIED).
                self.state.swap(EMPTY, Ordering::SeqCst);
                false
            }
            Err(actual) => unreachable!(
                "filch: a parker parked in state {} (only its owner parks it)",
                state_name(actual)
            ),
        }
    }

    fn unpark(&self) {
        // A swap even when the state already is NOTIFIED: the release the parked thread's
        // consuming read-modify-write pairs with (module docs, "Memory ordering").
        match self.state.swap(NOTIFIED, Ordering::SeqCst) {
            EMPTY | NOTIFIED => {}
            PARKED_CONDVAR => {
                // Wait until the sleeper is inside the condition variable's wait (it holds
                // the lock until then); notify after letting go, so that it does not wake
                // only to wait for this lock.
                drop(self.mutex.lock());
                self.condvar.notify_one();
            }
            PARKED_DRIVER => {
                if let Some(reactor) = &self.reactor {
                    reactor.wake();
                }
            }
            actual => unreachable!("filch: a parker in state {actual} ({})", state_name(actual)),
        }
    }
}

impl<R: Reactor> Wake for Inner<R> {
    fn wake(self: Arc<Self>) {
        self.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.unpark();
    }
}

/// Sets the state back to `EMPTY` when dropped (the end of a wait in the reactor).
struct Awake<'a>(&'a AtomicUsize);

impl Drop for Awake<'_> {
    fn drop(&mut self) {
        self.0.swap(EMPTY, Ordering::SeqCst);
    }
}

#[cfg(all(test, not(loom)))]
pub(crate) mod tests;
