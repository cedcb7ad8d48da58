//! [`block_in_place`]: tokio's, on filch's workers.

use crate::runtime::coop;
use crate::runtime::scheduler::forkjoin::occupy::Blocking;
use crate::runtime::scheduler::standin::serve;
use crate::runtime::scheduler::worker::context;

/// Runs the blocking (or long) function `f` on the current thread, and, on a worker, hands
/// the worker's other duties over first, as tokio's `block_in_place` does: its queued tasks
/// go where the other workers take them, and a stand-in thread takes its place (it polls
/// the worker's tasks and turns the IO driver and timers) until `f` returns. Only the
/// worker's pinned tasks, bound to its thread, wait for `f`.
///
/// The task that calls it stays in its poll meanwhile, so its own other futures (in a
/// `join!` or `select!`) wait too. On a stand-in (the task was polled by the thread that
/// took an occupied worker's place), another thread takes the stand-in's place in turn. Off
/// the workers (a blocking-pool thread, `block_on`'s thread), `f` just runs. As with tokio's, `f` may re-enter the async world with
/// [`Handle::block_on`](crate::Handle::block_on), and runs with no cooperative budget (a
/// future it polls by other means is never made to yield by filch's resources).
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let answer = ex.block_on(ex.spawn(async {
///     filch::task::block_in_place(|| {
///         // A blocking call: the executor's other tasks, IO and timers go on meanwhile.
///         std::thread::sleep(std::time::Duration::from_millis(10));
///         42
///     })
/// }));
/// assert_eq!(answer.unwrap(), 42);
/// ```
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    // No cooperative budget inside: a future that `f` polls by other means (another crate's
    // `block_on`) never has filch's resources yield for the task that called this.
    context::with_worker(|worker| match worker {
        Some(worker) => {
            let _blocking = Blocking::enter(worker);
            coop::unconstrained(f)
        }
        // A stand-in (which polled this task) hands its slot to another thread first.
        None => serve::hand_off_while(|| coop::unconstrained(f)),
    })
}
