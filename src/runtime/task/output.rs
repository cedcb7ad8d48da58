//! [`TaskOutput`], the output a task stores for its `JoinHandle`.
//!
//! Invariant: the result is taken exactly once, by the `JoinHandle`
//! ([`TaskOutput::into_result`]) or by the output's drop, which drops a result nobody took
//! (a detached task's) inside a panic guard, with the task's id as the current one, so that
//! its destructor never runs inside async-task's abort-on-panic guard.

use std::mem::ManuallyDrop;

use crate::runtime::task::id::{CurrentId, Id};
use crate::runtime::task::JoinError;
use crate::util::wake_all::drop_quietly;

/// The output a task stores: its result, dropped inside a panic guard if nobody takes it
/// (with the task's id as the current one).
pub(crate) struct TaskOutput<T> {
    /// Dropped by `Drop` unless `into_result` moved it out (which forgets the wrapper).
    result: ManuallyDrop<Result<T, JoinError>>,
    id: Id,
}

impl<T> TaskOutput<T> {
    pub(super) fn new(result: Result<T, JoinError>, id: Id) -> TaskOutput<T> {
        TaskOutput {
            result: ManuallyDrop::new(result),
            id,
        }
    }

    /// The result (the `JoinHandle` takes it exactly once: this consumes the output).
    pub(crate) fn into_result(self) -> Result<T, JoinError> {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped (ManuallyDrop), so the result is moved out once
        // and not dropped again.
        unsafe { ManuallyDrop::take(&mut this.result) }
    }
}

impl<T> Drop for TaskOutput<T> {
    #[inline]
    fn drop(&mut self) {
        // A result without a destructor to run (a detached `()` task's): nothing to see the
        // id, nothing to drop.
        if !std::mem::needs_drop::<T>() && self.result.is_ok() {
            return;
        }
        // SAFETY: `drop` runs once, and `into_result` (the only other taker) forgets the
        // wrapper: the result is taken exactly once.
        let result = unsafe { ManuallyDrop::take(&mut self.result) };
        let _id = CurrentId::enter(self.id.as_u64());
        drop_quietly(result);
    }
}
