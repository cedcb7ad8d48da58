//! White-box tests of `runtime/task/task_count.rs`.

use super::{TaskCount, BIAS, FOLD_AT};

#[test]
fn zero_only_after_every_holder_and_task() {
    let count = TaskCount::new(2);
    assert!(count.created(Some(0)).is_none());
    assert!(count.created(Some(0)).is_none());
    assert!(count.created(None).is_none());
    // Tasks created on worker 0 end on a foreign thread.
    assert!(count.destroyed(None).is_none());
    assert!(count.destroyed(None).is_none());
    assert!(count.holder_left(None).is_none());
    assert!(count.holder_left(Some(1)).is_none());
    assert!(count.holder_left(Some(0)).is_none());
    // One task left (net: 3 created, 2 destroyed).
    assert!(count.destroyed(None).is_some());
}

#[test]
fn last_holder_releases_when_no_task_lives_and_a_late_task_revives() {
    let count = TaskCount::new(1);
    assert!(count.created(Some(0)).is_none());
    assert!(count.destroyed(Some(0)).is_none());
    assert!(count.holder_left(None).is_none());
    assert!(count.holder_left(Some(0)).is_some());
    assert!(count.created(None).is_some());
    assert!(count.destroyed(None).is_some());
}

/// Tasks created on a worker and destroyed on another thread: a count without folds would
/// drift with enough such pairs and bring `global` to zero while a task and every holder
/// are still alive. The local count is folded before it can drift, so the global count
/// never goes below the bias minus one fold per worker, however many pairs run.
#[test]
fn cross_thread_flow_never_drifts_the_global_count() {
    let count = TaskCount::new(2);
    assert!(count.created(None).is_none()); // one task that stays alive
                                            // Every task made on worker 0 ends elsewhere, and every task made elsewhere ends on
                                            // worker 1: `global` alone would drift by 4·FOLD_AT one way and `local[1]` the other.
    for _ in 0..5 * FOLD_AT {
        assert!(count.created(Some(0)).is_none());
        assert!(count.destroyed(None).is_none());
    }
    for _ in 0..FOLD_AT + 5 {
        assert!(count.created(None).is_none());
        assert!(count.destroyed(Some(1)).is_none());
    }
    let global = count.global.load(crate::util::sync::Ordering::Relaxed);
    assert!(
        global > BIAS - 2 * FOLD_AT && global < BIAS + 2 * FOLD_AT,
        "global drifted to {global:#x}"
    );
    assert!(count.holder_left(Some(0)).is_none());
    assert!(count.holder_left(None).is_none());
    assert!(count.holder_left(Some(1)).is_none());
    assert!(count.destroyed(None).is_some(), "the count is not exact");
}

/// Far more workers than `(workers + 1) * 2^48` allowed: the bias does not depend on the
/// number of workers.
#[test]
fn many_workers_do_not_overflow() {
    let count = TaskCount::new(100_000);
    for i in 0..100_000 {
        assert!(count.holder_left(Some(i)).is_none());
    }
    assert!(count.holder_left(None).is_some());
}
