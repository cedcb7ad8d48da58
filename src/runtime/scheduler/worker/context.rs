//! The two thread-locals that say where the current thread is, and everything that reads
//! them: which executor the current thread is in (for `Handle::current`, the free functions and the
//! loops), and which worker it is (for the schedule function, the task count and `block_on`'s
//! check).
//!
//! - A worker thread enters its executor and installs its [`WorkerLocal`] for its whole
//!   life; `block_on` enters for the duration of the call (restoring the previous context
//!   after, so calls nest); a blocking-pool thread enters the executor that owns it.
//! - It also answers which worker the current thread is ([`with_worker`]), which `State`'s
//!   [`Counted`](crate::runtime::task::task_count::Counted) and
//!   [`TaskHome`](crate::runtime::task::TaskHome) impls (`state/home.rs`) read for the task count
//!   and the registry.
//!
//! **Invariants:** the `CURRENT` pointer is null or points to the `State` of an executor that
//! an [`CurrentGuard`] alive on this thread holds an `Arc` of; the `WORKER` pointer is null or
//! points to the `WorkerLocal` that a [`WorkerGuard`] alive on this thread borrows. Guards are
//! `!Send`, live on the stack, and restore the previous value when dropped (also on unwind).

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::local::WorkerLocal;

thread_local! {
    static CURRENT: Cell<*const State> = const { Cell::new(ptr::null()) };
    static WORKER: Cell<*const WorkerLocal> = const { Cell::new(ptr::null()) };
}

/// Restores the previous current executor when dropped.
pub(crate) struct CurrentGuard {
    previous: *const State,
    /// Keeps the entered executor's state alive while the pointer is installed.
    _state: Arc<State>,
}

/// Makes `state`'s executor the current one on this thread until the guard is dropped.
pub(crate) fn enter(state: Arc<State>) -> CurrentGuard {
    let previous = CURRENT.with(|c| c.replace(Arc::as_ptr(&state)));
    CurrentGuard {
        previous,
        _state: state,
    }
}

impl Drop for CurrentGuard {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
    }
}

/// Calls `f` with the current executor's state, if this thread is in one.
pub(crate) fn with_state<R>(f: impl FnOnce(Option<&Arc<State>>) -> R) -> R {
    let ptr = CURRENT.with(Cell::get);
    if ptr.is_null() {
        return f(None);
    }
    // SAFETY: by the module invariant `ptr` came from `Arc::as_ptr` of an `Arc<State>` that
    // a live `CurrentGuard` on this thread holds, so the strong count is at least one for the
    // whole call. `ManuallyDrop` keeps us from releasing a count we did not take.
    let state = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(ptr) });
    f(Some(&state))
}

/// The current executor's state, if this thread is in one.
pub(crate) fn current_state() -> Option<Arc<State>> {
    with_state(|state| state.cloned())
}

/// Uninstalls the worker when dropped (also when the worker loop unwinds).
pub(crate) struct WorkerGuard<'a> {
    _worker: PhantomData<&'a WorkerLocal>,
}

/// Installs `worker` as this thread's worker until the guard is dropped.
pub(crate) fn enter_worker(worker: &WorkerLocal) -> WorkerGuard<'_> {
    WORKER.with(|w| {
        debug_assert!(w.get().is_null(), "a worker thread inside a worker thread");
        w.set(worker);
    });
    WorkerGuard {
        _worker: PhantomData,
    }
}

impl Drop for WorkerGuard<'_> {
    fn drop(&mut self) {
        WORKER.with(|w| w.set(ptr::null()));
    }
}

/// Calls `f` with this thread's worker, if it is a filch worker.
pub(crate) fn with_worker<R>(f: impl FnOnce(Option<&WorkerLocal>) -> R) -> R {
    let ptr = WORKER.with(Cell::get);
    // SAFETY: a non-null pointer was installed by `enter_worker` from a reference that the
    // live `WorkerGuard` borrows (module invariant), so it points to a live `WorkerLocal`;
    // the reference does not outlive `f`, which runs on this thread. Only shared references
    // to it are ever made.
    f(unsafe { ptr.as_ref() })
}
