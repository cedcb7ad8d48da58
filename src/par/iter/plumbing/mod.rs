//! The plumbing under the parallel iterators (rayon's `rayon::iter::plumbing`): the traits a
//! parallel source or adaptor implements, and the bridges that drive them.
//!
//! A parallel iterator is run by handing it a [`Consumer`] (the push side: what happens to
//! the items, built by the terminal operation and wrapped by each adaptor on the way up).
//! Indexed sources also offer a [`Producer`] (the pull side: a splittable sequence of known
//! length) through a [`ProducerCallback`]; unindexed ones offer an [`UnindexedProducer`].
//! [`bridge_producer_consumer`] and [`bridge_unindexed`] connect the two: they split both
//! sides into pieces, fold each piece into a [`Folder`] (sequentially, on one thread), and
//! combine the pieces' results in index order with the consumer's [`Reducer`].
//!
//! A library writes its own parallel source on these traits (a matrix's rows, a tree's
//! nodes): implement [`Producer`] and, for the iterator type,
//! [`ParallelIterator`](super::ParallelIterator) and
//! [`IndexedParallelIterator`](super::IndexedParallelIterator) by calling [`bridge`] and the
//! callback.
//!
//! How pieces are formed (the policy lives in `splitter.rs`, the driving in `bridge.rs`): a
//! long indexed call is cut into parts that the workers take through a work-stealing range
//! (`parts.rs`, `steal_range.rs`); a piece folds its items in chunks that grow
//! geometrically; between two chunks it splits the
//! rest in half and [`join`](crate::par::join)s the halves when another worker wants work.
//! A panic in any piece stops every piece of the same call at its next chunk.

mod bridge;
mod parts;
mod splitter;
mod steal_range;

#[doc(hidden)]
pub use bridge::CallStop;
pub use bridge::{bridge, bridge_producer_consumer, bridge_unindexed};

/// A generic closure over a [`Producer`]: what an adaptor hands to
/// [`IndexedParallelIterator::with_producer`](super::IndexedParallelIterator::with_producer)
/// to receive the producer (which may borrow from the iterator, hence a trait rather than a
/// closure).
pub trait ProducerCallback<T> {
    /// What [`callback`](Self::callback) returns.
    type Output;

    /// Consumes the producer.
    fn callback<P>(self, producer: P) -> Self::Output
    where
        P: Producer<Item = T>;
}

/// The pull side of an indexed parallel iterator: a sequence of known length that can be
/// split at any index and turned into a sequential iterator.
///
/// A producer is a sequence of [`len`](super::IndexedParallelIterator::len) items, which
/// [`into_iter`](Self::into_iter) yields in order; [`split_at`](Self::split_at)`(i)` gives
/// the first `i` items and the rest.
pub trait Producer: Send + Sized {
    /// The items produced.
    type Item;

    /// The sequential iterator over this producer's items, which must be double-ended and
    /// report its exact length.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// The items of this producer, in order.
    fn into_iter(self) -> Self::IntoIter;

    /// The fewest items a piece should hold (see
    /// [`with_min_len`](super::IndexedParallelIterator::with_min_len)); 1 by default.
    fn min_len(&self) -> usize {
        1
    }

    /// The most items a piece should hold (see
    /// [`with_max_len`](super::IndexedParallelIterator::with_max_len)); unbounded by
    /// default.
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into the first `index` items and the rest.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Feeds every item into `folder`, stopping early once it is full; by default through
    /// [`into_iter`](Self::into_iter). A producer may override it when it can fold faster
    /// than it iterates.
    #[inline]
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>,
    {
        folder.consume_iter(self.into_iter())
    }

    /// [`fold_with`](Self::fold_with) as a piece of a bridged call whose stop flag is
    /// `stop`: a producer that folds in blocks may look at the flag between two (the awaited
    /// loops' watch does, `par/loops/watched.rs`). Not part of rayon's API: the bridge
    /// calls it, and by default it is `fold_with`.
    #[doc(hidden)]
    #[inline]
    fn fold_with_stop<F>(self, folder: F, stop: &CallStop) -> F
    where
        F: Folder<Self::Item>,
    {
        let _ = stop;
        self.fold_with(folder)
    }
}

/// The push side of a parallel iterator: what happens to the items. It splits alongside the
/// producer, turns into a [`Folder`] for each piece, and its [`Reducer`] combines two
/// adjacent pieces' results.
pub trait Consumer<Item>: Send + Sized {
    /// The sequential consumer of one piece.
    type Folder: Folder<Item, Result = Self::Result>;

    /// What combines the results of two adjacent pieces.
    type Reducer: Reducer<Self::Result>;

    /// The result of consuming items.
    type Result: Send;

    /// Splits into a consumer of the first `index` items and one of the rest, and a reducer
    /// for their two results (left, then right).
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// The folder that consumes one piece sequentially.
    fn into_folder(self) -> Self::Folder;

    /// Whether this consumer needs no more items (a short-circuit such as `find_any` has its
    /// answer); the bridge then stops handing it items.
    fn full(&self) -> bool;
}

/// The sequential consumer of one piece's items, made by [`Consumer::into_folder`].
pub trait Folder<Item>: Sized {
    /// What the folder yields when complete.
    type Result;

    /// Consumes one item.
    fn consume(self, item: Item) -> Self;

    /// Consumes the items of `iter` in order until the folder is full. Override it when a
    /// whole iterator can be consumed faster than one item at a time (`sum` does).
    fn consume_iter<I>(mut self, iter: I) -> Self
    where
        I: IntoIterator<Item = Item>,
    {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }

    /// Finishes the piece and yields its result.
    fn complete(self) -> Self::Result;

    /// Whether the folder needs no more items.
    fn full(&self) -> bool;
}

/// Combines the results of two adjacent pieces: `left` covers the items before `right`'s.
///
/// The bridge combines a call's results in index order, but in any grouping (a left result
/// may already cover several pieces), so a reduction must be associative.
pub trait Reducer<Result> {
    /// Combines `left` with `right`.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// A [`Consumer`] that can also be split without an index, for unindexed iterators
/// (`filter`, `flat_map`, `par_bridge`).
pub trait UnindexedConsumer<I>: Consumer<I> {
    /// A consumer for items to the left of all of this consumer's (the consumer then
    /// handles the right part); the two results are combined with
    /// [`to_reducer`](Self::to_reducer)'s reducer.
    fn split_off_left(&self) -> Self;

    /// The reducer that combines a [`split_off_left`](Self::split_off_left) part's result
    /// (left) with this consumer's (right).
    fn to_reducer(&self) -> Self::Reducer;
}

/// The pull side of an unindexed parallel iterator: a source that can split itself roughly
/// in half without knowing its length.
pub trait UnindexedProducer: Send + Sized {
    /// The items produced.
    type Item;

    /// Splits into two producers (the first the items before the second's), or gives
    /// `(self, None)` when it should not split further.
    fn split(self) -> (Self, Option<Self>);

    /// Feeds every item into `folder`, in order, stopping early once it is full.
    fn fold_with<F>(self, folder: F) -> F
    where
        F: Folder<Self::Item>;
}
