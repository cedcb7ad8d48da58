//! [`PinnedQueue`]: what the other threads see of one worker's pinned tasks (`pinned/spawn.rs`):
//! the queue of their runnables, which only that worker pops (no thief, no drain of another
//! thread while the worker lives), how many there are (the placement's load), and whether
//! the worker exited.
//!
//! Generic over the runnable type so that it sits below the state that holds one per
//! worker.
//!
//! **Invariants:**
//! - while the worker lives, only its own thread takes from the queue: a pinned task's
//!   runnable is run and dropped on its worker's thread (`runtime/scheduler/pinned/worker_side.rs`);
//! - the worker sets `exited` only once no future of its pinned tasks is alive (the count
//!   is zero, its queue drained); from then on [`PinnedQueue::orphans`] hands the queue to
//!   the post-shutdown drain (`State::drain_after_shutdown`), which may drop what reaches it
//!   on any thread: a runnable whose future was never created (a closure that is `Send`),
//!   or of a task already complete.

use crossbeam_deque::{Injector, Steal};

use crate::util::sync::{AtomicBool, AtomicUsize, Ordering};

/// One worker's pinned tasks, as the other threads see them (module docs).
pub(crate) struct PinnedQueue<T> {
    /// The runnables of this worker's pinned tasks, FIFO. Popped only by the worker while
    /// it lives; by the post-shutdown drain once it exited.
    queue: Injector<T>,
    /// The pinned tasks placed on this worker that are not dropped yet: counted at the
    /// spawn (on any thread), uncounted when the task's future (or its unrun closure) is
    /// dropped.
    tasks: AtomicUsize,
    /// Set by the worker as it exits, once no pinned future of it is alive.
    exited: AtomicBool,
}

impl<T> PinnedQueue<T> {
    pub(crate) fn new() -> PinnedQueue<T> {
        PinnedQueue {
            queue: Injector::new(),
            tasks: AtomicUsize::new(0),
            exited: AtomicBool::new(false),
        }
    }

    /// Queues a runnable; the caller notifies the worker (`runtime/scheduler/pinned/worker_side.rs`).
    pub(crate) fn push(&self, runnable: T) {
        self.queue.push(runnable);
    }

    /// Takes the oldest runnable. Only the worker calls this (module invariants).
    #[inline]
    pub(crate) fn pop(&self) -> Option<T> {
        // Loads only, when empty (the common case, on the worker's search path): a steal
        // from an empty `Injector` costs a SeqCst fence.
        if self.queue.is_empty() {
            return None;
        }
        loop {
            match self.queue.steal() {
                Steal::Success(runnable) => return Some(runnable),
                Steal::Retry => continue,
                Steal::Empty => return None,
            }
        }
    }

    /// Whether no runnable waits (the worker's re-check before it parks).
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The worker's load for the placement of a new pinned task: its pinned tasks alive or
    /// queued.
    pub(crate) fn tasks(&self) -> usize {
        // Acquire: pairs with the AcqRel decrement in `task_dropped`, so that a worker that
        // reads zero at its exit sees every pinned future's drop as done.
        self.tasks.load(Ordering::Acquire)
    }

    /// Counts a pinned task placed on this worker.
    pub(crate) fn task_added(&self) {
        // Relaxed: the count is a load hint for the placement; the task's runnable reaches
        // the worker through the queue, which orders everything the spawner did.
        self.tasks.fetch_add(1, Ordering::Relaxed);
    }

    /// Uncounts a pinned task whose future (or unrun closure) was just dropped.
    pub(crate) fn task_dropped(&self) {
        // AcqRel: pairs with the Acquire load in `tasks` (see there).
        self.tasks.fetch_sub(1, Ordering::AcqRel);
    }

    /// Marks the worker as exited (its pinned tasks all dropped). SeqCst: pairs with the
    /// pushers' fence (`notify_worker`) and the drain's re-check, as in push-then-check
    /// (`State::shutdown`, step 1): a runnable pushed after the worker's last look is seen
    /// by a drain.
    pub(crate) fn set_exited(&self) {
        self.exited.store(true, Ordering::SeqCst);
    }

    /// The queue, once the worker exited: the post-shutdown drain's to empty.
    pub(crate) fn orphans(&self) -> Option<&Injector<T>> {
        // Acquire: pairs with the SeqCst store in `set_exited`, after which no pinned future
        // of this worker is alive.
        self.exited.load(Ordering::Acquire).then_some(&self.queue)
    }
}
