//! The bridges: one call of a parallel iterator, from its producer and consumer to its
//! result, split into pieces that other workers can take.
//!
//! An indexed piece ([`bridge_producer_consumer`]) long enough to split eagerly
//! (`splitter.rs`) is cut into parts that the workers take through a work-stealing range
//! (`parts.rs`), each part a piece of its own. A shorter piece (a part too) folds its items
//! in chunks, each split off the front of both the producer and the consumer, folded into
//! its own folder and reduced into the results so far (left to right, so in index order). Before each chunk it checks,
//! in this order: the consumer is not full and the call is not stopping (else it ends with
//! what it has); [`at_piece_boundary`] (which unwinds when the call was cancelled); and
//! [`wants_split`]: when another worker wants work and the rest can be halved, the rest is
//! split in half and the halves are joined ([`join_pieces`], rayon's `join_context`
//! compiled once for all pieces), each a piece of its own. A piece that has run for a few
//! chunks at the cap with no worker awake to want work offers its rest to a sleeping one
//! instead ([`offer_to_sleepers`], `splitter.rs`'s `WAKE_AFTER_CHUNKS`),
//! and so does a piece of a call that its first timed chunk shows to be worth a wake-up
//! (`WAKE_FOR_CALL_TARGETS`), as soon as that chunk is timed.
//!
//! An unindexed piece ([`bridge_unindexed`]) halves its producer and joins the halves: both
//! halves are pieces that split again while the call splits eagerly (`log2(workers) + 1`
//! levels, as rayon's splitter starts) or [`wants_split`] says so; otherwise the left half
//! is folded whole and the right half is a piece of its own, on offer in the join while the
//! left one folds. Such a join pays only if a check can publish its frame during the left
//! fold, so only a long fold earns one: a piece's first left half is folded in a join (its
//! length is unknown; an endless fold, as `find_last` over an octillion, must leave its
//! right half to the others), and so is each left half after a long fold (one that reached
//! a piece boundary, or lasted over a tick of the epoch). After a short fold, unless a
//! worker wants work then, the right half, that fold's sibling and most likely as short, is
//! folded whole, as rayon folds a half nobody stole. So a tiny call
//! (rayon-demo's `split` of a few items) joins for its eager halvings and once a piece,
//! and folds a few items. With one worker nothing joins unasked (no other worker could
//! take the half) and a call is folded whole. A producer that cannot split is folded
//! whole. An unindexed fold cannot be cut into chunks, so its folder (`Leaf`) reaches a
//! piece boundary every [`LEAF_TICK`] items and stops there if the call is stopping.
//!
//! A call made outside the workers (from `main`, a std thread, a stand-in) runs on them as a
//! whole ([`on_the_workers`]): its pieces spread from a worker, whatever its length, while
//! the caller sleeps.
//!
//! **Invariant:** once a closure of the call has panicked, no piece of the call starts a
//! chunk or a split: a guard around each piece sets the call's stop flag ([`CallStop`], the
//! call's one) while the panic unwinds through it, and every piece checks the flag before
//! each chunk. The pieces
//! already folding finish their chunk; the panic then reaches the caller through
//! the join, which resumes the first one with its payload. A stopping piece completes
//! an empty folder, whose result the unwinding drops.

use crate::util::sync::{AtomicBool, Ordering};

use super::splitter::{eager_depth, Plan};
use super::{Consumer, Folder, Producer, ProducerCallback, Reducer};
use super::{UnindexedConsumer, UnindexedProducer};
use crate::executor::global::current_or_global_state;
use crate::par::iter::IndexedParallelIterator;
use crate::par::{at_piece_boundary, offer_to_sleepers, wants_split};
use crate::runtime::scheduler::forkjoin;
use crate::runtime::time::epoch;
use crate::util::run_once::RunOnce;

/// Drives an indexed parallel iterator into `consumer`: [`bridge_producer_consumer`] with
/// the iterator's producer and length.
pub fn bridge<I, C>(par_iter: I, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    C: Consumer<I::Item>,
{
    struct BridgeCallback<C> {
        len: usize,
        consumer: C,
    }

    impl<T, C: Consumer<T>> ProducerCallback<T> for BridgeCallback<C> {
        type Output = C::Result;

        fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
            bridge_producer_consumer(self.len, producer, self.consumer)
        }
    }

    let len = par_iter.len();
    par_iter.with_producer(BridgeCallback { len, consumer })
}

/// Drives the `len` items of `producer` into `consumer`, in pieces that other workers may
/// take, and returns the consumer's result (the pieces' results reduced in index order).
///
/// A panic in any piece stops the handing out of new pieces and chunks of this call, and is
/// resumed here once the pieces already running have returned.
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    on_the_workers(move || {
        let stop = CallStop::new();
        let plan = Plan::new(len, producer.min_len(), producer.max_len());
        indexed_piece(&stop, plan, len, producer, consumer)
    })
}

