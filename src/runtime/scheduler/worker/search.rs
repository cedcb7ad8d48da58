//! [`Search`]: taking a task from the queues that every thread of an executor can reach: a
//! worker's inbox, the injector, and the workers' deques and inboxes. The worker loop
//! (steps 3 and 5 of its search order, `worker/mod.rs`) and a stand-in in its worker's place
//! (`standin/serve.rs`) search through it; they differ only in where a find goes.
//!
//! - A worker takes **batches** into its own deque (crossbeam's `steal_batch_and_pop`): the
//!   first task of the batch is returned, the rest wait on the deque, where thieves can see
//!   them again. The worker's loop announces such a batch to the idle workers
//!   (`announce_batch`), since it was out of their sight while it moved.
//! - A stand-in has no deque of its own (its worker's deque belongs to the worker's
//!   thread): it takes **one task** at a time, and looks at its own worker's deque and inbox
//!   too, where the tasks its held worker woke or yielded before the hold wait.
//!
//! A worker's fairness check (step 1) takes one task too: a batch would go onto its deque,
//! above the tasks already there.
//!
//! The victims of a round over the workers start at a random index (`util/rng.rs`), so that
//! searchers spread over the victims instead of all raiding worker 0.
//!
//! **Invariant:** each queue is asked until it answers `Success` or `Empty` (`retry`: a
//! `Retry` means another thief raced this one, not that the queue is empty), so a search that
//! returns `None` looked at every queue it names and found each one empty at its look.

use crossbeam_deque::{Injector, Steal, Stealer, Worker};

use crate::runtime::scheduler::state::{Runnable, State};

/// One thread's search of `state`'s shared queues (module docs).
pub(crate) struct Search<'a> {
    state: &'a State,
    /// The worker this thread runs as (a worker, or the stand-in in its place).
    index: usize,
    /// The deque a batch goes into (a worker's own); `None` for a stand-in, which takes one
    /// task at a time.
    into: Option<&'a Worker<Runnable>>,
}

impl<'a> Search<'a> {
    /// The search of worker `index`'s own thread, which takes batches into `deque`.
    pub(crate) fn batches(
        state: &'a State,
        index: usize,
        deque: &'a Worker<Runnable>,
    ) -> Search<'a> {
        Search {
            state,
            index,
            into: Some(deque),
        }
    }

    /// A search that takes one task at a time, as worker `index`'s stand-in does (and the
    /// worker's own fairness check, which must not put a batch above its deque's tasks).
    pub(crate) fn one_at_a_time(state: &'a State, index: usize) -> Search<'a> {
        Search {
            state,
            index,
            into: None,
        }
    }

    /// A task (a batch, for a worker) from this worker's inbox.
    #[inline]
    pub(crate) fn inbox(&self) -> Option<Runnable> {
        self.take_from_queue(&self.state.workers[self.index].inbox)
    }

    /// A task (a batch, for a worker) from the injector.
    #[inline]
    pub(crate) fn injector(&self) -> Option<Runnable> {
        self.take_from_queue(&self.state.injector)
    }

    /// One round over the workers' deques and inboxes (each deque before its inbox),
    /// starting at victim `start` (taken modulo the number of workers). A worker skips its
    /// own queues; a stand-in looks at its worker's too. `attempts` counts the queues asked.
    pub(crate) fn round(&self, start: usize, attempts: &mut u64) -> Option<Runnable> {
        let n = self.state.num_workers();
        for k in 0..n {
            let victim = (start + k) % n;
            if victim == self.index && self.into.is_some() {
                continue;
            }
            let other = &self.state.workers[victim];
            *attempts += 1;
            if let Some(task) = self.take_from_deque(&other.stealer) {
                return Some(task);
            }
            *attempts += 1;
            if let Some(task) = self.take_from_queue(&other.inbox) {
                return Some(task);
            }
        }
        None
    }

    fn take_from_queue(&self, queue: &Injector<Runnable>) -> Option<Runnable> {
        match self.into {
            Some(deque) => retry(|| queue.steal_batch_and_pop(deque)),
            None => retry(|| queue.steal()),
        }
    }

    fn take_from_deque(&self, stealer: &Stealer<Runnable>) -> Option<Runnable> {
        match self.into {
            Some(deque) => retry(|| stealer.steal_batch_and_pop(deque)),
            None => retry(|| stealer.steal()),
        }
    }
}

/// Runs `steal` until it succeeds or finds the queue empty (`Steal::Retry` means another
/// thief raced this one: the queue may still hold work).
#[inline]
fn retry<T>(mut steal: impl FnMut() -> Steal<T>) -> Option<T> {
    loop {
        match steal() {
            Steal::Success(item) => return Some(item),
            Steal::Retry => continue,
            Steal::Empty => return None,
        }
    }
}
