//! [`WakePolicy`]: where a woken task goes. A leaf: the state stores it, the schedule
//! function reads it, the builder sets it.

/// Where a task that is woken goes. See the crate docs for when to pick which.
///
/// ```
/// use filch::{Executor, WakePolicy};
/// let ex = Executor::builder().wake_policy(WakePolicy::CurrentWorker).build().unwrap();
/// assert_eq!(WakePolicy::default(), WakePolicy::LastWorker);
/// # drop(ex);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WakePolicy {
    /// WS-LAST (Vrba, Halvorsen and Griwodz): a woken task goes back to the worker it last
    /// ran on, waking that worker if it is parked; it migrates only by being stolen.
    #[default]
    LastWorker,
    /// Classic work stealing (WS-CUR): a task woken on a worker thread goes onto that
    /// worker's own deque.
    CurrentWorker,
}
