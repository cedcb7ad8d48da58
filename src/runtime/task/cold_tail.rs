//! [`ColdTail`]: a task's future followed by a cache line that nothing touches, and
//! [`wants_cold_tail`], the rule for which tasks get one.
//!
//! async-task puts a task's future last in the task's allocation, after the header (whose
//! state word every schedule and every poll writes) and the schedule function. Tasks
//! spawned one after another are neighbours in memory, so the line that holds the start
//! of one task also holds the last bytes of the task before it. When the two run on
//! different workers, each poll of one takes that line away from the other's core (false
//! sharing), which slows every poll of tasks that run often (`docs/benchmarks.md` has the
//! measured effect on tasks that yield in a loop). A future
//! that ends in [`COLD_TAIL`] bytes that are never read or written keeps every task's hot
//! bytes a cache line away from the next allocation's, whatever the allocator puts between
//! them. (tokio aligns its task cells to 128 bytes for the same reason.)
//!
//! **Only tasks that are not small get a tail** ([`SMALL_TASK`]): glibc's malloc serves
//! requests of up to 120 bytes from its fastbins, and a task freed on another thread than
//! the one that allocated it (any spawn from outside the workers, any stolen task) is far
//! cheaper to free there. A tail on such a task made `spawn_many` about 2.3 times slower;
//! a task of that size keeps sharing its lines. A larger task is in glibc's slower bins
//! anyway, and the tail costs it 64 bytes of memory and nothing else.
//!
//! **Invariant:** the tail is the last field of a `repr(C)` struct, after the future, and is
//! never initialised, read or written.

use std::future::Future;
use std::mem::{size_of, MaybeUninit};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The size of the unused tail: one cache line.
pub(crate) const COLD_TAIL: usize = 64;

/// The largest task allocation that stays without a tail: glibc's fastbins serve requests
/// of up to 120 bytes on 64-bit targets (chunks of up to 128 bytes).
pub(crate) const SMALL_TASK: usize = 120;

/// What async-task's header holds before the metadata: the state word, the awaiter (an
/// `Option<Waker>`: two words) and the vtable pointer.
const ASYNC_TASK_HEADER: usize = 4 * size_of::<usize>();

pin_project_lite::pin_project! {
    /// `future`, then [`COLD_TAIL`] bytes that nothing touches (module docs).
    #[repr(C)]
    pub(crate) struct ColdTail<F> {
        #[pin]
        future: F,
        tail: MaybeUninit<[u8; COLD_TAIL]>,
    }
}

impl<F> ColdTail<F> {
    pub(crate) fn new(future: F) -> ColdTail<F> {
        ColdTail {
            future,
            tail: MaybeUninit::uninit(),
        }
    }
}

impl<F: Future> Future for ColdTail<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().future.poll(cx)
    }
}

/// Whether a task whose metadata, future and stored result (async-task keeps the result
/// where the future was) take `meta`, `future` and `result` bytes gets a cold tail: when
/// its allocation is larger than [`SMALL_TASK`] bytes (module docs). The header's size is
/// async-task's, counted here by hand: an error only moves the line between the two kinds
/// of task.
pub(crate) const fn wants_cold_tail(meta: usize, future: usize, result: usize) -> bool {
    let body = if future > result { future } else { result };
    ASYNC_TASK_HEADER + meta + body > SMALL_TASK
}

#[cfg(all(test, not(loom)))]
mod tests;
