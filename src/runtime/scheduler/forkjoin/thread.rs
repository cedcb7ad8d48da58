//! [`FjThread`]: what a worker thread knows while it does fork-join work, and the
//! thread-local pointer to it.
//!
//! A worker does fork-join work in two ways: a task's poll calls `join` or `scope` (or the
//! task is a `par::run` or an injected call, `inject.rs`), or the worker loop takes a piece
//! from the board. Either way `enter` marks the worker occupied (`occupy.rs`) and installs an
//! `FjThread` on the stack for the length of that work; nested calls find it through the
//! thread-local and take the fast path.
//!
//! # When work is shared: the triggers
//!
//! This file is the one sharing policy; each trigger publishes the thread's oldest
//! unpublished frame, or splits the piece a parallel iterator folds:
//! 1. **heartbeat**: the epoch moved since the thread last looked (`check_in_slow`);
//! 2. **demand**: workers search or wait beyond what is on offer (`wanted`);
//! 3. **sleepers**: the thread worked alone for `SHARE_WITH_SLEEPERS_AFTER` while a worker
//!    sleeps and nothing is on offer (`clock_check`);
//! 4. **split for sleepers**: a heartbeat with no frame to publish while a worker sleeps
//!    (`split_due`, "Splitting for sleepers" below), a long piece's offer
//!    (`offer_to_sleepers`, after `par/iter/plumbing/splitter.rs`'s `WAKE_AFTER_CHUNKS`), and
//!    an awaited loop's start (`request_split`);
//! 5. **stall**: the thread made no check for a tick; the ticker publishes in its place
//!    (`exposed.rs`).
//!
//! The start of fork-join work (once a tick, `new`) and trigger 4 make the next check act as
//! a heartbeat through one flag (`heartbeat_due`), never by moving the seen epoch.
//!
//! # Frames and publication (heartbeat and demand)
//!
//! Each `join` links a frame into the thread's list (`push`/`pop`, youngest last) and, while
//! nobody wants work, never touches shared memory: the second half runs inline after the
//! first. A frame is *published* (its half becomes a node on the board) when
//! - a heartbeat passed since the thread last looked (the epoch moved: every
//!   [`TICK`](crate::runtime::time::epoch::TICK) while a worker is busy), or
//! - workers want work (searching, sleeping, or waiting for a node with nothing to help
//!   with) beyond the pieces already on offer.
//!
//! A thread that makes no check (blocked in a first half that waits for its second) cannot
//! publish; the epoch ticker publishes its oldest unpublished frame in its place once it
//! saw that frame exposed for a tick (`exposed.rs`).
//!
//! It is always the *oldest* unpublished frame that is published (the biggest piece of work,
//! Cilk's steal-the-top, as in Spice's heartbeat scheduling), so the published frames of a
//! thread are a prefix of its list, and the pieces outstanding stay below depth × threads.
//! A frame is published as a child of the lineage it was linked under, which it keeps: a
//! frame linked before the thread took up a piece (while it waits) is not that piece's
//! work, and a waiter that runs only what descends from the piece must not run it.
//!
//! # Splitting for sleepers
//!
//! A thread that folds a long piece of a parallel iterator has no frame to publish: its
//! joins' halves are on offer already, or it never joined. Demand (searching workers) makes
//! the piece split at its next chunk, but a worker that went to sleep asks for nothing. So a
//! heartbeat that finds no frame to publish while a worker sleeps and the board offers
//! nothing sets `split_due`: the iterator splits the rest of its piece at its next chunk
//! boundary ([`FjThread::wants_split`]), and the join of that split publishes its half at
//! once, waking a sleeper. A long piece thus offers half of what is left once a tick while
//! workers sleep (Spice's heartbeat), and a skewed call spreads however its cost is laid out.
//! An awaited loop asks for such a split when it starts ([`FjThread::request_split`]), so
//! that its work spreads at once, whatever the other workers are doing at that moment. The
//! flag is cleared only by the split it asks for, or with the fork-join work's state.
//!
//! **Invariants:** the list holds exactly the frames of the joins this thread is inside,
//! youngest last; `oldest_unpublished` is null or the oldest frame with no node, and every
//! frame older than it has one; a frame is unlinked before its `join` returns or unwinds,
//! so before the lineage it was linked under is replaced (`with_lineage` restores the
//! previous one only once the closure it runs returned, and joins nest inside it).

