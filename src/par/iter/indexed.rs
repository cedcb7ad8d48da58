//! The [`IndexedParallelIterator`] trait: the adaptors and consumers of parallel iterators
//! whose length is known and whose items can be split at any index (ranges, slices, `Vec`,
//! and what `map`, `zip`, `enumerate` … make of them).

use std::cmp::Ordering;

use super::plumbing::{Consumer, ProducerCallback};
use super::*;

/// A parallel iterator that knows its length and can split at any index: rayon's
/// `IndexedParallelIterator`.
///
/// ```
/// use filch::par::prelude::*;
///
/// let a = [10, 20, 30];
/// let b = vec![1, 2, 3];
/// let sums: Vec<i32> = a.par_iter().zip(&b).map(|(x, y)| x + y).collect();
/// assert_eq!(sums, [11, 22, 33]);
/// ```
// The length is the trait's, as rayon's: no `is_empty` beside it.
#[allow(clippy::len_without_is_empty)]
pub trait IndexedParallelIterator: ParallelIterator {
    /// Runs the iterator in blocks whose length doubles (each block a parallel run of its
    /// own, in order): for short-circuiting consumers that should look at the first items
    /// first.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let first = (0..10_000).into_par_iter().by_exponential_blocks().find_first(|&x| x > 5);
    /// assert_eq!(first, Some(6));
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Runs the iterator in blocks of `block_size` items, one after the other (each a
    /// parallel run of its own). Panics if `block_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..10).into_par_iter().by_uniform_blocks(3).collect();
    /// assert_eq!(v, (0..10).collect::<Vec<_>>());
    /// ```
    #[track_caller]
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        assert!(block_size != 0, "block_size must not be zero");
        UniformBlocks::new(self, block_size)
    }

