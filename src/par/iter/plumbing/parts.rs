//! The parts of a long indexed piece, handed out through a work-stealing range
//! ([`StealRange`], `steal_range.rs`): how an indexed call spreads over the workers at its
//! start.
//!
//! A piece long enough to split eagerly (`splitter.rs`: longer than a
//! `1 / (EAGER_PIECES_PER_THREAD × workers)` share of the call) is cut up front into about
//! that many *parts* of equal length (the seed's partitioner: split statically, then
//! steal), each a producer and a consumer in a slot of its own, and the part indices go into
//! a steal range. Then the piece is a `join` of
//! - the owner's side: it takes part after part from the low end of the range and folds each
//!   as an indexed piece of its own (`bridge.rs`: in chunks, splitting on demand), and
//! - the thieves' side: whoever takes this half of the join from the board (any worker, once
//!   the join's frame is published by the sharing triggers of `runtime/scheduler/forkjoin/thread.rs`) steals
//!   the upper half of the parts left, works through them the same way with a range of its
//!   own (whose half a further thief can take), and comes back for more until fewer than two
//!   are left. Run by the owner itself after its side (nobody took it), it finds nothing.
//!
//! So a thief takes half of what is left at the moment it comes, whatever the owner has
//! done so far, with one compare-and-swap, and the owner never stops for it: a late thief
//! of a skewed call gets half of the rest, not a half fixed at the start.
//!
//! The cut waits for the call's first chunk (`bridge.rs`): the chunk is folded in a join
//! whose other side cuts the rest, so a call that its first items end (a `find_first` at
//! position 0) takes that side back stopped and cuts nothing. A thief that takes the rest
//! while the owner is still inside the chunk cuts it as the whole call would be cut (the
//! first part shorter by the chunk) and starts from the top, as a thief of the range would
//! (`work_from_top`): it gets the upper half at once.
//!
//! The results are reduced in index order once the join returned, right to left with the
//! reducers of the cuts (the last cut's reducer joins the last two parts first), as the
//! nested joins of a recursive halving would.
//!
//! **Invariants:** a part's slot is touched, between the cut and the join's return, only by
//! whoever took or stole its index (each index leaves the range once, `steal_range.rs`), so
//! each part is folded at most once and a slot needs no lock; when
//! the join returns without unwinding every index was taken and its part folded, so every
//! result slot is full (the owner's side ends only on an empty range, each stolen share is
//! worked through by its thief before the thief's side returns, and the join waits for the
//! thieves' side). On a panic or a cancellation the join unwinds once the thieves' side
//! returned, and the slots' parts and results drop with the piece, each once.
//!
//! **Why a slot's contents are visible to the thread that takes its index:** the owner fills
//! every slot before the join, and a thief reaches the slots only through the join's
//! published frame, which it claims with an acquire (`runtime/scheduler/forkjoin/`), so the
//! fills happen before its reads, as they do for the frame's closure itself; a thief of a
//! thief reaches them through that thief's frame, after its claim. A thief's result reaches
//! the owner the way a stolen half's outcome does: the join returns only after the thief's
//! side finished, with an acquire of that (and each nested join of a thief's range waits for
//! its own thief first).

use super::splitter::Plan;
use super::steal_range::StealRange;
use super::{Consumer, Producer, Reducer};
use crate::par::join_context;
use std::cell::UnsafeCell;

/// One part: its producer, consumer and length until its index is taken, its result once
/// folded.
enum PartState<P, C, R> {
    Input(P, C, usize),
    Taken,
    Folded(R),
}

/// A part's slot, without a lock: the thread that took the part's index is the only one to
/// touch it while the range is worked through (module invariants).
struct PartSlot<P, C, R>(UnsafeCell<PartState<P, C, R>>);

// SAFETY: threads share the slots, but each slot is touched by one thread at a time: its
// filler, then the one thread whose take or steal got its index, then the owner after the
// join, each after the one before (module docs); the parts and results it holds move between
// threads, which `Send` allows.
unsafe impl<P: Send, C: Send, R: Send> Sync for PartSlot<P, C, R> {}

impl<P, C, R> PartSlot<P, C, R> {
    /// Moves the part out, for the thread that took its index.
    ///
    /// # Safety
    ///
    /// The caller took or stole this slot's index (no other thread touches the slot).
    unsafe fn take(&self) -> PartState<P, C, R> {
        // SAFETY: the caller's contract.
        unsafe { std::mem::replace(&mut *self.0.get(), PartState::Taken) }
    }

    /// Stores the part's result.
    ///
    /// # Safety
    ///
    /// As [`PartSlot::take`], by the same thread.
    unsafe fn put(&self, result: R) {
        // SAFETY: the caller's contract.
        unsafe { *self.0.get() = PartState::Folded(result) };
    }
}