use std::cell::{Cell, RefCell};
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::exposed::Exposed;
use super::frame::FrameLinks;
pub(crate) use super::node::Cancelled;
use super::node::{Node, Root};
use crate::runtime::scheduler::state::State;
use crate::runtime::time::epoch;

/// The fork-join state of one worker thread (module docs).
pub(crate) struct FjThread {
    pub(crate) state: Arc<State>,
    /// The worker's index in its executor.
    pub(crate) index: usize,
    /// The call this thread works for now.
    pub(crate) root: Arc<Root>,
    /// The published node whose run the thread is inside (the lineage of what it publishes);
    /// `None` at the top of its call.
    lineage: RefCell<Option<Arc<Node>>>,
    /// `lineage` as a pointer (`Arc::as_ptr`, null for `None`), for `push` to copy.
    lineage_ptr: Cell<*const Node>,
    youngest: Cell<*const FrameLinks>,
    oldest_unpublished: Cell<*const FrameLinks>,
    /// The epoch of the last heartbeat this thread saw.
    seen_epoch: Cell<u64>,
    /// Set when the next check must act as a heartbeat although the epoch did not move: the
    /// start of fork-join work at most once a tick (`new`), a long piece's offer to
    /// sleepers, and the split a heartbeat asked for (`offer_to_sleepers`, `wants_split`).
    heartbeat_due: Cell<bool>,
    /// Checks left before the next look at the clock (`check_in`, sleepers).
    until_clock: Cell<u32>,
    /// Checks between the last look at the clock and the next: 1 when the fork-join work
    /// starts, doubled at each look up to [`CHECKS_PER_CLOCK`] (`clock_check`).
    clock_every: Cell<u32>,
    /// When this thread last published a frame (or started): how long it has worked alone.
    last_share: Cell<Instant>,
    /// Set when the outermost join returns: the next clock check restarts `last_share`
    /// instead of publishing, so that each top-level call (a small tree in a loop) counts
    /// its time alone from its own start, not from the thread's.
    call_ended: Cell<bool>,
    /// Set by a heartbeat that found no frame to publish while a worker sleeps: the
    /// parallel iterator running here splits its piece at its next chance (module docs,
    /// "Splitting for sleepers").
    split_due: Cell<bool>,
    /// Whether this thread exposes its oldest unpublished frame in its worker's
    /// [`Exposed`] word (`exposed.rs`): the worker's own thread, for its outermost
    /// fork-join work.
    exposes: bool,
}

thread_local! {
    static CURRENT: Cell<*const FjThread> = const { Cell::new(ptr::null()) };
}

/// Calls `f` with this thread's fork-join state, if it is doing fork-join work.
#[inline]
pub(crate) fn with_current<R>(f: impl FnOnce(Option<&FjThread>) -> R) -> R {
    let current = CURRENT.with(Cell::get);
    // SAFETY: a non-null pointer was installed by `install` from a reference that the live
    // `Installed` guard on this thread borrows, so it points to a live `FjThread`; the
    // reference does not outlive `f`, which runs on this thread.
    f(unsafe { current.as_ref() })
}

/// Uninstalls the thread's state when dropped (also on unwind), restoring the previous one.
pub(crate) struct Installed<'a> {
    previous: *const FjThread,
    _thread: std::marker::PhantomData<&'a FjThread>,
}

impl Drop for Installed<'_> {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
    }
}

