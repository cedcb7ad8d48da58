//! White-box tests of `runtime/task/live_tasks.rs`.

use crate::util::sync::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Wake, Waker};

use super::LiveTasks;
struct WakeCount(AtomicUsize);
impl Wake for WakeCount {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// `abort` reads a task's key, the task completes and is removed, and
/// another task is registered under the same key before the wake. The wake must not
/// reach that other task.
#[test]
fn a_stale_key_does_not_wake_the_task_that_reused_it() {
    let registry = LiveTasks::new(1);
    let first = Arc::new(WakeCount(AtomicUsize::new(0)));
    let second = Arc::new(WakeCount(AtomicUsize::new(0)));
    let key = registry
        .register(0, 1, Waker::from(Arc::clone(&first)))
        .unwrap();
    registry.remove(key);
    let reused = registry
        .register(0, 2, Waker::from(Arc::clone(&second)))
        .unwrap();
    assert_eq!(
        reused, key,
        "the slab did not reuse the key; the test needs it to"
    );
    registry.wake(key, 1);
    assert_eq!(second.0.load(Ordering::SeqCst), 0, "woke an unrelated task");
    registry.wake(reused, 2);
    assert_eq!(second.0.load(Ordering::SeqCst), 1);
    assert_eq!(first.0.load(Ordering::SeqCst), 0);
}
