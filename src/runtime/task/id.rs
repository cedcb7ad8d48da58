//! Task ids: [`Id`], unique in the process, and the current task's id, a thread-local set
//! around each poll of a task and while filch drops a task's future or output.
//!
//! Ids come from one process-wide counter, taken in blocks of [`BLOCK`] per thread, so a
//! spawn costs a thread-local increment and only every [`BLOCK`]th spawn of a thread
//! touches the shared counter.
//!
//! Invariants:
//! - no two tasks of the process ever get the same id (the counter only grows; 2^64 ids
//!   are never spent);
//! - the current id is restored when a guard drops, so nested scopes (a task polled inside
//!   another's drop, a `block_on` inside a blocking job) see their own.

use std::cell::Cell;
use std::fmt;
use std::num::NonZeroU64;
// std's, not `crate::util::sync`'s: the counter lives in a static.
use std::sync::atomic::{AtomicU64, Ordering};

/// Ids a thread takes from the shared counter at once.
const BLOCK: u64 = 256;

/// The next block's first id (ids start at 1, so 0 means "none" in the thread-local).
static NEXT_BLOCK: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's block of ids: the next one and the end of the block.
    static BLOCK_IDS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    /// The id of the task this thread is polling or dropping, or 0.
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// A task's id: unique among every task this process ever spawned, on any executor.
///
/// A blocking job (`spawn_blocking`) is a task too and has an id. Ids are ordered by
/// nothing meaningful beyond uniqueness (a later spawn on another thread may get a smaller
/// one).
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let a = ex.spawn(async { filch::task::id() });
/// let b = ex.spawn(async {});
/// assert_ne!(a.id(), b.id());
/// let id = a.id();
/// assert_eq!(ex.block_on(a).unwrap(), id);
/// println!("task {id}");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(NonZeroU64);

impl Id {
    /// A fresh id.
    #[inline]
    pub(crate) fn next() -> Id {
        let raw = BLOCK_IDS.with(|block| {
            let (mut next, mut end) = block.get();
            if next == end {
                // Relaxed: only uniqueness matters, which the read-modify-write gives.
                next = NEXT_BLOCK.fetch_add(BLOCK, Ordering::Relaxed);
                end = next + BLOCK;
            }
            block.set((next + 1, end));
            next
        });
        Id::from_u64(raw)
    }

    /// The id `raw` (non-zero: made by [`Id::next`]).
    #[inline]
    pub(crate) fn from_u64(raw: u64) -> Id {
        Id(NonZeroU64::new(raw).expect("filch: a task id of zero"))
    }

    /// The id as a number.
    pub(crate) fn as_u64(self) -> u64 {
        self.0.get()
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.0)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0.get())
    }
}

/// Makes `id` the current task's until the guard drops (then the previous one is back).
pub(crate) struct CurrentId {
    previous: u64,
}

impl CurrentId {
    #[inline]
    pub(crate) fn enter(id: u64) -> CurrentId {
        CurrentId {
            previous: CURRENT.replace(id),
        }
    }
}

impl Drop for CurrentId {
    #[inline]
    fn drop(&mut self) {
        CURRENT.set(self.previous);
    }
}

/// The id of the task being polled (or dropped by filch) on this thread.
///
/// # Panics
/// Outside a task: on a thread that is not polling one (`block_on`'s own future is no task).
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let handle = ex.spawn(async { filch::task::id() });
/// let id = handle.id();
/// assert_eq!(ex.block_on(handle).unwrap(), id);
/// ```
#[track_caller]
pub fn id() -> Id {
    try_id().expect("filch::task::id() called outside a task")
}

/// The id of the task being polled (or dropped by filch) on this thread; `None` outside a
/// task, for instance in `block_on`'s own future.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// assert_eq!(ex.block_on(async { filch::task::try_id() }), None);
/// assert!(ex.block_on(ex.spawn(async { filch::task::try_id() })).unwrap().is_some());
/// ```
pub fn try_id() -> Option<Id> {
    NonZeroU64::new(CURRENT.get()).map(Id)
}
