//! `State` as its tasks' home: the [`TaskHome`] impl (the registry, the kept destructor
//! panics, the completion note, the slow-poll watch, the paused clock) and the [`Counted`]
//! impl the task count reads.
//!
//! Invariant: both answer "which worker of this executor is the current thread" only from
//! the worker thread-local (`worker/context.rs`): a thread that is no worker of this
//! executor (another executor's worker included) gets `None` from
//! [`Counted::current_worker`] and registers in the shared shard (index `num_workers`).
//! Out of `state.rs` because the thread-locals' module imports `State` (the layer check
//! forbids the cycle).

use crate::runtime::observe::poll_watch::PollWatch;
use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::context;
use crate::runtime::task::live_tasks::LiveTasks;
use crate::runtime::task::task_count::{Counted, TaskCount};
use crate::runtime::task::{Payload, TaskHome};

impl Counted for State {
    fn task_count(&self) -> &TaskCount {
        &self.tasks
    }

    fn current_worker(&self) -> Option<usize> {
        context::with_worker(|worker| match worker {
            Some(w) if std::ptr::eq(&*w.state, self) => Some(w.index),
            _ => None,
        })
    }
}

impl TaskHome for State {
    fn live_tasks(&self) -> &LiveTasks {
        &self.live_tasks
    }

    fn registry_shard(&self) -> usize {
        self.current_worker().unwrap_or(self.num_workers())
    }

    fn keep_drop_panic(&self, tag: usize, payload: Payload) {
        self.drop_panics.lock().push((tag, payload));
    }

    fn task_completed(&self) {
        context::with_worker(|worker| {
            if let Some(worker) = worker {
                worker.note_completed();
            }
        });
    }

    fn poll_watch(&self) -> Option<&PollWatch> {
        self.poll_watch.as_deref()
    }

    #[cfg(all(feature = "test-util", feature = "tokio-context"))]
    fn clock_paused(&self) -> bool {
        self.driver.clock().is_paused()
    }

    fn take_drop_panic(&self, tag: usize) -> Option<Payload> {
        let mut kept = self.drop_panics.lock();
        let at = kept.iter().position(|(t, _)| *t == tag)?;
        Some(kept.swap_remove(at).1)
    }
}