impl FjThread {
    /// The state of worker `index` of `state`, working for `root`. With `heartbeat`, its first
    /// check counts as a heartbeat (it publishes its oldest frame at once, waking a sleeping
    /// worker): what a worker does at most once per tick, at the start of fork-join work
    /// (`occupy.rs`), so that a big call spreads at once and a stream of small ones does not
    /// wake a worker each.
    pub(crate) fn new(
        state: Arc<State>,
        index: usize,
        root: Arc<Root>,
        heartbeat: bool,
    ) -> FjThread {
        // The epoch first, then the flags: a cancellation (or shutdown) whose bump came
        // before this read is seen set here (its flag was set before the bump, which `now`
        // acquires); a later one moves the epoch past `seen_epoch`.
        let epoch = epoch::now();
        let cancelled = root.is_cancelled() || state.is_shut_down();
        let seen = if cancelled { CANCELLED } else { epoch };
        FjThread {
            state,
            index,
            root,
            lineage: RefCell::new(None),
            lineage_ptr: Cell::new(ptr::null()),
            youngest: Cell::new(ptr::null()),
            oldest_unpublished: Cell::new(ptr::null()),
            seen_epoch: Cell::new(seen),
            heartbeat_due: Cell::new(heartbeat && !cancelled),
            until_clock: Cell::new(1),
            clock_every: Cell::new(1),
            last_share: Cell::new(Instant::now()),
            call_ended: Cell::new(false),
            split_due: Cell::new(false),
            exposes: false,
        }
    }

    /// As [`new`](FjThread::new), on worker `index`'s own thread: it exposes its oldest
    /// unpublished frame to the ticker (`exposed.rs`) unless another thread owns the word.
    pub(crate) fn on_worker_thread(
        state: Arc<State>,
        index: usize,
        root: Arc<Root>,
        heartbeat: bool,
    ) -> FjThread {
        let mut t = FjThread::new(state, index, root, heartbeat);
        t.exposes = t.state.workers[index].exposed.own(&t.root);
        t
    }

    /// The worker's exposed word, if this thread exposes its frames.
    #[inline]
    fn exposed(&self) -> Option<&Exposed> {
        self.exposes
            .then(|| &*self.state.workers[self.index].exposed)
    }

