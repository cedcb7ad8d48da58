//! A worker's oldest unpublished join frame, where the epoch ticker can reach it: so that a
//! `join(a, b)` whose `a` waits for something `b` does completes whenever some worker is
//! idle, although the caller's thread, blocked in `a`, makes no check that would publish `b`.
//!
//! A thread publishes its own frames at its checks (`thread.rs`: heartbeat and demand). A
//! thread blocked in `a` makes none, so each worker *exposes* its oldest unpublished frame
//! in its [`Exposed`] word, and the ticker, finding the same frame there at two ticks in a
//! row, publishes it in the thread's place ([`Exposed::publish_if_stalled`]): about a tick
//! after the join began, as a heartbeat would have. Only the oldest unpublished frame is
//! exposed, so the thread's published frames stay a prefix of its list (`thread.rs`,
//! invariants); after the ticker published one, nothing more is exposed until the thread
//! itself acts on its oldest frame again. So a half nested inside a blocked first half
//! (`join(|| join(x, y), b)` with `x` waiting for `y`) is published only once the thread
//! checks in: rayon's deque offers it too, filch does not (a per-join atomic would).
//!
//! The protocol: the word holds null, the oldest unpublished frame, or [`CLAIMED`].
//! - The owner [`expose`](Exposed::expose)s a frame when it becomes the oldest unpublished
//!   (a push onto an empty prefix, one store), and takes it back when it pops it or
//!   publishes it itself, with one compare-and-swap ([`withdraw`](Exposed::withdraw),
//!   [`advance`](Exposed::advance)); the next frame is exposed only once the one published
//!   is on the board, so a thread's frames reach the board oldest first, whoever publishes
//!   them. A recursive call's frames become the oldest only along
//!   its last spine: a logarithmic number of them per call, so the common join pays nothing.
//! - The ticker claims the frame (compare-and-swap to `CLAIMED`), publishes it, and stores
//!   null. The owner's compare-and-swap then fails: it waits until the word is no longer
//!   `CLAIMED` and finds the frame published (its `published` field set).
//!
//! **Invariant:** the ticker touches a frame only between a successful claim and its store
//! of null, and the owner leaves (pops) a frame only after its own compare-and-swap
//! succeeded or it saw that store: so the frame is alive whenever the ticker reads it.
//! One thread at a time owns the word ([`Exposed::own`]): the worker's thread, for its
//! outermost fork-join work.
//!
//! **Orderings:** the owner's stores that expose a frame release the frame's fields it
//! wrote (its lineage), and what it did before (the publication of the frame before it), to
//! the ticker's acquiring claim; the ticker's store of null releases
//! the frame's `published` field to the owner's acquiring load that ends its wait.

use std::ptr::{self, NonNull};
use std::sync::Arc;

use super::frame::FrameLinks;
use super::node::Root;
use crate::util::sync::{AtomicBool, AtomicPtr, Ordering};

/// The word's value while the ticker publishes the frame it claimed: no frame's address.
fn claimed() -> *mut FrameLinks {
    NonNull::dangling().as_ptr()
}

/// One worker's exposed frame (module docs).
pub(crate) struct Exposed {
    /// Null, the owner's oldest unpublished frame, or [`claimed`].
    frame: AtomicPtr<FrameLinks>,
    /// Whether a thread owns the word (one `FjThread` at a time).
    owned: AtomicBool,
    /// The owner's call (`Arc::as_ptr` of the `FjThread`'s root, which outlives its frames).
    root: AtomicPtr<Root>,
    /// The frame the ticker saw at its last look (the ticker's own).
    seen: AtomicPtr<FrameLinks>,
}

