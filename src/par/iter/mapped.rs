//! The one machinery behind the item-by-item adaptors (`map`, `map_with`, `map_init`,
//! `inspect`, `update`, `cloned`, `copied`): an [`ItemOp`] turns each item into one output,
//! with a state per piece of work (a clone of `map_with`'s value, `map_init`'s value).
//!
//! The adaptor wraps the consumer (`MappedConsumer`, whose folders apply the op) or the
//! producer (`MappedProducer`, whose iterators and folds apply it). A piece's state is made
//! from a seed that travels with the consumer or producer and is split alongside it.

use std::marker::PhantomData;

use super::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// A per-item transformation with a state per piece of work.
pub(super) trait ItemOp<T>: Sync {
    /// The output of one item.
    type Out: Send;
    /// What a piece's state is made from; travels with the consumer or producer.
    type Seed: Send;
    /// The state of one piece (one folder, one sequential iterator).
    type State;

    /// A seed for a new piece split off from the one holding `seed`.
    fn split_seed(&self, seed: &Self::Seed) -> Self::Seed;
    /// The state of a piece.
    fn start(&self, seed: Self::Seed) -> Self::State;
    /// Transforms one item.
    fn apply(&self, state: &mut Self::State, item: T) -> Self::Out;
}

/// Runs `base` into `consumer` with `op` applied to each item.
pub(super) fn drive_unindexed<I, O, C>(base: I, op: &O, seed: O::Seed, consumer: C) -> C::Result
where
    I: ParallelIterator,
    O: ItemOp<I::Item>,
    C: UnindexedConsumer<O::Out>,
{
    base.drive_unindexed(MappedConsumer {
        base: consumer,
        op,
        seed,
    })
}

/// Runs the indexed `base` into `consumer` with `op` applied to each item.
pub(super) fn drive<I, O, C>(base: I, op: &O, seed: O::Seed, consumer: C) -> C::Result
where
    I: IndexedParallelIterator,
    O: ItemOp<I::Item>,
    C: Consumer<O::Out>,
{
    base.drive(MappedConsumer {
        base: consumer,
        op,
        seed,
    })
}

/// Hands `callback` the producer of `base` with `op` applied to each item.
pub(super) fn with_producer<I, O, CB>(base: I, op: O, seed: O::Seed, callback: CB) -> CB::Output
where
    I: IndexedParallelIterator,
    O: ItemOp<I::Item>,
    CB: ProducerCallback<O::Out>,
{
    struct MappedCallback<CB, O, S> {
        callback: CB,
        op: O,
        seed: S,
    }

    impl<T, O, CB> ProducerCallback<T> for MappedCallback<CB, O, O::Seed>
    where
        O: ItemOp<T>,
        CB: ProducerCallback<O::Out>,
    {
        type Output = CB::Output;

        fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
            let producer = MappedProducer {
                base,
                op: &self.op,
                seed: self.seed,
            };
            self.callback.callback(producer)
        }
    }

    base.with_producer(MappedCallback { callback, op, seed })
}

struct MappedProducer<'o, P, O, S> {
    base: P,
    op: &'o O,
    seed: S,
}

impl<'o, P, O> Producer for MappedProducer<'o, P, O, O::Seed>
where
    P: Producer,
    O: ItemOp<P::Item>,
{
    type Item = O::Out;
    type IntoIter = MappedIter<'o, P::IntoIter, O, O::State>;

    fn into_iter(self) -> Self::IntoIter {
        MappedIter {
            base: self.base.into_iter(),
            op: self.op,
            state: self.op.start(self.seed),
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let left_seed = self.op.split_seed(&self.seed);
        let (left, right) = self.base.split_at(index);
        (
            MappedProducer {
                base: left,
                op: self.op,
                seed: left_seed,
            },
            MappedProducer {
                base: right,
                op: self.op,
                seed: self.seed,
            },
        )
    }

    fn fold_with<F: Folder<O::Out>>(self, folder: F) -> F {
        let state = self.op.start(self.seed);
        let folder = MappedFolder {
            base: folder,
            op: self.op,
            state,
            item: PhantomData,
        };
        self.base.fold_with(folder).base
    }
}

/// The sequential iterator of a mapped producer.
pub(super) struct MappedIter<'o, I, O, S> {
    base: I,
    op: &'o O,
    state: S,
}

impl<I, O> Iterator for MappedIter<'_, I, O, O::State>
where
    I: Iterator,
    O: ItemOp<I::Item>,
{
    type Item = O::Out;

    fn next(&mut self) -> Option<O::Out> {
        let item = self.base.next()?;
        Some(self.op.apply(&mut self.state, item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<I, O> DoubleEndedIterator for MappedIter<'_, I, O, O::State>
where
    I: DoubleEndedIterator,
    O: ItemOp<I::Item>,
{
    fn next_back(&mut self) -> Option<O::Out> {
        let item = self.base.next_back()?;
        Some(self.op.apply(&mut self.state, item))
    }
}

impl<I, O> ExactSizeIterator for MappedIter<'_, I, O, O::State>
where
    I: ExactSizeIterator,
    O: ItemOp<I::Item>,
{
    fn len(&self) -> usize {
        self.base.len()
    }
}

struct MappedConsumer<'o, C, O, S> {
    base: C,
    op: &'o O,
    seed: S,
}

impl<'o, T, C, O> Consumer<T> for MappedConsumer<'o, C, O, O::Seed>
where
    C: Consumer<O::Out>,
    O: ItemOp<T>,
{
    type Folder = MappedFolder<'o, C::Folder, O, O::State, T>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let left_seed = self.op.split_seed(&self.seed);
        let (left, right, reducer) = self.base.split_at(index);
        (
            MappedConsumer {
                base: left,
                op: self.op,
                seed: left_seed,
            },
            MappedConsumer {
                base: right,
                op: self.op,
                seed: self.seed,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        let state = self.op.start(self.seed);
        MappedFolder {
            base: self.base.into_folder(),
            op: self.op,
            state,
            item: PhantomData,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, C, O> UnindexedConsumer<T> for MappedConsumer<'_, C, O, O::Seed>
where
    C: UnindexedConsumer<O::Out>,
    O: ItemOp<T>,
{
    fn split_off_left(&self) -> Self {
        MappedConsumer {
            base: self.base.split_off_left(),
            op: self.op,
            seed: self.op.split_seed(&self.seed),
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

/// The folder of a mapped consumer: applies the op and passes the output on.
pub(super) struct MappedFolder<'o, F, O, S, T> {
    base: F,
    op: &'o O,
    state: S,
    item: PhantomData<fn(T)>,
}

impl<T, F, O> Folder<T> for MappedFolder<'_, F, O, O::State, T>
where
    F: Folder<O::Out>,
    O: ItemOp<T>,
{
    type Result = F::Result;

    // Taken apart and built again, not updated in place: see `plumbing/bridge.rs`'s `Leaf`
    // (an in-place store followed by a wider copy of the folder stalls store forwarding).
    #[inline]
    fn consume(self, item: T) -> Self {
        let MappedFolder {
            base,
            op,
            mut state,
            item: marker,
        } = self;
        let out = op.apply(&mut state, item);
        MappedFolder {
            base: base.consume(out),
            op,
            state,
            item: marker,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let MappedFolder {
            base,
            op,
            mut state,
            item,
        } = self;
        let base = base.consume_iter(iter.into_iter().map(|x| op.apply(&mut state, x)));
        MappedFolder {
            base,
            op,
            state,
            item,
        }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