/// Drives an unindexed producer into `consumer`, in pieces that other workers may take.
///
/// Panics stop the call as in [`bridge_producer_consumer`].
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    on_the_workers(move || {
        let stop = CallStop::new();
        let eager = eager_depth();
        // With one worker (no eager halving) no other worker could take an offered half.
        unindexed_piece(&stop, eager, eager > 0, producer, consumer)
    })
}

/// A bridged call's stop flag, the one its pieces share: set when one of them unwinds
/// (a closure panicked), never cleared. Its pieces look at it before each chunk and split,
/// an unindexed leaf every [`LEAF_TICK`] items, and a producer that folds in blocks (the
/// awaited loops' watch, `par/loops/watched.rs`) between two blocks: it reaches the fold
/// through [`Producer::fold_with_stop`]. Not part of rayon's API.
///
/// Setting it moves the epoch (`runtime/time/epoch.rs`), so a block fold sees it at its
/// next look at the epoch: the store is before the bump (Release), and a fold reads the
/// flag after it read the epoch (Acquire) and saw it move. The pieces' own reads before a
/// chunk are Relaxed: the flag only stops work early, and the panic itself travels to the
/// caller through the pieces' joins, which synchronise the pieces.
#[doc(hidden)]
pub struct CallStop {
    set: AtomicBool,
}

impl CallStop {
    fn new() -> CallStop {
        CallStop {
            set: AtomicBool::new(false),
        }
    }

    /// Whether a piece of the call has unwound (type docs for the order with the epoch).
    #[inline]
    pub(crate) fn is_set(&self) -> bool {
        // Relaxed: a block fold reads it after `epoch::now` (Acquire), which pairs with the
        // bump in `set`; the pieces' chunk checks need no order (type docs).
        self.set.load(Ordering::Relaxed)
    }

    /// Sets the flag, then moves the epoch so that every block fold looks at it.
    fn set(&self) {
        // Relaxed: `epoch::bump` (Release) after it publishes it (type docs).
        self.set.store(true, Ordering::Relaxed);
        epoch::bump();
    }

    /// A guard that sets the flag if dropped while unwinding; disarmed on the way out of a
    /// piece that returned.
    fn guard(&self) -> StopOnUnwind<'_> {
        StopOnUnwind(self)
    }
}

/// Sets a call's [`CallStop`] when dropped (only unwinding drops it: a piece that returns
/// disarms it).
struct StopOnUnwind<'a>(&'a CallStop);

impl StopOnUnwind<'_> {
    fn disarm(self) {
        std::mem::forget(self);
    }
}

impl Drop for StopOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.set();
    }
}

/// The results of a piece's chunks so far, reduced, and the reducer that joins them to what
/// follows (the one of the last split, whose right part holds the rest).
struct Reduced<R, D>(Option<(R, D)>);

impl<R, D: Reducer<R>> Reduced<R, D> {
    /// Adds `result`, the part right after what is done, with the reducer of its split.
    fn push(&mut self, result: R, reducer: D) {
        let acc = match self.0.take() {
            None => result,
            Some((done, prev)) => prev.reduce(done, result),
        };
        self.0 = Some((acc, reducer));
    }

    /// Everything done followed by `tail`, the rest of the piece.
    fn finish(self, tail: R) -> R {
        match self.0 {
            None => tail,
            Some((done, reducer)) => reducer.reduce(done, tail),
        }
    }
}