    /// Makes `self` this thread's fork-join state until the guard drops.
    pub(crate) fn install(&self) -> Installed<'_> {
        Installed {
            previous: CURRENT.with(|c| c.replace(self)),
            _thread: std::marker::PhantomData,
        }
    }

    /// The node whose run this thread is inside, for a node it makes.
    pub(crate) fn lineage(&self) -> Option<Arc<Node>> {
        self.lineage.borrow().clone()
    }

    /// Runs `f` with `node` as the lineage (a claimed piece's run), restoring it after.
    pub(crate) fn with_lineage<R>(&self, node: Arc<Node>, f: impl FnOnce() -> R) -> R {
        struct Restore<'a>(&'a FjThread, Option<Arc<Node>>);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                let previous = self.1.take();
                self.0.lineage_ptr.set(lineage_ptr(&previous));
                *self.0.lineage.borrow_mut() = previous;
            }
        }
        self.lineage_ptr.set(Arc::as_ptr(&node));
        let previous = self.lineage.replace(Some(node));
        let _restore = Restore(self, previous);
        f()
    }

    /// Links `frame` as the youngest.
    ///
    /// # Safety
    ///
    /// `frame` stays where it is until [`pop`](FjThread::pop) unlinks it, which happens before
    /// its `join` returns or unwinds, and frames are popped in the reverse order of pushes.
    #[inline]
    pub(crate) unsafe fn push(&self, frame: &FrameLinks) {
        let older = self.youngest.get();
        frame.older.set(older);
        frame.lineage.set(self.lineage_ptr.get());
        if !older.is_null() {
            // SAFETY: `older` is linked, so alive (the caller's contract).
            unsafe { (*older).younger.set(frame) };
        }
        self.youngest.set(frame);
        if self.oldest_unpublished.get().is_null() {
            self.oldest_unpublished.set(frame);
            if self.exposes {
                self.expose(frame);
            }
        }
    }

    /// Exposes `frame`, the new oldest unpublished frame (`exposed.rs`); out of line, to
    /// keep `push` small.
    #[inline(never)]
    fn expose(&self, frame: &FrameLinks) {
        self.state.workers[self.index].exposed.expose(frame);
    }

    /// Takes `frame`, the oldest unpublished frame, back from the ticker (`exposed.rs`); if
    /// the ticker published it, its `published` is set now, and the join settles it as one
    /// this thread published. Out of line, to keep `pop` small.
    #[inline(never)]
    fn withdraw(&self, frame: &FrameLinks) {
        self.state.workers[self.index].exposed.withdraw(frame);
    }

    /// Unlinks `frame`, the youngest.
    ///
    /// # Safety
    ///
    /// `frame` is the youngest linked frame.
    #[inline]
    pub(crate) unsafe fn pop(&self, frame: &FrameLinks) {
        debug_assert!(ptr::eq(self.youngest.get(), frame));
        let older = frame.older.get();
        self.youngest.set(older);
        if older.is_null() {
            self.call_ended.set(true);
        } else {
            // SAFETY: `older` is linked, so alive.
            unsafe { (*older).younger.set(ptr::null()) };
        }
        if ptr::eq(self.oldest_unpublished.get(), frame) {
            // Every older frame is published (module invariants).
            self.oldest_unpublished.set(ptr::null());
            if self.exposes {
                self.withdraw(frame);
            }
        }
    }

    /// The check every `join` and every piece boundary makes: a load of the epoch and two of
    /// the idle counts. Publishes the oldest unpublished frame on a heartbeat or on demand.
    /// Returns `true` if the call was cancelled (`par::run` dropped) or its executor shut
    /// down (both bump the epoch after setting their flag): the caller unlinks its frame, if
    /// it linked one, and unwinds with [`Cancelled`].
    #[inline]
    #[must_use]
    pub(crate) fn check_in(&self) -> bool {
        if epoch::moved(self.seen_epoch.get()) || self.heartbeat_due.get() || self.wanted() {
            return self.check_in_slow();
        }
        let left = self.until_clock.get();
        if left == 0 {
            self.clock_check();
        } else {
            self.until_clock.set(left - 1);
        }
        false
    }

    /// At the second check, then after gaps of 2, 4, 8 … checks up to [`CHECKS_PER_CLOCK`]: a
    /// thread that has worked alone for [`SHARE_WITH_SLEEPERS_AFTER`] while a worker sleeps
    /// and nothing is on offer publishes
    /// its oldest frame, which wakes that worker. Between two heartbeats this is what brings a
    /// sleeping worker in for a call of a few dozen microseconds and more; a shorter call
    /// wakes nobody.
    #[cold]
    #[inline(never)]
    fn clock_check(&self) {
        let every = (self.clock_every.get() * 2).min(CHECKS_PER_CLOCK);
        self.clock_every.set(every);
        self.until_clock.set(every);
        if self.oldest_unpublished.get().is_null() || !self.sleepers_idle() {
            return;
        }
        let now = Instant::now();
        if self.call_ended.replace(false) {
            self.last_share.set(now);
        } else if now.duration_since(self.last_share.get()) >= SHARE_WITH_SLEEPERS_AFTER {
            self.publish_oldest();
        }
    }

    /// Whether a worker (not a stand-in) sleeps and nothing is on offer.
    fn sleepers_idle(&self) -> bool {
        let fj = &self.state.forkjoin;
        // The stand-ins booked as sleepers run no piece (`standin/slots.rs`).
        self.state.idle.sleeping() > self.state.standins.active() && fj.board.available() == 0
    }

    /// Whether threads look for work now (workers searching, threads waiting with nothing
    /// to run) beyond the pieces the board offers. Sleeping workers are not counted: a
    /// heartbeat publishes for them (and wakes one), so that a small call never pays for a
    /// wake-up.
    #[inline]
    pub(crate) fn wanted(&self) -> bool {
        let fj = &self.state.forkjoin;
        let hungry = self.state.idle.searching() + fj.waiting();
        hungry != 0 && hungry > fj.board.available()
    }

    /// If a worker sleeps and nothing is on offer, has the next check act as a heartbeat
    /// (publish the oldest unpublished frame, which wakes a sleeper unless one searches) and
    /// returns `true`: a long piece's way to share its rest when no worker is awake to want
    /// it.
    pub(crate) fn offer_to_sleepers(&self) -> bool {
        if self.seen_epoch.get() == CANCELLED || !self.sleepers_idle() {
            return false;
        }
        self.heartbeat_due.set(true);
        true
    }

    /// Whether a parallel iterator running on this thread should split the rest of its piece
    /// now (and `join` the halves): workers want work beyond what is on offer, or a heartbeat
    /// asked for a split (module docs, "Splitting for sleepers"); the join of that split then
    /// publishes its half at its check, as at a heartbeat.
    #[inline]
    pub(crate) fn wants_split(&self) -> bool {
        if self.wanted() {
            return true;
        }
        if !self.split_due.get() {
            return false;
        }
        self.split_due.set(false);
        // The next check (the split's join) counts as a heartbeat, as `new` arranges for the
        // first check of a call.
        self.heartbeat_due.set(true);
        true
    }

    /// Asks the parallel iterator that runs next on this thread to split at its first chunk
    /// boundary and offer half of its work at once (an awaited loop's start,
    /// `par/loops/watched.rs`), as a heartbeat does for a sleeping worker.
    pub(crate) fn request_split(&self) {
        self.split_due.set(true);
    }

    #[cold]
    #[inline(never)]
    fn check_in_slow(&self) -> bool {
        let epoch = epoch::now();
        let heartbeat = epoch != self.seen_epoch.get() || self.heartbeat_due.replace(false);
        if heartbeat && (self.root.is_cancelled() || self.state.is_shut_down()) {
            // Every later check fails too (the epoch never reaches this value), so that each
            // piece the unwind runs on its way out (a join's second half) stops at once.
            self.seen_epoch.set(CANCELLED);
            return true;
        }
        self.seen_epoch.set(epoch);
        if heartbeat || self.wanted() {
            let published = self.publish_oldest();
            if heartbeat && !published && self.sleepers_idle() {
                self.split_due.set(true);
            }
        }
        false
    }

    /// Publishes the oldest unpublished frame, if any, and lets the others know; whether
    /// there was one.
    fn publish_oldest(&self) -> bool {
        let frame = self.oldest_unpublished.get();
        if frame.is_null() {
            return false;
        }
        // SAFETY: a linked frame is alive (`push`'s contract).
        let frame = unsafe { &*frame };
        let younger = frame.younger.get();
        self.oldest_unpublished.set(younger);
        let publish = || {
            // SAFETY: the frame is linked and unpublished, and no other thread publishes it:
            // it is not exposed, or `advance` took it back from the ticker before this runs.
            unsafe { super::publish::frame(&self.state, self.index, &self.root, frame) }
        };
        match self.exposed() {
            // Unless the ticker published it, for this thread: the share is made either way.
            Some(exposed) => {
                exposed.advance(frame, younger, publish);
            }
            None => publish(),
        }
        self.last_share.set(Instant::now());
        true
    }
}

