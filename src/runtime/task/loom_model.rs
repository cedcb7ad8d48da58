//! The loom models of this folder's concurrent cores, on the shipped code
//! (`RUSTFLAGS="--cfg loom" cargo test --release --lib loom`):
//!
//! - the abort cell (`abort.rs`): the race between a task's first wait and the making of
//!   its first abort handle: whatever the interleaving, an abort of a waiting task wakes it
//!   at least once;
//! - the task count (`task_count.rs`): whatever the interleaving of task ends on workers and
//!   other threads and the holders' exits, exactly one update reports zero, and only after
//!   every task and holder is gone.

use std::task::{Wake, Waker};

use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

use super::abort::AbortSlot;
use super::id::Id;
use super::task_count::TaskCount;
use crate::util::sync::fence;

struct CountWakes(AtomicUsize);
impl Wake for CountWakes {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn an_abort_always_reaches_a_waiting_task() {
    loom::model(|| {
        let slot = Arc::new(AbortSlot::new());
        // The task's registry key (0: not registered yet) and its waker.
        let key = Arc::new(AtomicU64::new(0));
        let wakes = std::sync::Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = Waker::from(std::sync::Arc::clone(&wakes));
        let task = {
            let (slot, key, waker) = (Arc::clone(&slot), Arc::clone(&key), waker.clone());
            thread::spawn(move || {
                // The first wait, as `TaskFuture::register` does it.
                key.store(1, Ordering::SeqCst);
                fence(Ordering::SeqCst);
                let aborted = slot
                    .with_cell(|cell| {
                        cell.deposit(&waker);
                        cell.is_aborted()
                    })
                    .unwrap_or(false);
                if aborted {
                    waker.wake_by_ref();
                }
            })
        };
        let handle = slot.handle(Id::from_u64(1), || {
            (key.load(Ordering::Relaxed) != 0).then(|| waker.clone())
        });
        handle.abort();
        task.join().unwrap();
        assert!(
            wakes.0.load(Ordering::SeqCst) >= 1,
            "an abort did not wake the waiting task"
        );
    });
}

/// A task that waited and then finishes leaves no waker in its cell, whatever the
/// interleaving with a maker that deposits the waker it found in the registry: the
/// cell's handles must not keep the finished task alive (task → cell → waker → task).
#[test]
fn a_finished_task_leaves_no_waker_in_its_cell() {
    loom::model(|| {
        let slot = Arc::new(AbortSlot::new());
        let wakes = std::sync::Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = Waker::from(std::sync::Arc::clone(&wakes));
        let first = slot.handle(Id::from_u64(1), || None);
        let task = {
            let (slot, waker) = (Arc::clone(&slot), waker.clone());
            thread::spawn(move || {
                slot.with_cell(|cell| cell.deposit(&waker));
                slot.finish();
            })
        };
        let second = slot.handle(Id::from_u64(1), || Some(waker.clone()));
        task.join().unwrap();
        assert!(first.is_finished() && second.is_finished());
        assert!(
            first.cell.waker.lock().is_none(),
            "a finished task's waker stayed in its abort cell"
        );
    });
}

/// A handle made while the task's future is being dropped learns that it finished.
#[test]
fn a_handle_made_as_the_task_finishes_says_finished() {
    loom::model(|| {
        let slot = Arc::new(AbortSlot::new());
        let task = {
            let slot = Arc::clone(&slot);
            thread::spawn(move || slot.finish())
        };
        let handle = slot.handle(Id::from_u64(1), || None);
        task.join().unwrap();
        assert!(
            handle.is_finished(),
            "a finished task's handle says it runs"
        );
    });
}

#[test]
fn exactly_one_zero_after_everything() {
    loom::model(|| {
        let count = Arc::new(TaskCount::new(1));
        // Tasks and holders not yet gone: 3 tasks, the worker and the executor. Each
        // thread takes one off before its update, so the update that reports zero must
        // see none left.
        let alive = Arc::new(AtomicUsize::new(5));
        let zeros = Arc::new(AtomicUsize::new(0));
        // Made before the threads start: two on worker 0 (one ends on a foreign thread),
        // one on a foreign thread (it ends on worker 0).
        assert!(count.created(Some(0)).is_none());
        assert!(count.created(Some(0)).is_none());
        assert!(count.created(None).is_none());
        let step = |update: &dyn Fn() -> Option<super::task_count::Zero>,
                    alive: &AtomicUsize,
                    zeros: &AtomicUsize| {
            alive.fetch_sub(1, Ordering::SeqCst);
            if update().is_some() {
                assert_eq!(
                    alive.load(Ordering::SeqCst),
                    0,
                    "zero while something lives"
                );
                zeros.fetch_add(1, Ordering::SeqCst);
            }
        };
        let worker = {
            let (count, alive, zeros) = (count.clone(), alive.clone(), zeros.clone());
            thread::spawn(move || {
                step(&|| count.destroyed(Some(0)), &alive, &zeros);
                step(&|| count.destroyed(Some(0)), &alive, &zeros);
                step(&|| count.holder_left(Some(0)), &alive, &zeros);
            })
        };
        let foreign = {
            let (count, alive, zeros) = (count.clone(), alive.clone(), zeros.clone());
            thread::spawn(move || step(&|| count.destroyed(None), &alive, &zeros))
        };
        step(&|| count.holder_left(None), &alive, &zeros);
        worker.join().unwrap();
        foreign.join().unwrap();
        assert_eq!(zeros.load(Ordering::SeqCst), 1);
    });
}