/// Folds one piece of an indexed call (see the module docs).
fn indexed_piece<P, C>(
    stop: &CallStop,
    mut plan: Plan,
    len: usize,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let guard = stop.guard();
    let result = if plan.split_eagerly(len) && !stop.is_set() && !consumer.full() {
        at_piece_boundary();
        // The first chunk in a join whose other side is the cut of the rest: a thief that
        // takes the rest as soon as the join is offered cuts it and starts on its upper half
        // (`parts.rs`, `work_from_top`), and a call that its first items end (a
        // `find_first` whose answer is at position 0) takes its rest back stopped, and cuts
        // no parts.
        // (A first chunk of a call on several workers is too short to be timed.)
        let (n, _) = plan.chunk(len);
        let (chunk, rest) = producer.split_at(n);
        let (chunk_consumer, rest_consumer, reducer) = consumer.split_at(n);
        let (first, rest) = join_pieces(
            |_| {
                // A panic of the chunk stops the rest at once, not when the join returns.
                let guard = stop.guard();
                let first = chunk
                    .fold_with_stop(chunk_consumer.into_folder(), stop)
                    .complete();
                guard.disarm();
                first
            },
            |stolen| {
                let len = len - n;
                if plan.split_eagerly(len) && !stop.is_set() && !rest_consumer.full() {
                    let fold = |plan, len, producer, consumer| {
                        indexed_piece(stop, plan, len, producer, consumer)
                    };
                    super::parts::fold_in_parts(plan, len, rest, rest_consumer, &fold, stolen, n)
                } else {
                    // Stopped (it folds nothing), or too short now to cut.
                    indexed_piece(stop, plan, len, rest, rest_consumer)
                }
            },
        );
        reducer.reduce(first, rest)
    } else {
        let (mut len, mut producer, mut consumer) = (len, producer, consumer);
        let mut done = Reduced(None);
        let tail = loop {
            if consumer.full() || stop.is_set() {
                break consumer.into_folder().complete();
            }
            at_piece_boundary();
            if plan.may_split(len) && (wants_split() || (plan.is_long() && offer_to_sleepers())) {
                break split_indexed(stop, plan, len, producer, consumer);
            }
            let (n, timer) = plan.chunk(len);
            if n == len {
                break producer
                    .fold_with_stop(consumer.into_folder(), stop)
                    .complete();
            }
            let (chunk, rest) = producer.split_at(n);
            let (chunk_consumer, rest_consumer, reducer) = consumer.split_at(n);
            let result = chunk
                .fold_with_stop(chunk_consumer.into_folder(), stop)
                .complete();
            plan.folded(n, timer);
            done.push(result, reducer);
            (len, producer, consumer) = (len - n, rest, rest_consumer);
        };
        done.finish(tail)
    };
    guard.disarm();
    result
}

/// Splits an indexed piece in half and runs the halves as two pieces, maybe in parallel.
fn split_indexed<P, C>(
    stop: &CallStop,
    plan: Plan,
    len: usize,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let mid = len / 2;
    let (left_producer, right_producer) = producer.split_at(mid);
    let (left_consumer, right_consumer, reducer) = consumer.split_at(mid);
    let (left, right) = join_pieces(
        |_| indexed_piece(stop, plan.for_half(), mid, left_producer, left_consumer),
        |_| {
            indexed_piece(
                stop,
                plan.for_half(),
                len - mid,
                right_producer,
                right_consumer,
            )
        },
    );
    reducer.reduce(left, right)
}

/// Runs one piece of an unindexed call (see the module docs); `eager` is how many more
/// times it halves without being asked, and `offer` whether, unasked, it folds its left half
/// inside a join that offers the right half meanwhile (the piece's first fold, or the last
/// left fold was long), else the whole piece, unsplit.
fn unindexed_piece<P, C>(
    stop: &CallStop,
    eager: u32,
    offer: bool,
    producer: P,
    consumer: C,
) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    let guard = stop.guard();
    let result = if consumer.full() || stop.is_set() {
        consumer.into_folder().complete()
    } else {
        at_piece_boundary();
        let wanted = eager > 0 || wants_split();
        let halves = if wanted || offer {
            producer.split()
        } else {
            // Nobody asked for work and the last fold was short, as this piece most likely
            // is (it is that fold's sibling): folded whole, as rayon's unstolen half is.
            (producer, None)
        };
        match halves {
            (whole, None) => fold_leaf(stop, whole, consumer).0,
            (left, Some(right)) => {
                let left_consumer = consumer.split_off_left();
                let reducer = consumer.to_reducer();
                let depth = eager.saturating_sub(1);
                let (l, r) = if wanted {
                    // Both halves are pieces that split again.
                    join_pieces(
                        |_| unindexed_piece(stop, depth, true, left, left_consumer),
                        |_| unindexed_piece(stop, depth, true, right, consumer),
                    )
                } else {
                    // The left half is folded whole here while the right half, a piece of
                    // its own, waits in the join where an idle worker can take it. The right
                    // half offers its own right half the same way only if this fold was
                    // long (it reached a piece boundary), or if a thief runs it.
                    let long = AtomicBool::new(false);
                    join_pieces(
                        |_| {
                            let (l, was_long) = unindexed_leaf(stop, left, left_consumer);
                            // Relaxed: read by the right half after this on the same thread,
                            // or by a thief, for which it does not matter (it offers anyway).
                            long.store(was_long, Ordering::Relaxed);
                            l
                        },
                        |migrated| {
                            // Relaxed: pairs with the left half's store above.
                            let offer = migrated || long.load(Ordering::Relaxed);
                            unindexed_piece(stop, depth, offer, right, consumer)
                        },
                    )
                };
                reducer.reduce(l, r)
            }
        }
    };
    guard.disarm();
    result
}

