//! Empty and reversed ranges (`start >= end`) complete at once without calling anything but
//! `identity` (for `par_reduce`): the body is never called, `par_map` gives an empty Vec and
//! `par_reduce` gives `identity()`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::{named_executor, watchdog};
use futures::FutureExt;

const M: usize = usize::MAX;

#[allow(clippy::reversed_empty_ranges)]
fn ranges() -> Vec<std::ops::Range<usize>> {
    vec![0..0, 5..5, 10..3, 1..0, M..M, M..0, M..M - 1, M - 1..M - 1]
}

#[test]
fn nothing_is_called() {
    watchdog(30, "nothing_is_called", || {
        let ex = named_executor(2, "empty");
        for range in ranges() {
            let what = format!("{range:?}");
            ex.block_on(filch::par_range(range.clone(), |i| {
                panic!("body called on {i}")
            }));
            let v: Vec<String> = ex.block_on(filch::par_map(range.clone(), |i| {
                panic!("par_map's f called on {i}")
            }));
            assert!(v.is_empty(), "par_map({what})");

            let identities = Arc::new(AtomicUsize::new(0));
            let ids = Arc::clone(&identities);
            let r = ex.block_on(filch::par_reduce(
                range.clone(),
                move || {
                    ids.fetch_add(1, Ordering::SeqCst);
                    String::from("identity")
                },
                |_, i| panic!("fold called on {i}"),
                |_, _| panic!("reduce called"),
            ));
            assert_eq!(r, "identity", "par_reduce({what})");
            assert_eq!(
                identities.load(Ordering::SeqCst),
                1,
                "par_reduce({what}): identity() calls"
            );
        }
    });
}

/// "Completes at once": the first poll is `Ready`, from any thread, on every entry point.
#[test]
fn the_first_poll_is_ready() {
    watchdog(30, "the_first_poll_is_ready", || {
        let ex = named_executor(1, "empty-now");
        let handle = ex.handle();
        for range in ranges() {
            let what = format!("{range:?}");
            assert_eq!(
                handle
                    .par_range(range.clone(), |_| panic!("body"))
                    .now_or_never(),
                Some(()),
                "Handle::par_range({what})"
            );
            assert_eq!(
                ex.par_map(range.clone(), |_| -> u8 { panic!("f") })
                    .now_or_never(),
                Some(Vec::new()),
                "Executor::par_map({what})"
            );
            assert_eq!(
                handle
                    .par_reduce(
                        range.clone(),
                        || 7u64,
                        |_, _| panic!("fold"),
                        |_, _| panic!("reduce")
                    )
                    .now_or_never(),
                Some(7),
                "Handle::par_reduce({what})"
            );
            let v = ex.block_on(async { filch::par_map(range.clone(), |i| i).now_or_never() });
            assert_eq!(v, Some(Vec::new()), "filch::par_map({what}) in block_on");
        }
    });
}