impl Exposed {
    pub(crate) fn new() -> Exposed {
        Exposed {
            frame: AtomicPtr::new(ptr::null_mut()),
            owned: AtomicBool::new(false),
            root: AtomicPtr::new(ptr::null_mut()),
            seen: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Takes the word for the calling thread's fork-join work for call `root` (which lives
    /// until [`disown`](Exposed::disown)): `false` if another thread owns it (this one then
    /// exposes nothing).
    pub(crate) fn own(&self, root: &Arc<Root>) -> bool {
        // Acquire: after the previous owner's release (its last withdraw came before).
        if self.owned.swap(true, Ordering::Acquire) {
            return false;
        }
        // Relaxed: published with the first frame, by `expose`'s release.
        self.root
            .store(Arc::as_ptr(root).cast_mut(), Ordering::Relaxed);
        true
    }

    /// Gives the word up; its frame is null (every frame was popped).
    pub(crate) fn disown(&self) {
        debug_assert!(self.frame.load(Ordering::Relaxed).is_null());
        // Release: pairs with the next owner's `own`.
        self.owned.store(false, Ordering::Release);
    }

    /// The owner's `frame` became its oldest unpublished frame, and the word is null.
    #[inline]
    pub(crate) fn expose(&self, frame: &FrameLinks) {
        // Release: the frame's lineage, written at its push, to the ticker's claim.
        self.frame
            .store(ptr::from_ref(frame).cast_mut(), Ordering::Release);
    }

    /// The owner pops `frame`, its exposed oldest unpublished frame: `true` if it took it
    /// back unpublished, `false` if the ticker published it (its `published` is set). The
    /// word is null after.
    #[inline]
    pub(crate) fn withdraw(&self, frame: &FrameLinks) -> bool {
        // Relaxed: this and the ticker's claim are read-modify-writes of one word, so exactly
        // one of them takes the frame whatever their orderings; the null stored releases
        // nothing (no claim acquires null), and a next frame's fields are released by the
        // store that exposes it. On failure, `wait_for_ticker` acquires the ticker's store of
        // null.
        if self
            .frame
            .compare_exchange(
                ptr::from_ref(frame).cast_mut(),
                ptr::null_mut(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok()
        {
            return true;
        }
        self.wait_for_ticker();
        false
    }

    /// The owner publishes `frame`, its exposed oldest unpublished frame, and makes
    /// `younger` (null: none) its oldest unpublished: `publish` runs unless the ticker
    /// published `frame` first, and `younger` is exposed only after, so that the ticker never
    /// puts a younger frame of this thread on the board before an older one (the board hands
    /// out pieces in the order they were published, and the oldest frame is the biggest
    /// piece: a thief that took the younger one first could leave the biggest waiting behind
    /// two endless pieces). Whether `publish` ran.
    #[inline]
    pub(crate) fn advance(
        &self,
        frame: &FrameLinks,
        younger: *const FrameLinks,
        publish: impl FnOnce(),
    ) -> bool {
        let here = self.withdraw(frame);
        if here {
            publish();
        }
        if !younger.is_null() {
            // The word is null now, and only the owner writes a frame into it.
            self.expose_ptr(younger);
        }
        here
    }

    /// As [`expose`](Exposed::expose), from a pointer to a linked frame.
    #[inline]
    fn expose_ptr(&self, frame: *const FrameLinks) {
        // Release: as `expose`.
        self.frame.store(frame.cast_mut(), Ordering::Release);
    }

    /// Waits until the ticker finished publishing the frame it claimed (module docs).
    #[cold]
    #[inline(never)]
    fn wait_for_ticker(&self) {
        // Acquire: pairs with the ticker's release of null (the frame's `published`).
        while self.frame.load(Ordering::Acquire) == claimed() {
            crate::util::sync::thread::yield_now();
        }
    }

    /// The ticker's look (module docs): if the same frame is exposed as at the last look,
    /// claims it and calls `publish` with it and its owner's call (`publish` makes its node,
    /// sets its `published` and offers the node), then gives the word back; whether it
    /// published one.
    pub(crate) fn publish_if_stalled(&self, publish: impl FnOnce(&FrameLinks, Arc<Root>)) -> bool {
        // Relaxed: a first look; the claim below acquires.
        let frame = self.frame.load(Ordering::Relaxed);
        let before = self.seen.swap(frame, Ordering::Relaxed);
        if frame.is_null() || frame == claimed() || frame != before {
            return false;
        }
        // Acquire: pairs with the owner's release that exposed it (the frame's fields).
        if self
            .frame
            .compare_exchange(frame, claimed(), Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        // Relaxed: ordered by the claim's acquire, as the frame's fields.
        let root = self.root.load(Ordering::Relaxed);
        // SAFETY: the owner's root lives until it disowns the word, after its last frame's
        // pop, which waits for the store below; the count taken here is the caller's.
        let root = unsafe {
            Arc::increment_strong_count(root);
            Arc::from_raw(root)
        };
        // SAFETY: the claim succeeded, so the owner has not popped the frame, and it does not
        // until the store below (module invariant).
        publish(unsafe { &*frame }, root);
        // Release: the frame's `published` field, to the owner's wait.
        self.frame.store(ptr::null_mut(), Ordering::Release);
        true
    }
}
