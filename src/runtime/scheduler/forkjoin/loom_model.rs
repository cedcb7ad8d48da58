//! Loom models of the fork-join hand-offs, on the shipped [`Piece`], [`Node`] and [`Board`]:
//! - a join's published half runs exactly once, by its owner (after a reclaim) or by a thief
//!   (after a claim), and an owner whose half was claimed sees its outcome in the frame, and
//!   is woken, before it leaves the frame (`join_half_runs_once_and_the_owner_sees_it`);
//! - a scope's owner sleeps until its spawned closures finished and is never left asleep
//!   (`scope_owner_is_woken_by_the_last_closure`), also when a closure is counted in
//!   another (`a_closure_counted_in_its_parent_finishes_the_scope_after_both`);
//! - a waiter is woken by the publication of a piece that descends from what it waits for
//!   (`a_waiter_is_woken_by_a_descendant`);
//! - a frame exposed to the ticker (`exposed.rs`) is published exactly once, by its owner or
//!   the ticker, the owner knows which when it pops it, and the ticker never touches a frame
//!   its owner left (`an_exposed_frame_is_published_once_and_never_touched_after_its_pop`,
//!   `an_owner_publishing_its_exposed_frame_races_the_ticker`).
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --lib loom`

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;
use std::sync::Arc;

use super::board::Board;
use super::exposed::Exposed;
use super::frame::FrameLinks;
use super::node::{Half, Node, Piece, Root};

/// A join's frame in the model: the half's result cell, written by whoever runs the half.
struct Frame {
    /// 0 until the half ran; then 1 + (1 if it migrated).
    outcome: UnsafeCell<u32>,
}

/// The half's `run`: writes the outcome into the frame (loom checks the accesses).
unsafe fn run_half(frame: *const (), migrated: bool, _cancelled: bool) {
    // SAFETY: the model's frame outlives every run (the owner waits; see the model).
    let frame = unsafe { &*frame.cast::<Frame>() };
    frame.outcome.with_mut(|out| {
        // SAFETY: loom checks that no other access races with this one.
        let out = unsafe { &mut *out };
        assert_eq!(*out, 0, "a half ran twice");
        *out = 1 + u32::from(migrated);
    });
}

#[test]
fn join_half_runs_once_and_the_owner_sees_it() {
    loom::model(|| {
        let board = Arc::new(Board::default());
        // The frame lives on the owner's "stack" for the whole model (it waits).
        let frame = Box::leak(Box::new(Frame {
            outcome: UnsafeCell::new(0),
        }));
        let half = Half {
            frame: std::ptr::from_ref::<Frame>(frame).cast(),
            run: run_half,
        };
        let node = Piece::half(None, Root::new(), half);
        board.publish(node.clone());
        let thief = {
            let board = Arc::clone(&board);
            thread::spawn(move || {
                if let Some(piece) = board.take_oldest() {
                    // SAFETY: won the claim.
                    unsafe { piece.run(true) };
                }
            })
        };
        // The owner: take it back, or wait for the thief.
        if node.try_reclaim() {
            board.remove_reclaimed(&node);
            // SAFETY: reclaimed: the half is the owner's.
            unsafe { run_half(std::ptr::from_ref::<Frame>(frame).cast(), false, false) };
        } else {
            while !node.is_finished() {
                node.sleep(|| false);
            }
        }
        let outcome = frame.outcome.with(|out| {
            // SAFETY: the half finished (or ran here): no access races with this read.
            unsafe { *out }
        });
        assert!(outcome == 1 || outcome == 2, "the owner saw no outcome");
        thief.join().unwrap();
        assert_eq!(board.available(), 0);
    });
}

#[test]
fn scope_owner_is_woken_by_the_last_closure() {
    loom::model(|| {
        let board = Arc::new(Board::default());
        let scope = Node::scope(None, Root::new());
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..2 {
            let ran = Arc::clone(&ran);
            let body = Box::new(move || {
                ran.fetch_add(1, Ordering::Relaxed);
            });
            // SAFETY: the parent is the scope.
            board.publish(unsafe { Piece::spawned(Arc::clone(&scope), body, &scope) });
        }
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let board = Arc::clone(&board);
                thread::spawn(move || {
                    if let Some(piece) = board.take_oldest() {
                        // SAFETY: won the claim.
                        unsafe { piece.run(true) };
                    }
                })
            })
            .collect();
        // The owner runs what is left of its closures, then sleeps until they all finished.
        while let Some(piece) = board.take_descendant(&scope, true) {
            // SAFETY: won the claim.
            unsafe { piece.run(false) };
        }
        while !scope.is_finished() {
            scope.sleep(|| false);
        }
        assert_eq!(ran.load(Ordering::Relaxed), 2);
        for thief in thieves {
            thief.join().unwrap();
        }
    });
}

/// A cell that one closure writes and the scope's owner reads once the scope finished:
/// loom checks that the write happens before the read.
struct Written(UnsafeCell<u32>);

// SAFETY: the model's accesses are checked by loom's `UnsafeCell`.
unsafe impl Sync for Written {}

impl Written {
    fn write(&self) {
        // SAFETY: loom checks that no other access races with this one.
        self.0.with_mut(|v| unsafe { *v = 1 });
    }

    fn read(&self) -> u32 {
        // SAFETY: as in `write`.
        self.0.with(|v| unsafe { *v })
    }
}

/// A closure counted in its parent, another closure of the scope (`Node::pending`): the
/// scope finishes only once both did, in either order, on any threads, and its owner sees
/// what both wrote (the count chain releases the child's writes through the parent's count
/// into the scope's).
#[test]
fn a_closure_counted_in_its_parent_finishes_the_scope_after_both() {
    loom::model(|| {
        let board = Arc::new(Board::default());
        let scope = Node::scope(None, Root::new());
        let cells = Arc::new([Written(UnsafeCell::new(0)), Written(UnsafeCell::new(0))]);
        let body = |i: usize| {
            let cells = Arc::clone(&cells);
            Box::new(move || cells[i].write())
        };
        // SAFETY: the parent is the scope.
        let parent = unsafe { Piece::spawned(Arc::clone(&scope), body(0), &scope) };
        // SAFETY: the parent, a closure of the scope, has not run: counted in it.
        let child = unsafe { Piece::spawned(Arc::clone(&parent), body(1), &scope) };
        board.publish(parent);
        board.publish(child);
        let thief = {
            let board = Arc::clone(&board);
            thread::spawn(move || {
                if let Some(piece) = board.take_oldest() {
                    // SAFETY: won the claim.
                    unsafe { piece.run(true) };
                }
            })
        };
        while let Some(piece) = board.take_descendant(&scope, true) {
            // SAFETY: won the claim.
            unsafe { piece.run(false) };
        }
        while !scope.is_finished() {
            scope.sleep(|| false);
        }
        assert_eq!(cells[0].read() + cells[1].read(), 2);
        thief.join().unwrap();
    });
}

#[test]
fn a_waiter_is_woken_by_a_descendant() {
    loom::model(|| {
        let board = Arc::new(Board::default());
        let scope = Node::scope(None, Root::new());
        let ran = Arc::new(AtomicUsize::new(0));
        // A closure of the scope, counted in it now (as the scope's body or one of its counted
        // closures counts what it spawns), published later by another thread.
        let body = {
            let ran = Arc::clone(&ran);
            Box::new(move || {
                ran.fetch_add(1, Ordering::Relaxed);
            })
        };
        // SAFETY: the parent is the scope.
        let piece = unsafe { Piece::spawned(Arc::clone(&scope), body, &scope) };
        let publisher = {
            let board = Arc::clone(&board);
            thread::spawn(move || {
                board.publish(piece);
            })
        };
        // The owner, finding nothing on the board, sleeps until it can run the closure.
        while !scope.is_finished() {
            if let Some(piece) = board.take_descendant(&scope, true) {
                // SAFETY: won the claim.
                unsafe { piece.run(false) };
                continue;
            }
            board.sleep_for_descendant(&scope, || board.has_descendant(&scope));
        }
        assert_eq!(ran.load(Ordering::Relaxed), 1);
        publisher.join().unwrap();
    });
}

/// As [`a_waiter_is_woken_by_a_descendant`], with the piece published from inside another
/// closure of the scope (`mid`, run by the publishing thread): the publisher's walk up the
/// lineage passes over `mid`'s node, which has no waiter, and wakes the scope's owner with
/// the walk it makes under the shard's lock (`Board::publish_on`, `Node::wake_ancestors`).
#[test]
fn a_waiter_is_woken_by_a_descendant_below_a_closure() {
    loom::model(|| {
        let board = Arc::new(Board::default());
        let scope = Node::scope(None, Root::new());
        let ran = Arc::new(AtomicUsize::new(0));
        // SAFETY: the parent is the scope.
        let mid = unsafe { Piece::spawned(Arc::clone(&scope), Box::new(|| {}), &scope) };
        let body = {
            let ran = Arc::clone(&ran);
            Box::new(move || {
                ran.fetch_add(1, Ordering::Relaxed);
            })
        };
        // SAFETY: the parent, `mid`, is a closure of the scope.
        let piece = unsafe { Piece::spawned(Arc::clone(&mid), body, &scope) };
        let publisher = {
            let board = Arc::clone(&board);
            thread::spawn(move || {
                // This thread runs `mid`, which spawns `piece` while it runs.
                assert!(mid.try_claim());
                board.publish(piece);
                // SAFETY: won the claim above.
                unsafe { mid.run(true) };
            })
        };
        while !scope.is_finished() {
            if let Some(piece) = board.take_descendant(&scope, true) {
                // SAFETY: won the claim.
                unsafe { piece.run(false) };
                continue;
            }
            board.sleep_for_descendant(&scope, || board.has_descendant(&scope));
        }
        assert_eq!(ran.load(Ordering::Relaxed), 1);
        publisher.join().unwrap();
    });
}

/// A join frame in the exposure models: its links first (`#[repr(C)]`, as a real frame), who
/// published it, and whether it is still on its owner's "stack".
#[repr(C)]
struct ExposedFrame {
    links: FrameLinks,
    /// 0: nobody; 1: its owner; 2: the ticker.
    published_by: UnsafeCell<u32>,
    /// Cleared by the owner when it leaves the frame; the ticker reads it while it holds the
    /// claim, so loom reports a ticker access that is not ordered before the pop.
    alive: UnsafeCell<bool>,
}

