//! Searches over 10²⁷ items (`u128` ranges, nested `flat_map`s) end early.
// origin: rayon tests/octillion.rs

use filch::par::prelude::*;

const OCTILLION: u128 = 1_000_000_000_000_000_000_000_000_000;

/// Produce a parallel iterator for 0u128..10²⁷
fn octillion() -> filch::par::range::Iter<u128> {
    (0..OCTILLION).into_par_iter()
}

/// Produce a parallel iterator for 0u128..=10²⁷
fn octillion_inclusive() -> filch::par::range_inclusive::Iter<u128> {
    (0..=OCTILLION).into_par_iter()
}

/// Produce a parallel iterator for 0u128..10²⁷ using `flat_map`
fn octillion_flat() -> impl ParallelIterator<Item = u128> {
    (0u32..1_000_000_000)
        .into_par_iter()
        .with_max_len(1_000)
        .map(|i| u64::from(i) * 1_000_000_000)
        .flat_map(|i| {
            (0u32..1_000_000_000)
                .into_par_iter()
                .with_max_len(1_000)
                .map(move |j| i + u64::from(j))
        })
        .map(|i| u128::from(i) * 1_000_000_000)
        .flat_map(|i| {
            (0u32..1_000_000_000)
                .into_par_iter()
                .with_max_len(1_000)
                .map(move |j| i + u128::from(j))
        })
}

// NOTE: `find_first` and `find_last` currently take too long on 32-bit targets,
// because the `AtomicUsize` match position has much too limited resolution.

#[test]
#[cfg_attr(not(target_pointer_width = "64"), ignore)]
fn find_first_octillion() {
    let x = octillion().find_first(|_| true);
    assert_eq!(x, Some(0));
}

#[test]
#[cfg_attr(not(target_pointer_width = "64"), ignore)]
fn find_first_octillion_inclusive() {
    let x = octillion_inclusive().find_first(|_| true);
    assert_eq!(x, Some(0));
}

#[test]
#[cfg_attr(not(target_pointer_width = "64"), ignore)]
fn find_first_octillion_flat() {
    let x = octillion_flat().find_first(|_| true);
    assert_eq!(x, Some(0));
}

/// Runs `f` on an executor of two workers, under the watchdog. With the pieces run one
/// after the other these searches would walk half an octillion items: they need the
/// second worker to take the right half while the first folds the left.
fn two_threads<F: Send + FnOnce() -> R + 'static, R: Send + 'static>(f: F) -> R {
    crate::common::watchdog(300, "octillion", move || {
        let ex = crate::common::executor(2);
        ex.block_on(async move { f() })
    })
}

#[test]
#[cfg_attr(
    any(
        not(target_pointer_width = "64"),
        target_os = "emscripten",
        target_family = "wasm"
    ),
    ignore
)]
fn find_last_octillion() {
    // It would be nice if `find_last` could prioritize the later splits,
    // basically flipping the `join` args, without needing indexed `rev`.
    // (or could we have an unindexed `rev`?)
    let x = two_threads(|| octillion().find_last(|_| true));
    assert_eq!(x, Some(OCTILLION - 1));
}

#[test]
#[cfg_attr(
    any(
        not(target_pointer_width = "64"),
        target_os = "emscripten",
        target_family = "wasm"
    ),
    ignore
)]
fn find_last_octillion_inclusive() {
    let x = two_threads(|| octillion_inclusive().find_last(|_| true));
    assert_eq!(x, Some(OCTILLION));
}

#[test]
#[cfg_attr(
    any(
        not(target_pointer_width = "64"),
        target_os = "emscripten",
        target_family = "wasm"
    ),
    ignore
)]
#[ignore = "passes, but takes about a minute in a debug build: each step toward the last of 10^27 items runs a nested search of 10^18"]
fn find_last_octillion_flat() {
    let x = two_threads(|| octillion_flat().find_last(|_| true));
    assert_eq!(x, Some(OCTILLION - 1));
}

#[test]
#[cfg_attr(any(target_os = "emscripten", target_family = "wasm"), ignore)]
fn find_any_octillion() {
    let x = two_threads(|| octillion().find_any(|x| *x > OCTILLION / 2));
    assert!(x.is_some());
}

#[test]
#[cfg_attr(any(target_os = "emscripten", target_family = "wasm"), ignore)]
fn find_any_octillion_flat() {
    let x = two_threads(|| octillion_flat().find_any(|x| *x > OCTILLION / 2));
    assert!(x.is_some());
}

#[test]
#[cfg_attr(any(target_os = "emscripten", target_family = "wasm"), ignore)]
fn filter_find_any_octillion() {
    let x = two_threads(|| {
        octillion()
            .filter(|x| *x > OCTILLION / 2)
            .find_any(|_| true)
    });
    assert!(x.is_some());
}

#[test]
#[cfg_attr(any(target_os = "emscripten", target_family = "wasm"), ignore)]
fn filter_find_any_octillion_flat() {
    let x = two_threads(|| {
        octillion_flat()
            .filter(|x| *x > OCTILLION / 2)
            .find_any(|_| true)
    });
    assert!(x.is_some());
}

#[test]
#[cfg_attr(any(target_os = "emscripten", target_family = "wasm"), ignore)]
fn fold_find_any_octillion_flat() {
    let x = two_threads(|| octillion_flat().fold(|| (), |_, _| ()).find_any(|_| true));
    assert!(x.is_some());
}