    /// Collects into `target`, replacing its contents (and reusing its allocation when
    /// large enough); each item is written into its slot.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = vec![9; 3];
    /// (0..5).into_par_iter().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2, 3, 4]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        collect::collect_into_vec(self, target);
    }

    /// Unzips pairs into `left` and `right`, replacing their contents.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let (mut left, mut right) = (vec![], vec![]);
    /// (0..3).into_par_iter().map(|x| (x, -x)).unzip_into_vecs(&mut left, &mut right);
    /// assert_eq!((left, right), (vec![0, 1, 2], vec![0, -1, -2]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        collect::unzip_into_vecs(self, left, right);
    }

    /// Pairs of this iterator's items and `zip_op`'s, as long as the shorter.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let names = ["a", "b", "c"];
    /// let pairs: Vec<(usize, &&str)> = (0..10).into_par_iter().zip(&names).collect();
    /// assert_eq!(pairs, [(0, &"a"), (1, &"b"), (2, &"c")]);
    /// ```
    fn zip<Z>(self, zip_op: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        Zip::new(self, zip_op.into_par_iter())
    }

    /// [`zip`](Self::zip) that panics if the two lengths differ.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<(i32, i32)> = (0..3).into_par_iter().zip_eq(vec![5, 6, 7]).collect();
    /// assert_eq!(v, [(0, 5), (1, 6), (2, 7)]);
    /// ```
    #[track_caller]
    fn zip_eq<Z>(self, zip_op: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator<Iter: IndexedParallelIterator>,
    {
        let other = zip_op.into_par_iter();
        assert_eq!(
            self.len(),
            other.len(),
            "iterators must have the same length"
        );
        ZipEq::new(self, other)
    }

    /// This iterator's items alternating with `other`'s, starting with this one's; the
    /// longer one's extra items come at the end.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = vec![1, 2, 3].into_par_iter().interleave(vec![-1, -2, -3, -4]).collect();
    /// assert_eq!(v, [1, -1, 2, -2, 3, -3, -4]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// [`interleave`](Self::interleave) that stops once the shorter iterator runs out.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = vec![1, 2, 3, 4].into_par_iter().interleave_shortest(vec![-1, -2]).collect();
    /// assert_eq!(v, [1, -1, 2, -2, 3]);
    /// ```
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
    {
        InterleaveShortest::new(self, other.into_par_iter())
    }

    /// The items in vectors of `chunk_size` (the last may be shorter). Panics if
    /// `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let c: Vec<Vec<i32>> = (1..8).into_par_iter().chunks(3).collect();
    /// assert_eq!(c, [vec![1, 2, 3], vec![4, 5, 6], vec![7]]);
    /// ```
    #[track_caller]
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        Chunks::new(self, chunk_size)
    }

    /// Folds each run of `chunk_size` items (the last may be shorter) into one value started
    /// from `identity()`. Panics if `chunk_size` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let sums: Vec<i32> = (1..8).into_par_iter().fold_chunks(3, || 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [6, 15, 7]);
    /// ```
    #[track_caller]
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// [`fold_chunks`](Self::fold_chunks) starting each chunk from a clone of `init`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let sums: Vec<i32> = (1..8).into_par_iter().fold_chunks_with(3, 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [6, 15, 7]);
    /// ```
    #[track_caller]
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// Compares with `other` lexicographically, as [`Iterator::cmp`].
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::cmp::Ordering::*;
    ///
    /// let x = vec![1, 2, 3];
    /// assert_eq!(x.par_iter().cmp(&vec![1, 3, 0]), Less);
    /// assert_eq!(x.par_iter().cmp(&vec![1, 2, 3]), Equal);
    /// assert_eq!(x.par_iter().cmp(&vec![1, 2]), Greater);
    /// ```
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item, Iter: IndexedParallelIterator>,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(x, y)| Ord::cmp(&x, &y))
            .find_first(|&ord| ord != Ordering::Equal)
            .unwrap_or(by_len)
    }

    /// Compares with `other` lexicographically, as [`Iterator::partial_cmp`].
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::cmp::Ordering::*;
    ///
    /// let x = vec![1.0, 2.0, 3.0];
    /// assert_eq!(x.par_iter().partial_cmp(&vec![1.0, 3.0, 0.0]), Some(Less));
    /// assert_eq!(x.par_iter().partial_cmp(&vec![1.0, f64::NAN]), None);
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(x, y)| PartialOrd::partial_cmp(&x, &y))
            .find_first(|&ord| ord != Some(Ordering::Equal))
            .unwrap_or(Some(by_len))
    }

    /// Whether the items equal `other`'s, as [`Iterator::eq`].
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().eq(vec![0, 1, 2]));
    /// assert!(!(0..3).into_par_iter().eq(vec![0, 1]));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(x, y)| x.eq(&y))
    }

    /// Whether the items differ from `other`'s, as [`Iterator::ne`].
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().ne(vec![0, 1, 3]));
    /// ```
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Whether the items are lexicographically less than `other`'s.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().lt(vec![0, 1, 3]));
    /// ```
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// Whether the items are lexicographically less than or equal to `other`'s.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().le(vec![0, 1, 2]));
    /// ```
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// Whether the items are lexicographically greater than `other`'s.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().gt(vec![0, 1]));
    /// ```
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// Whether the items are lexicographically greater than or equal to `other`'s.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert!((0..3).into_par_iter().ge(vec![0, 1, 2]));
    /// ```
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator<Iter: IndexedParallelIterator>,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// Pairs each item with its index.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<(usize, char)> = ['a', 'b', 'c'].par_iter().copied().enumerate().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b'), (2, 'c')]);
    ///
    /// let mut data = vec![0; 5];
    /// data.par_iter_mut().enumerate().for_each(|(i, x)| *x = i * i);
    /// assert_eq!(data, [0, 1, 4, 9, 16]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Every `step`-th item, from the first. Panics if `step` is 0.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (3..10).into_par_iter().step_by(3).collect();
    /// assert_eq!(v, [3, 6, 9]);
    /// ```
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// All but the first `n` items.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..10).into_par_iter().skip(7).collect();
    /// assert_eq!(v, [7, 8, 9]);
    /// ```
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// The first `n` items.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..10).into_par_iter().take(3).collect();
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// The index of some item for which `predicate` is true, not necessarily the first.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [1, 2, 3, 3];
    /// let i = a.par_iter().position_any(|&x| x == 3).unwrap();
    /// assert!(i == 2 || i == 3);
    /// ```
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let (i, _) = self.map(predicate).enumerate().find_any(|&(_, p)| p)?;
        Some(i)
    }

    /// The index of the first item for which `predicate` is true.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!([1, 2, 3, 3].par_iter().position_first(|&x| x == 3), Some(2));
    /// ```
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let (i, _) = self.map(predicate).enumerate().find_first(|&(_, p)| p)?;
        Some(i)
    }

    /// The index of the last item for which `predicate` is true.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!([1, 2, 3, 3].par_iter().position_last(|&x| x == 3), Some(3));
    /// ```
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        let (i, _) = self.map(predicate).enumerate().find_last(|&(_, p)| p)?;
        Some(i)
    }

    /// Deprecated as rayon's: use [`position_any`](Self::position_any), `position_first`
    /// or `position_last`.
    #[doc(hidden)]
    #[deprecated(
        note = "parallel `position` does not search in order -- use `position_any`, \
                         `position_first`, or `position_last`"
    )]
    fn position<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.position_any(predicate)
    }

    /// The indices of the items for which `predicate` is true, in order.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<usize> = [1, 2, 3, 4, 5, 6].par_iter().positions(|&x| x % 3 == 0).collect();
    /// assert_eq!(v, [2, 5]);
    /// ```
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// The items in reverse order.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..5).into_par_iter().rev().collect();
    /// assert_eq!(v, [4, 3, 2, 1, 0]);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// Pieces of work hold at least `min` items (but the last of a short iterator): fewer,
    /// larger pieces, for items too cheap to be worth sharing one by one.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let min = (0..1_000_000)
    ///     .into_par_iter()
    ///     .with_min_len(1234)
    ///     .fold(|| 0, |acc, _| acc + 1) // items per piece
    ///     .min()
    ///     .unwrap();
    /// assert!(min >= 1234);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Pieces of work hold at most `max` items: each piece stays short (for items of very
    /// uneven cost, or to reach a cancellation point often).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let max = (0..1_000_000)
    ///     .into_par_iter()
    ///     .with_max_len(1234)
    ///     .fold(|| 0, |acc, _| acc + 1) // items per piece
    ///     .max()
    ///     .unwrap();
    /// assert!(max <= 1234);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// The number of items.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!((0..10).into_par_iter().skip(3).len(), 7);
    /// assert_eq!(vec![1, 2].par_iter().chain(&[3]).len(), 3);
    /// ```
    fn len(&self) -> usize;

    /// Runs the iterator into an indexed `consumer` (plumbing: what indexed terminal
    /// operations call, usually through [`bridge`](plumbing::bridge)).
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result;

    /// Hands this iterator's producer to `callback` (plumbing: how indexed adaptors reach
    /// the producers underneath).
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;
}