/// A half's `run` the models never call.
unsafe fn never_run(_frame: *const (), _migrated: bool, _cancelled: bool) {
    unreachable!("the exposure models run no half");
}

impl ExposedFrame {
    fn leak() -> &'static ExposedFrame {
        Box::leak(Box::new(ExposedFrame {
            links: FrameLinks::new(never_run),
            published_by: UnsafeCell::new(0),
            alive: UnsafeCell::new(true),
        }))
    }

    /// The frame whose links these are (`links` is its first field).
    fn of(links: &FrameLinks) -> &ExposedFrame {
        // SAFETY: the models expose only the links of `ExposedFrame`s, which start with them.
        unsafe { &*std::ptr::from_ref(links).cast::<ExposedFrame>() }
    }

    /// The ticker's publication: the frame must be alive, and unpublished.
    fn ticker_publishes(links: &FrameLinks) {
        let frame = ExposedFrame::of(links);
        // SAFETY: loom checks these accesses against the owner's.
        assert!(
            frame.alive.with(|alive| unsafe { *alive }),
            "the ticker touched a left frame"
        );
        frame.published_by.with_mut(|by| {
            // SAFETY: as above.
            let by = unsafe { &mut *by };
            assert_eq!(*by, 0, "published twice");
            *by = 2;
        });
    }

    fn published_by(&self) -> u32 {
        // SAFETY: loom checks this access.
        self.published_by.with(|by| unsafe { *by })
    }

    /// The owner publishes it itself.
    fn owner_publishes(&self) {
        self.published_by.with_mut(|by| {
            // SAFETY: loom checks this access.
            let by = unsafe { &mut *by };
            assert_eq!(*by, 0, "published twice");
            *by = 1;
        });
    }

    /// The owner leaves it.
    fn leave(&self) {
        // SAFETY: loom checks this access against the ticker's.
        self.alive.with_mut(|alive| unsafe { *alive = false });
    }
}

