//! The find consumers and folders directly: positions worn down to one shared by two
//! pieces still give the right answer, and a folder keeps the right match.
// origin: rayon src/iter/find_first_last/test.rs

use std::cell::Cell;

use super::*;

/// A consumer over all positions of an iterator of unknown length.
fn unindexed<'p, P>(predicate: &'p P, best: &'p AtomicU64, side: Side) -> FindConsumer<'p, P> {
    FindConsumer {
        predicate,
        best,
        side,
        stride: UNINDEXED_STRIDE,
        lo: Cell::new(0),
        hi: u64::MAX,
    }
}

#[test]
fn same_range_first_consumers_return_correct_answer() {
    let find_op = |x: &i32| x % 2 == 0;
    let best = AtomicU64::new(u64::MAX);
    let far_right_consumer = unindexed(&find_op, &best, Side::First);
    // A consumer far to the left of `far_right_consumer`, sharing no positions with it.
    let consumer = far_right_consumer.split_off_left();
    // Split until the positions run out.
    for _ in 0..u64::BITS {
        consumer.split_off_left();
    }
    let reducer = <FindConsumer<'_, _> as UnindexedConsumer<i32>>::to_reducer(&consumer);
    let left_folder = UnindexedConsumer::<i32>::split_off_left(&consumer).into_folder();
    let right_folder = consumer.into_folder();

    let left_folder = left_folder.consume(0).consume(1);
    assert_eq!(left_folder.position, right_folder.position);
    // Not full although a better match exists: the two share their position.
    assert!(!right_folder.full());
    assert!(Consumer::<i32>::full(&far_right_consumer));
    let right_folder = right_folder.consume(2).consume(3);
    assert_eq!(
        reducer.reduce(left_folder.complete(), right_folder.complete()),
        Some(0)
    );
}

#[test]
fn same_range_last_consumers_return_correct_answer() {
    let find_op = |x: &i32| x % 2 == 0;
    let best = AtomicU64::new(0);
    let consumer = unindexed(&find_op, &best, Side::Last);
    // A consumer far to the left of `consumer`, sharing no positions with it.
    let far_left_consumer = UnindexedConsumer::<i32>::split_off_left(&consumer);
    for _ in 0..u64::BITS {
        UnindexedConsumer::<i32>::split_off_left(&consumer);
    }
    let reducer = <FindConsumer<'_, _> as UnindexedConsumer<i32>>::to_reducer(&consumer);
    let left_folder = UnindexedConsumer::<i32>::split_off_left(&consumer).into_folder();
    let right_folder = consumer.into_folder();
    let right_folder = right_folder.consume(2).consume(3);
    assert_eq!(left_folder.position, right_folder.position);
    assert!(!left_folder.full());
    assert!(Consumer::<i32>::full(&far_left_consumer));
    let left_folder = left_folder.consume(0).consume(1);
    assert_eq!(
        reducer.reduce(left_folder.complete(), right_folder.complete()),
        Some(2)
    );
}

#[test]
fn indexed_positions_split_exactly() {
    let find_op = |x: &i32| *x > 0;
    let best = AtomicU64::new(u64::MAX);
    let consumer = FindConsumer {
        predicate: &find_op,
        best: &best,
        side: Side::First,
        stride: 1,
        lo: Cell::new(0),
        hi: 1000,
    };
    let (left, right, _) = Consumer::<i32>::split_at(consumer, 300);
    assert_eq!(
        (left.lo.get(), left.hi, right.lo.get(), right.hi),
        (0, 300, 300, 1000)
    );
    // A match on the right does not stop the left; one on the left stops the right.
    let right = right.into_folder().consume(5);
    assert!(!Consumer::<i32>::full(&left));
    let left_folder = left.into_folder().consume(1);
    assert!(right.full());
    assert_eq!(left_folder.complete(), Some(1));
}

#[test]
fn find_first_folder_does_not_clobber_first_found() {
    let best = AtomicU64::new(u64::MAX);
    let yes = |_: &i32| true;
    let f = unindexed(&yes, &best, Side::First).into_folder();
    let f = f.consume(0_i32).consume(1_i32).consume(2_i32);
    assert!(f.full());
    assert_eq!(f.complete(), Some(0_i32));
}

#[test]
fn find_last_folder_yields_last_match() {
    let best = AtomicU64::new(0);
    let yes = |_: &i32| true;
    let f = unindexed(&yes, &best, Side::Last).into_folder();
    let f = f.consume(0_i32).consume(1_i32).consume(2_i32);
    assert_eq!(f.complete(), Some(2_i32));
}