impl Drop for FjThread {
    fn drop(&mut self) {
        if let Some(exposed) = self.exposed() {
            exposed.disown();
        }
    }
}

/// How many checks (`join`s, piece boundaries) pass at most between two looks at the clock
/// for sleeping workers (`FjThread::clock_check`): a clock read costs about as much as a few
/// dozen joins that nobody steals. The first look comes at the second check of the work,
/// and the gaps between looks double up to this, so that fork-join work whose checks are
/// far apart (a sort's joins, tens of microseconds each) looks within
/// [`SHARE_WITH_SLEEPERS_AFTER`] or so, and work whose checks come every few nanoseconds
/// reads the clock a handful of times more per start, not per check.
const CHECKS_PER_CLOCK: u32 = 64;

/// How long a thread works alone, with a worker asleep and nothing on offer, before it
/// publishes a frame for that worker (waking it): long enough that a short call never pays
/// for a wake-up, short against the heartbeat.
const SHARE_WITH_SLEEPERS_AFTER: Duration = Duration::from_micros(50);

/// The `seen_epoch` of a thread whose call was cancelled: never the epoch.
const CANCELLED: u64 = u64::MAX;

/// `lineage` as a pointer: `Arc::as_ptr`, null for `None`.
fn lineage_ptr(lineage: &Option<Arc<Node>>) -> *const Node {
    lineage.as_ref().map_or(ptr::null(), Arc::as_ptr)
}
