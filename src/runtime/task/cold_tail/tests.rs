//! White-box tests of `runtime/task/cold_tail.rs`.

use std::mem::{offset_of, size_of};

use super::{wants_cold_tail, ColdTail, COLD_TAIL};

/// `ColdTail<F>` holds `F` whole before its tail, and at least [`COLD_TAIL`] bytes
/// follow the tail's start.
fn assert_tail_is_last<F>() {
    let name = std::any::type_name::<F>();
    let tail = offset_of!(ColdTail<F>, tail);
    assert!(
        offset_of!(ColdTail<F>, future) + size_of::<F>() <= tail,
        "the future ({name}) overlaps or follows the cold tail"
    );
    assert!(
        size_of::<ColdTail<F>>() - tail >= COLD_TAIL,
        "the cold tail is cut short (future {name})"
    );
}

#[test]
fn the_tail_follows_the_whole_future() {
    assert_tail_is_last::<()>();
    assert_tail_is_last::<u8>();
    assert_tail_is_last::<[u64; 9]>();
    assert_tail_is_last::<std::future::Ready<u128>>();
    assert_tail_is_last::<std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>>();
}

#[test]
fn small_tasks_get_no_tail_and_larger_ones_do() {
    // 32 bytes of header, 32 of metadata: 56 bytes of future or result still fit.
    assert!(!wants_cold_tail(32, 56, 8));
    assert!(!wants_cold_tail(32, 16, 56));
    assert!(wants_cold_tail(32, 57, 8));
    assert!(wants_cold_tail(32, 16, 57));
}

/// A future in a cold tail runs to its result, and is dropped once, also unpolled.
#[test]
fn a_wrapped_future_runs_and_drops() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    struct CountDrop(Arc<AtomicUsize>);
    impl Drop for CountDrop {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let guard = CountDrop(Arc::clone(&drops));
    let run = ColdTail::new(async move {
        let _guard = guard;
        filch_yield().await;
        7
    });
    assert_eq!(futures::executor::block_on(run), 7);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    let unpolled = ColdTail::new(std::future::ready(CountDrop(Arc::clone(&drops))));
    drop(unpolled);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

/// One `Pending` before completing.
async fn filch_yield() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}
