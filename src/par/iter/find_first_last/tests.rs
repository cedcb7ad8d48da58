//! The find consumers and folders directly: positions keep the order of the items through
//! any number of splits, a better match stops the pieces it beats, and a folder keeps the
//! right match.
// origin: rayon src/iter/find_first_last/test.rs (the folder tests; the positions are filch's)

use super::*;

fn root<'p, P>(predicate: &'p P, best: &'p Best) -> FindConsumer<'p, P> {
    FindConsumer::new(predicate, best)
}

fn pos<P>(c: &FindConsumer<'_, P>) -> Position {
    c.position()
}

#[test]
fn positions_never_wear_out() {
    let even = |x: &i32| x % 2 == 0;
    let best = Best::new(Side::First);
    let consumer = root(&even, &best);
    // Far more splits than any fixed-width position could take, each left part before
    // the consumer and after the previous left part.
    let mut previous = None;
    for _ in 0..500 {
        let left = UnindexedConsumer::<i32>::split_off_left(&consumer);
        assert!(pos(&left) < pos(&consumer));
        if let Some(p) = previous {
            assert!(p < pos(&left));
        }
        previous = Some(pos(&left));
    }
    // The consumer stays at the same depth while it is the rightmost of its level.
    assert_eq!(pos(&consumer).len(), 2);
    // Index splits of a left part nest below it, still in order, and before the consumer.
    let left = UnindexedConsumer::<i32>::split_off_left(&consumer);
    let (a, b, _) = Consumer::<i32>::split_at(left, 10);
    let c = UnindexedConsumer::<i32>::split_off_left(&a);
    assert!(pos(&c) < pos(&a) && pos(&a) < pos(&b) && pos(&b) < pos(&consumer));
    assert!(previous.unwrap() < pos(&c));
}

#[test]
fn a_better_match_stops_the_pieces_it_beats() {
    let yes = |_: &i32| true;
    for side in [Side::First, Side::Last] {
        let best = Best::new(side);
        let consumer = root(&yes, &best);
        let (left, right, reducer) = Consumer::<i32>::split_at(consumer, 100);
        let (middle, right, _) = Consumer::<i32>::split_at(right, 100);
        let middle = middle.into_folder().consume(5);
        assert!(!middle.full() || side == Side::First);
        // Right of the match: beaten for find_first only; left of it: for find_last only.
        assert_eq!(Consumer::<i32>::full(&left), side == Side::Last);
        assert_eq!(Consumer::<i32>::full(&right), side == Side::First);
        let left = left.into_folder().consume(1);
        let right = right.into_folder().consume(9);
        let found = reducer.reduce(left.complete(), middle.complete());
        let found = FindReducer(side).reduce(found, right.complete());
        assert_eq!(found, Some(if side == Side::First { 1 } else { 9 }));
    }
}

#[test]
fn find_first_folder_does_not_clobber_first_found() {
    let yes = |_: &i32| true;
    let best = Best::new(Side::First);
    let f = root(&yes, &best).into_folder();
    let f = f.consume(0_i32).consume(1_i32).consume(2_i32);
    assert!(f.full());
    assert_eq!(f.complete(), Some(0_i32));
}

#[test]
fn find_last_folder_yields_last_match() {
    let yes = |_: &i32| true;
    let best = Best::new(Side::Last);
    let f = root(&yes, &best).into_folder();
    let f = f.consume(0_i32).consume(1_i32).consume(2_i32);
    assert_eq!(f.complete(), Some(2_i32));
}

/// A one-level position `(slot, offset)`, and one a level below it.
fn flat(slot: u64, offset: u64) -> Position {
    Position {
        above: None,
        slot,
        offset,
    }
}

fn deep(slot: u64, offset: u64, below: u64) -> Position {
    flat(slot, offset).below(below)
}

#[test]
fn one_level_and_deeper_matches_compete_as_their_paths_order() {
    let no = Cell::new((0, false));
    let best = Best::new(Side::First);
    assert!(best.publish(&flat(0, 5)));
    // [0, 3, 1, 0] comes before [0, 5]: it is kept, and beats what comes after it.
    assert!(best.publish(&deep(0, 3, 1)));
    assert!(best.beats(&flat(0, 4), &no));
    assert!(best.beats(&deep(0, 3, 2), &Cell::new((0, false))));
    assert!(!best.beats(&flat(0, 2), &Cell::new((0, false))));
    assert!(!best.beats(&deep(0, 3, 0), &Cell::new((0, false))));
    // Beaten by the deeper match, or by the one-level one.
    assert!(!best.publish(&flat(0, 4)));
    assert!(!best.publish(&deep(0, 7, 0)));
    // A one-level match before both wins, and a tie is kept.
    assert!(best.publish(&flat(0, 1)));
    assert!(best.publish(&flat(0, 1)));
    assert!(best.beats(&deep(0, 2, 0), &Cell::new((0, false))));

    let best = Best::new(Side::Last);
    assert!(best.publish(&flat(0, 5)));
    assert!(best.publish(&deep(0, 5, 1)));
    assert!(best.beats(&flat(0, 5), &Cell::new((0, false))));
    assert!(!best.beats(&flat(0, 6), &Cell::new((0, false))));
    assert!(!best.publish(&flat(0, 4)));
    assert!(best.publish(&flat(1, 0)));
    assert!(best.beats(&deep(0, 9, 9), &Cell::new((0, false))));
    assert!(!best.publish(&deep(0, 9, 9)));
}

#[test]
fn positions_too_far_for_a_key_are_kept_as_deep_ones() {
    let best = Best::new(Side::First);
    let far = flat(0, 1 << OFFSET_BITS);
    assert!(far.key().is_none());
    assert!(best.publish(&far));
    assert!(best.beats(&flat(1, 0), &Cell::new((0, false))));
    assert!(!best.beats(&flat(0, 7), &Cell::new((0, false))));
    assert!(best.publish(&flat(0, 7)));
    assert!(best.beats(&far, &Cell::new((0, false))));
    assert_eq!(Position::from_key(flat(3, 9).key().unwrap()), flat(3, 9));
}