/// Cuts a piece of `len` items into parts, folds each with `fold` (the bridge's indexed
/// piece, given the part's plan, length, producer and consumer) through a steal range, and
/// reduces their results in index order (module docs). `plan.parts(len)` is at least 2.
/// The piece is the rest of a call whose first `before` items (its first chunk) are
/// folded elsewhere (`bridge.rs`): the parts are cut as those of the whole call would be,
/// the first one `before` items shorter, so that the halves a thief takes end where the
/// halves of the whole call would. `stolen`: a thief took the piece while the call's owner
/// folds that chunk; it starts as a thief of the range would, from the top.
pub(super) fn fold_in_parts<P, C, F>(
    plan: Plan,
    len: usize,
    producer: P,
    consumer: C,
    fold: &F,
    stolen: bool,
    before: usize,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
    F: Fn(Plan, usize, P, C) -> C::Result + Sync,
{
    let whole = len + before;
    let mut count = plan.parts(whole);
    let mut part_len = whole / count;
    let mut first_len = part_len.saturating_sub(before);
    if first_len < plan.min_len().max(1) {
        // The first chunk was as long as a part: cut the rest alone.
        count = plan.parts(len);
        part_len = len / count;
        first_len = part_len;
    }
    debug_assert!((2..=super::steal_range::MAX_LEN).contains(&count));
    let mut parts = Vec::with_capacity(count);
    let mut reducers = Vec::with_capacity(count - 1);
    let (mut producer, mut consumer, mut left) = (producer, consumer, len);
    for cut in 1..count {
        let part_len = if cut == 1 { first_len } else { part_len };
        let (part, rest) = producer.split_at(part_len);
        let (part_consumer, rest_consumer, reducer) = consumer.split_at(part_len);
        parts.push(PartSlot(UnsafeCell::new(PartState::Input(
            part,
            part_consumer,
            part_len,
        ))));
        reducers.push(reducer);
        (producer, consumer, left) = (rest, rest_consumer, left - part_len);
    }
    parts.push(PartSlot(UnsafeCell::new(PartState::Input(
        producer, consumer, left,
    ))));
    let plan = plan.for_part();
    let fold_part = |index: usize| {
        let slot = &parts[index];
        // SAFETY: `work` calls this with the indices it takes or steals from the range, each
        // once (`steal_range.rs`), and this thread is the one that got `index`.
        let PartState::Input(producer, consumer, len) = (unsafe { slot.take() }) else {
            panic!("filch: a part of a call was handed out twice");
        };
        let result = fold(plan, len, producer, consumer);
        // SAFETY: as above.
        unsafe { slot.put(result) };
    };
    let range = StealRange::new(0, count as u32);
    if stolen {
        work_from_top(&fold_part, &range);
    } else {
        work(&fold_part, &range);
    }
    // Right to left: the last cut's reducer joins the last two parts first.
    let mut acc = None;
    while let Some(slot) = parts.pop() {
        let PartState::Folded(result) = slot.0.into_inner() else {
            panic!("filch: a part of a call was never folded");
        };
        acc = Some(match acc {
            None => result,
            Some(acc) => reducers
                .pop()
                .expect("a cut between two parts")
                .reduce(result, acc),
        });
    }
    acc.expect("at least two parts")
}

/// Works through `range` as its owner while its upper halves are on offer to thieves,
/// folding each part whose index it takes or steals with `fold_part` (into its result
/// slot). Not generic: compiled once, not for each call's types (`util/run_once.rs`).
fn work(fold_part: &(dyn Fn(usize) + Sync), range: &StealRange) {
    join_context(
        |_| {
            while let Some(index) = range.take() {
                fold_part(index as usize);
            }
        },
        |_| {
            while let Some((start, end)) = range.steal() {
                work(fold_part, &StealRange::new(start, end));
            }
        },
    );
}

/// [`work`] for a thread that stole a whole range (the rest of a call whose owner is still
/// folding the call's first chunk): it steals the upper half first, as a thief of the range
/// would, and leaves the low end on offer as the range owner's side, for whoever comes (the
/// call's owner once its chunk is done, or this thread once its halves ran out). A thief
/// that comes while the owner is inside a long first item so gets half of the call at
/// once, as with a call that was cut before its first chunk.
fn work_from_top(fold_part: &(dyn Fn(usize) + Sync), range: &StealRange) {
    join_context(
        |_| {
            while let Some((start, end)) = range.steal() {
                work(fold_part, &StealRange::new(start, end));
            }
        },
        |_| {
            while let Some(index) = range.take() {
                fold_part(index as usize);
            }
        },
    );
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::par::prelude::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A long call on two workers whose first item ends it (a `find_first` at position 0)
    /// makes one folder for its first chunk and one for its stopped rest: it cuts no parts.
    /// The other worker spins meanwhile, so no thief takes the rest.
    #[test]
    fn a_call_that_its_first_chunk_ends_cuts_no_parts() {
        let pool = crate::par::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let spinning = Arc::new(AtomicBool::new(false));
        let release = Arc::new(AtomicBool::new(false));
        let (s, r) = (Arc::clone(&spinning), Arc::clone(&release));
        pool.spawn(move || {
            s.store(true, Ordering::SeqCst);
            while !r.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
        });
        while !spinning.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        let folders = AtomicUsize::new(0);
        let found = pool.install(|| {
            (0..1_000_000_u32)
                .into_par_iter()
                .map_init(|| folders.fetch_add(1, Ordering::Relaxed), |_, x| x)
                .find_first(|&x| x == 0)
        });
        release.store(true, Ordering::SeqCst);
        assert_eq!(found, Some(0));
        let folders = folders.load(Ordering::Relaxed);
        assert!(
            folders <= 2,
            "{folders} folders for a call its first item ended"
        );
    }
}
