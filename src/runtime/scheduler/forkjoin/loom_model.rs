//! Loom models of the fork-join hand-offs, on the shipped [`Node`] and [`Board`]:
//! - a join's published half runs exactly once, by its owner (after a reclaim) or by a thief
//!   (after a claim), and an owner whose half was claimed sees its outcome in the frame, and
//!   is woken, before it leaves the frame (`join_half_runs_once_and_the_owner_sees_it`);
//! - a scope's owner sleeps until its spawned closures finished and is never left asleep
//!   (`scope_owner_is_woken_by_the_last_closure`);
//! - a waiter is woken by the publication of a piece that descends from what it waits for
//!   (`a_waiter_is_woken_by_a_descendant`).
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test --release --lib loom`

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;
use std::sync::Arc;

use super::board::Board;
use super::node::{Half, Node, Root};

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
        let node = Node::half(None, Root::new(), half);
        board.publish(Arc::clone(&node));
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
            board.publish(Node::spawned(Some(Arc::clone(&scope)), body, &scope));
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
        let piece = Node::spawned(Some(Arc::clone(&scope)), body, &scope);
        let publisher = {
            let board = Arc::clone(&board);
            thread::spawn(move || {
                board.publish(Arc::clone(&piece));
                piece.wake_ancestors();
            })
        };
        // The owner, finding nothing on the board, sleeps until it can run the closure.
        while !scope.is_finished() {
            if let Some(piece) = board.take_descendant(&scope, true) {
                // SAFETY: won the claim.
                unsafe { piece.run(false) };
                continue;
            }
            scope.sleep(|| board.has_descendant(&scope));
        }
        assert_eq!(ran.load(Ordering::Relaxed), 1);
        publisher.join().unwrap();
    });
}