#[test]
fn an_exposed_frame_is_published_once_and_never_touched_after_its_pop() {
    loom::model(|| {
        let exposed = Arc::new(Exposed::new());
        let root = Root::new();
        assert!(exposed.own(&root));
        let frame = ExposedFrame::leak();
        exposed.expose(&frame.links);
        // The ticker's first look sees the frame; its second, on its thread, may publish it.
        assert!(!exposed.publish_if_stalled(|_, _| unreachable!("a first look publishes")));
        let ticker = {
            let exposed = Arc::clone(&exposed);
            thread::spawn(move || {
                exposed.publish_if_stalled(|links, _root| ExposedFrame::ticker_publishes(links))
            })
        };
        // The owner's `a` returns: it pops the frame.
        let unpublished = exposed.withdraw(&frame.links);
        assert_eq!(frame.published_by(), if unpublished { 0 } else { 2 });
        frame.leave();
        let ticker_published = ticker.join().unwrap();
        assert_eq!(ticker_published, !unpublished);
        exposed.disown();
    });
}

#[test]
fn an_owner_publishing_its_exposed_frame_races_the_ticker() {
    loom::model(|| {
        let exposed = Arc::new(Exposed::new());
        let root = Root::new();
        assert!(exposed.own(&root));
        // Two frames: `older` exposed, `younger` linked after it.
        let older = ExposedFrame::leak();
        let younger = ExposedFrame::leak();
        exposed.expose(&older.links);
        assert!(!exposed.publish_if_stalled(|_, _| unreachable!("a first look publishes")));
        let ticker = {
            let exposed = Arc::clone(&exposed);
            thread::spawn(move || {
                // A thread's frames reach the board oldest first: the board hands out pieces
                // in that order, and a thief that took `younger` first could leave the bigger
                // `older` behind two endless pieces (`exposed.rs`, `advance`).
                let publish = |links: &FrameLinks, _root: Arc<Root>| {
                    if std::ptr::eq(links, &younger.links) {
                        assert_ne!(
                            older.published_by(),
                            0,
                            "the ticker published the younger frame before the older one"
                        );
                    }
                    ExposedFrame::ticker_publishes(links);
                };
                // Two looks: the second may see `younger` twice only if nothing moved.
                let first = exposed.publish_if_stalled(publish);
                let second = exposed.publish_if_stalled(publish);
                u32::from(first) + u32::from(second)
            })
        };
        // The owner's heartbeat publishes its oldest frame, unless the ticker did.
        exposed.advance(&older.links, &younger.links, || older.owner_publishes());
        // Then `younger`'s join ends, then `older`'s.
        let younger_unpublished = exposed.withdraw(&younger.links);
        younger.leave();
        assert_ne!(
            older.published_by(),
            0,
            "the heartbeat's frame was not published"
        );
        assert_eq!(
            younger.published_by(),
            if younger_unpublished { 0 } else { 2 }
        );
        older.leave();
        let ticker_publications = ticker.join().unwrap();
        let by_ticker =
            u32::from(older.published_by() == 2) + u32::from(younger.published_by() == 2);
        assert_eq!(ticker_publications, by_ticker);
        exposed.disown();
    });
}
