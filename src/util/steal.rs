//! [`retry`]: one steal from a crossbeam queue, retried while it reports contention: the
//! worker loop's and the stand-ins' searches take tasks through it.

use crossbeam_deque::Steal;

/// Runs `steal` until it succeeds or finds the queue empty (`Steal::Retry` means another
/// thief raced this one: the queue may still hold work).
#[inline]
pub(crate) fn retry<T>(mut steal: impl FnMut() -> Steal<T>) -> Option<T> {
    loop {
        match steal() {
            Steal::Success(item) => return Some(item),
            Steal::Retry => continue,
            Steal::Empty => return None,
        }
    }
}