/// Folds an unindexed producer whole (unless the call is stopping or the consumer full), and
/// whether the fold was long: it reached a piece boundary.
fn unindexed_leaf<P, C>(stop: &CallStop, producer: P, consumer: C) -> (C::Result, bool)
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if consumer.full() || stop.is_set() {
        return (consumer.into_folder().complete(), false);
    }
    let guard = stop.guard();
    let result = fold_leaf(stop, producer, consumer);
    guard.disarm();
    result
}

/// Folds an unindexed producer whole through a [`Leaf`] folder, which reaches a piece
/// boundary every [`LEAF_TICK`] items; whether the fold was long: it reached one, or it
/// lasted over a tick of the epoch (a few costly items, as `split`'s one item per piece).
fn fold_leaf<P, C>(stop: &CallStop, producer: P, consumer: C) -> (C::Result, bool)
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    let seen = epoch::now();
    let leaf = Leaf {
        base: consumer.into_folder(),
        stop,
        count: 0,
    };
    let leaf = producer.fold_with(leaf);
    let long = leaf.count >= u64::from(LEAF_TICK) || epoch::moved(seen);
    (leaf.base.complete(), long)
}

/// Items between two piece boundaries inside the fold of an unindexed leaf.
pub(super) const LEAF_TICK: u32 = 256;

/// The folder of an unindexed leaf: its fold cannot be cut into chunks, so every
/// [`LEAF_TICK`] items it calls [`at_piece_boundary`] (where the join around it may offer
/// the rest of the call to an idle worker, or a cancelled call unwinds) and stops if the
/// call is stopping.
struct Leaf<'c, F> {
    base: F,
    stop: &'c CallStop,
    /// Items counted so far (a `u64`, so that it never wraps: a fold that reached
    /// [`LEAF_TICK`] items is long).
    count: u64,
}

impl<F> Leaf<'_, F> {
    /// Counts an item; false when the fold should stop here.
    #[inline(always)]
    fn tick(count: &mut u64, stop: &CallStop) -> bool {
        *count += 1;
        if *count % u64::from(LEAF_TICK) != 0 {
            return true;
        }
        leaf_boundary(stop)
    }
}

/// A leaf's piece boundary, every [`LEAF_TICK`] items: false when the fold should stop.
#[cold]
#[inline(never)]
fn leaf_boundary(stop: &CallStop) -> bool {
    at_piece_boundary();
    !stop.is_set()
}

impl<T, F: Folder<T>> Folder<T> for Leaf<'_, F> {
    type Result = F::Result;

    // Taken apart and built again rather than updated in place: a leaf goes by value
    // through every item, and a store into it followed by the copy of the whole (a wider
    // load over the stored word) stalls the store's forwarding, which cost a tree walk's
    // fold several times its items' own work.
    #[inline]
    fn consume(self, item: T) -> Self {
        let Leaf {
            base,
            stop,
            mut count,
        } = self;
        let base = if Self::tick(&mut count, stop) {
            base.consume(item)
        } else {
            base
        };
        Leaf { base, stop, count }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let Leaf {
            base,
            stop,
            mut count,
        } = self;
        let items = iter
            .into_iter()
            .take_while(|_| Self::tick(&mut count, stop));
        let base = base.consume_iter(items);
        Leaf { base, stop, count }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full() || self.stop.is_set()
    }
}

/// `par::join_context` for the splits of the pieces: each closure learns whether it
/// migrated, and the two reach the core's join (through its door,
/// `runtime/scheduler/forkjoin/mod.rs`) as `dyn FnMut`s (`util/run_once.rs`), so that the
/// join is compiled once for all of them instead of once for every producer and consumer a
/// program uses. A piece splits once per chunk boundary at most, so the two indirect calls
/// cost nothing measurable; the public `par::join` keeps its closures generic, as its fast
/// path is the whole cost of a small fork.
fn join_pieces<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(bool) -> RA + Send,
    B: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let mut a = RunOnce::new(a);
    let mut b = RunOnce::new(b);
    join_dyn(&mut |migrated| a.run(|a| a(migrated)), &mut |migrated| {
        b.run(|b| b(migrated))
    });
    (a.result(), b.result())
}

/// [`join_pieces`]' join, not generic.
#[inline(never)]
fn join_dyn(a: &mut (dyn FnMut(bool) + Send), b: &mut (dyn FnMut(bool) + Send)) {
    let site = forkjoin::Site::unknown("par_iter");
    forkjoin::join(a, b, current_or_global_state, site);
}

/// Runs `f`, a parallel iterator's whole call, where its pieces can spread over the workers
/// of the current executor (else the global one): `forkjoin::on_the_workers`.
#[inline]
fn on_the_workers<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    forkjoin::on_the_workers(current_or_global_state, f)
}
