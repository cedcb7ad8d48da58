//! The conversion traits: into a parallel iterator ([`IntoParallelIterator`] and its
//! by-reference forms), out of one ([`FromParallelIterator`], [`ParallelExtend`]), and the
//! draining ones ([`ParallelDrainFull`], [`ParallelDrainRange`]).

use std::ops::RangeBounds;

use super::ParallelIterator;

/// A value that converts into a parallel iterator: rayon's `IntoParallelIterator`. Every
/// parallel iterator is one (itself), as are ranges, `Vec`, arrays, `Option`, `Result`,
/// the std collections, and references to them.
///
/// ```
/// use filch::par::prelude::*;
///
/// let sum: u64 = (1..=1000u64).into_par_iter().sum();
/// assert_eq!(sum, 500_500);
///
/// let words = vec!["apple".to_string(), "fig".to_string()];
/// let lens: Vec<usize> = words.into_par_iter().map(|w| w.len()).collect();
/// assert_eq!(lens, [5, 3]);
/// ```
pub trait IntoParallelIterator {
    /// The parallel iterator this converts into.
    type Iter: ParallelIterator<Item = Self::Item>;

    /// The items of that iterator.
    type Item: Send;

    /// Converts `self` into a parallel iterator.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..5).into_par_iter().collect();
    /// assert_eq!(v, [0, 1, 2, 3, 4]);
    /// let owned: Vec<String> = vec!["x".to_string()].into_par_iter().collect();
    /// assert_eq!(owned, ["x"]);
    /// ```
    fn into_par_iter(self) -> Self::Iter;
}

/// A collection whose shared reference converts into a parallel iterator: `par_iter()`.
/// Implemented for every `T` such that `&T` is [`IntoParallelIterator`].
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator over references.
    type Iter: ParallelIterator<Item = Self::Item>;

    /// The items of that iterator, usually `&'data T`.
    type Item: Send + 'data;

    /// A parallel iterator over references to the items.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v = vec![1, 2, 3, 4];
    /// let doubled: Vec<i32> = v.par_iter().map(|x| x * 2).collect();
    /// assert_eq!(doubled, [2, 4, 6, 8]);
    /// assert_eq!(v.len(), 4); // v is only borrowed
    /// ```
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;

    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// A collection whose mutable reference converts into a parallel iterator:
/// `par_iter_mut()`. Implemented for every `T` such that `&mut T` is
/// [`IntoParallelIterator`].
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator over mutable references.
    type Iter: ParallelIterator<Item = Self::Item>;

    /// The items of that iterator, usually `&'data mut T`.
    type Item: Send + 'data;

    /// A parallel iterator over mutable references to the items.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v = vec![1, 2, 3];
    /// v.par_iter_mut().for_each(|x| *x *= 10);
    /// assert_eq!(v, [10, 20, 30]);
    /// ```
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;

    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// A collection that can be built from a parallel iterator: what
/// [`collect`](ParallelIterator::collect) makes.
///
/// ```
/// use filch::par::prelude::*;
/// use filch::par::iter::FromParallelIterator;
///
/// struct Total(u64);
/// impl FromParallelIterator<u64> for Total {
///     fn from_par_iter<I>(par_iter: I) -> Self
///     where
///         I: IntoParallelIterator<Item = u64>,
///     {
///         Total(par_iter.into_par_iter().sum())
///     }
/// }
/// let t: Total = (1..=4u64).into_par_iter().collect();
/// assert_eq!(t.0, 10);
/// ```
pub trait FromParallelIterator<T>
where
    T: Send,
{
    /// Builds `Self` from the items of `par_iter`.
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;
}

/// A collection that can be extended with a parallel iterator's items (in order where the
/// collection has one).
///
/// ```
/// use filch::par::prelude::*;
///
/// let mut v = vec![0, 1];
/// v.par_extend((2..5).into_par_iter());
/// assert_eq!(v, [0, 1, 2, 3, 4]);
/// ```
pub trait ParallelExtend<T>
where
    T: Send,
{
    /// Appends the items of `par_iter`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::collections::HashSet;
    ///
    /// let mut set = HashSet::new();
    /// set.par_extend((0..10).into_par_iter().map(|x| x % 3));
    /// assert_eq!(set.len(), 3);
    /// ```
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}

/// A collection that can be emptied by a parallel iterator of its items (`par_drain()`),
/// keeping its allocation.
pub trait ParallelDrainFull {
    /// The draining parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;

    /// The items drained.
    type Item: Send;

    /// Removes every item, yielding them (in order where the collection has one). The
    /// collection is empty afterwards, even if the iterator was not run to the end.
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::collections::HashSet;
    ///
    /// let mut set: HashSet<i32> = (0..10).collect();
    /// let sum: i32 = set.par_drain().sum();
    /// assert_eq!((sum, set.len()), (45, 0));
    /// ```
    fn par_drain(self) -> Self::Iter;
}

/// A collection that can give up a range of its items as a parallel iterator
/// (`par_drain(range)`).
pub trait ParallelDrainRange<Idx = usize> {
    /// The draining parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;

    /// The items drained.
    type Item: Send;

    /// Removes the items in `range`, yielding them in order; the items after the range
    /// move down. The range is removed even if the iterator is dropped unrun or a closure
    /// panics, and each item is dropped exactly once.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut v: Vec<i32> = (0..10).collect();
    /// let drained: Vec<i32> = v.par_drain(2..5).collect();
    /// assert_eq!(drained, [2, 3, 4]);
    /// assert_eq!(v, [0, 1, 5, 6, 7, 8, 9]);
    /// ```
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

impl<T: ParallelIterator> IntoParallelIterator for T {
    type Iter = T;
    type Item = T::Item;

    fn into_par_iter(self) -> T {
        self
    }
}
