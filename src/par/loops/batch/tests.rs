//! White-box tests of `par/batch.rs`.

use super::*;

/// The batches a lone owner claims from a slice of `len` indices, with `b`.
fn drain(b: &mut BatchSize, len: usize) -> Vec<usize> {
    let mut sizes = Vec::new();
    let mut next = 0;
    while next < len {
        let take = b.limit(&(next..len)).min(len - next);
        b.claimed();
        sizes.push(take);
        next += take;
    }
    sizes
}

#[test]
fn batches_grow_then_shrink_toward_the_end_of_the_slice() {
    let sizes = drain(&mut BatchSize::default(), 1_000_000);
    assert_eq!(&sizes[..4], &[1, 2, 4, 8]);
    assert!(sizes.iter().all(|&s| s <= MAX_BATCH), "{sizes:?}");
    assert!(sizes.len() < 1_000_000 / MAX_BATCH + 100, "{}", sizes.len());
    assert_eq!(sizes.last(), Some(&1));
}

#[test]
fn a_theft_shrinks_the_batch_and_an_install_restarts_it() {
    let mut b = BatchSize::default();
    let mut sizes = Vec::new();
    for k in 0..8 {
        sizes.push(b.limit(&(k * 1000..100_000)));
        b.claimed();
    }
    assert_eq!(sizes, [1, 2, 4, 8, 16, 32, 64, 128]);
    // The end moved down: a thief came.
    assert_eq!(b.limit(&(8000..60_000)), 256 / SHRINK);
    b.claimed();
    // No growth on that claim; the next one grows again.
    assert_eq!(b.limit(&(9000..60_000)), 256 / SHRINK);
    b.installed(500);
    assert_eq!(b.limit(&(100..500)), 1);
}

#[test]
fn the_time_cap_bounds_the_batch() {
    let mut b = BatchSize::default();
    for _ in 0..20 {
        let _ = b.limit(&(0..1_000_000));
        b.claimed();
    }
    assert_eq!(b.limit(&(0..1_000_000)), MAX_BATCH);
    // 10 items in 100 µs: 10 µs each, so 2 items make 20 µs.
    b.measured(10, Duration::from_micros(100));
    assert_eq!(b.limit(&(0..1_000_000)), 2);
    // Nothing finished: one at a time.
    b.measured(0, Duration::from_millis(3));
    assert_eq!(b.limit(&(0..1_000_000)), 1);
    // Nanosecond items: the growth limit rules again.
    b.measured(1_000_000, Duration::from_millis(1));
    assert_eq!(b.limit(&(0..1_000_000)), MAX_BATCH);
}
