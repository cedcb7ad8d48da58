//! Keeps an executor's shared state alive exactly as long as any of its tasks exists,
//! without a read-modify-write on a shared cache line per task.
//!
//! A task reaches its executor through a plain pointer in its metadata. Had each task held
//! an `Arc<Shared>` instead, every spawn and every task's end would hit the same reference
//! count from every core (on a 2-core machine that increment alone was four fifths of the
//! time spent in `spawn`). Instead, the tasks together hold one `Arc` reference (the
//! *anchor*), released when the last task is gone, and the live tasks are counted:
//!
//! - on worker `i` of the executor, in `local[i]`, a counter only that worker's thread
//!   writes (a plain load and store, on the worker's own cache line): tasks created there
//!   minus tasks destroyed there;
//! - on any other thread, in `global`, with atomic read-modify-writes.
//!
//! `global` also holds one *bias* of [`BIAS`] per worker that has not exited and one for
//! the executor itself, in its high bits. A worker folds its `local` count into `global`
//! when it exits, together with the removal of its bias (after it stopped counting
//! locally); `Executor::drop` removes the executor's bias. So `global` is zero only once
//! every bias is gone and every local count was folded in, and then it is exactly the number
//! of live tasks: the one update that brings it to zero is the last task's end (or the last
//! bias), and that caller releases the anchor.
//!
//! Once every bias is gone, `global` can still go from zero back to one: a task spawned
//! through a `Handle` after the executor was dropped (it is dropped at once). Each such
//! increment from zero takes a new anchor (its creator holds an `Arc`), and the decrement back
//! to zero releases it, so anchors taken and released always balance.
//!
//! **Invariant:** `global == biases * BIAS + (tasks counted in global) + (folded local
//! counts)`, with `|tasks| < BIAS`, so it is zero iff no bias is left and no task lives; and
//! the number of anchors held is 1 while it is non-zero, 0 while it is zero.

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicU64, Ordering};

/// One bias: far above any number of live tasks (2^48 tasks would need petabytes).
const BIAS: u64 = 1 << 48;

pub(crate) struct TaskCount {
    local: Box<[CachePadded<AtomicU64>]>,
    global: CachePadded<AtomicU64>,
}

impl TaskCount {
    /// A count for `workers` workers, with one bias per worker and one for the executor.
    pub(crate) fn new(workers: usize) -> TaskCount {
        TaskCount {
            local: (0..workers)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            global: CachePadded::new(AtomicU64::new((workers as u64 + 1) * BIAS)),
        }
    }

    /// A task was created; `worker` is the current thread's worker index in this executor.
    ///
    /// Returns `true` if the count was zero: the anchor had been released (the executor is
    /// gone, and so were all its tasks), and the caller, who holds an `Arc` of the state,
    /// must take a new anchor for this task. (Without that, the task created through a
    /// `Handle` after shutdown would release an anchor it never had.)
    #[must_use]
    pub(crate) fn created(&self, worker: Option<usize>) -> bool {
        match worker {
            Some(i) => {
                bump(&self.local[i], 1);
                false
            }
            // AcqRel: the decrement that reaches zero acquires this increment (a release
            // sequence on `global`), and an increment from zero acquires that decrement.
            None => self.global.fetch_add(1, Ordering::AcqRel) == 0,
        }
    }

    /// A task was destroyed. Returns `true` if it was the last thing keeping the state
    /// alive: the caller releases the anchor.
    #[must_use]
    pub(crate) fn destroyed(&self, worker: Option<usize>) -> bool {
        match worker {
            Some(i) => {
                bump(&self.local[i], 1u64.wrapping_neg());
                false
            }
            None => self.sub_global(1),
        }
    }

    /// Worker `i` will count no more (it has left its loop and cleared its thread-local
    /// context): folds its count into `global` and removes its bias.
    #[must_use]
    pub(crate) fn worker_exited(&self, i: usize) -> bool {
        // Relaxed: written only by the calling thread (worker `i`) before.
        let net = self.local[i].load(Ordering::Relaxed);
        self.sub_global(BIAS.wrapping_sub(net))
    }

    /// The executor was dropped: removes its bias.
    #[must_use]
    pub(crate) fn executor_dropped(&self) -> bool {
        self.sub_global(BIAS)
    }

    fn sub_global(&self, n: u64) -> bool {
        // AcqRel: the update that reaches zero acquires every earlier one (they form a
        // release sequence on `global`), so the anchor is released after every use of the
        // state by the tasks that went before.
        self.global.fetch_sub(n, Ordering::AcqRel) == n
    }
}

/// Adds `n` (wrapping) to a counter that only the calling thread writes.
fn bump(counter: &AtomicU64, n: u64) {
    // Relaxed: single writer; the value is read again only by that thread (`worker_exited`).
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(n),
        Ordering::Relaxed,
    );
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::TaskCount;

    #[test]
    fn zero_only_after_every_bias_and_task() {
        let count = TaskCount::new(2);
        assert!(!count.created(Some(0)));
        assert!(!count.created(Some(0)));
        assert!(!count.created(None));
        // Tasks created on worker 0 end on a foreign thread: `global` dips below the
        // biases, never to zero.
        assert!(!count.destroyed(None));
        assert!(!count.destroyed(None));
        assert!(!count.executor_dropped());
        assert!(!count.worker_exited(1));
        assert!(!count.worker_exited(0));
        // One task left (net: 3 created, 2 destroyed).
        assert!(count.destroyed(None));
    }

    #[test]
    fn last_bias_releases_when_no_task_lives() {
        let count = TaskCount::new(1);
        assert!(!count.created(Some(0)));
        assert!(!count.destroyed(Some(0)));
        assert!(!count.executor_dropped());
        assert!(count.worker_exited(0));
        // A task spawned through a handle afterwards revives the count, and its end brings
        // it back to zero.
        assert!(count.created(None));
        assert!(count.destroyed(None));
    }
}
