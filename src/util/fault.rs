//! Test-only fault injection: the one seam through which white-box tests make the shipped
//! code fail where a real fault would strike (a thread that cannot start, a panicking waker
//! run inside a worker's park). Shipped code names its fault points with [`fires`]; outside
//! `cfg(test)` that is a constant `false`, so a point costs nothing and holds no state.
//!
//! A test arms a fault for the threads whose name starts with a prefix of its own (its
//! executor's `thread_name`), so that tests running at once in one process do not trip over
//! each other's faults. An armed fault fires once, after a given number of hits.

/// A fault a test can inject.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fault {
    /// Starting an executor's thread fails with an error (at `ThreadConfig::spawn`, on the
    /// thread that starts it; the name checked is the new thread's).
    ThreadStart,
    /// A worker booked as sleeping panics before it sleeps, as when a waker that the driver
    /// runs during its wait panics (at `Idle::park`).
    Park,
}

/// Whether `fault` fires now, at a point reached for the thread named `thread`.
#[cfg(not(all(test, not(loom))))]
#[inline(always)]
pub(crate) fn fires(_fault: Fault, _thread: Option<&str>) -> bool {
    false
}

#[cfg(all(test, not(loom)))]
pub(crate) use armed::{arm, fires, is_armed};

#[cfg(all(test, not(loom)))]
mod armed {
    use std::sync::Mutex;

    use super::Fault;

    /// The armed faults: which, for which thread-name prefix, after how many more hits.
    static ARMED: Mutex<Vec<(Fault, String, usize)>> = Mutex::new(Vec::new());

    fn armed() -> std::sync::MutexGuard<'static, Vec<(Fault, String, usize)>> {
        ARMED.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Arms `fault` for threads named `prefix…`: it fires at the `(skip + 1)`-th point
    /// reached for such a thread, once.
    pub(crate) fn arm(fault: Fault, prefix: &str, skip: usize) {
        armed().push((fault, prefix.to_string(), skip));
    }

    /// Whether `fault` is still armed for threads named `prefix…` (it has not fired yet).
    pub(crate) fn is_armed(fault: Fault, prefix: &str) -> bool {
        armed().iter().any(|(f, p, _)| *f == fault && p == prefix)
    }

    /// Whether `fault` fires now, at a point reached for the thread named `thread` (`None`:
    /// the current thread's name).
    pub(crate) fn fires(fault: Fault, thread: Option<&str>) -> bool {
        let current = std::thread::current();
        let Some(name) = thread.or(current.name()) else {
            return false;
        };
        let mut armed = armed();
        let Some(at) = armed
            .iter()
            .position(|(f, p, _)| *f == fault && name.starts_with(p.as_str()))
        else {
            return false;
        };
        if armed[at].2 > 0 {
            armed[at].2 -= 1;
            return false;
        }
        armed.swap_remove(at);
        true
    }
}
