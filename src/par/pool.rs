//! The pool that `filch::par` runs on: an executor's workers.

/// The number of workers of the current executor (else the global one's).
pub fn current_num_threads() -> usize {
    crate::Handle::try_current()
        .unwrap_or_else(|_| crate::executor::global::current_or_global())
        .stats()
        .workers
        .len()
}

/// This worker's index in its executor; `None` off the workers.
///
/// INTERIM: always `None`.
pub fn current_thread_index() -> Option<usize> {
    None
}
