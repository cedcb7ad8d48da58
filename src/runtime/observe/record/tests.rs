//! White-box tests of `runtime/observe/record.rs`.

use std::mem::{size_of, size_of_val};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use crate::runtime::scheduler::state::State;
use crate::runtime::task::cold_tail::wants_cold_tail;
use crate::runtime::task::{Payload, TaskFuture, TaskMeta, TaskOutput};

use super::TaskRecord;

/// Every task that waits has a record: keep it at 56 bytes (one 64-byte malloc chunk).
#[test]
fn a_record_stays_at_56_bytes() {
    assert_eq!(size_of::<TaskRecord>(), 56);
}

/// A task that captures two `Arc`s and returns nothing (the benchmarks' `spawn_many`
/// task) stays small enough for glibc's fastbins (`runtime/task/cold_tail.rs`): the id and spawn
/// location cost the metadata two words, and the dump's record lives out of line.
#[test]
fn a_tiny_task_stays_small() {
    assert_eq!(size_of::<TaskMeta<State>>(), 48);
    let (a, b) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let future = async move {
        a.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        drop(b);
    };
    fn sizes<F: std::future::Future>(_: &F) -> (usize, usize) {
        (
            size_of::<TaskFuture<F, State>>(),
            size_of::<Result<TaskOutput<F::Output>, Payload>>(),
        )
    }
    let (future_size, result_size) = sizes(&future);
    // The wrapper costs the user's future one word (the metadata pointer, which carries the
    // wrapper's flags): a tiny task's allocation stays at 112 bytes, in glibc's fastbins.
    assert!(
        future_size <= size_of_val(&future) + 8,
        "TaskFuture costs a tiny future {} bytes",
        future_size - size_of_val(&future)
    );
    assert!(
        !wants_cold_tail(size_of::<TaskMeta<State>>(), future_size, result_size),
        "a tiny task grew past the small-task size: future {future_size}, result {result_size}"
    );
}

/// The record's states follow its calls: made at a spawn (no wake yet), scheduled, running,
/// idle; a stamp of any value, `u32::MAX` included, is a real one.
#[test]
fn a_record_follows_its_schedule_calls_and_polls() {
    let record = TaskRecord::new(None, false, 0, 0, None);
    let view = record.view();
    assert!(view.last_wake.is_none() && view.last_poll.is_none());
    assert!(!view.scheduled && !view.running);

    let at = u64::from(u32::MAX);
    record.scheduled(at);
    let view = record.view();
    assert_eq!(view.last_wake, Some(u32::MAX));
    assert!(view.scheduled && !view.running);

    record.poll_started(at + 1);
    let view = record.view();
    assert!(view.running && !view.scheduled);
    assert_eq!((view.polls, view.last_poll), (1, Some(0)));

    record.poll_ended(at + 1, at + 4);
    let view = record.view();
    assert!(!view.running && !view.scheduled);
    assert_eq!(view.busy, std::time::Duration::from_millis(3));
    assert_eq!(view.last_poll, Some(3));
    assert_eq!(view.last_wake, Some(u32::MAX));
}
