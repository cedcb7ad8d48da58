//! The [`ParallelIterator`] trait: every adaptor and consumer that any parallel iterator
//! has, indexed or not. Each method is a short delegation to the module that implements it.

use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};

use super::plumbing::UnindexedConsumer;
use super::try_trait::Try;
use super::*;

/// A parallel iterator: rayon's `ParallelIterator`. Like an [`Iterator`], it is built by
/// chaining adaptors and run by a consumer at the end (`for_each`, `collect`, `sum` …); the
/// items are processed in pieces on filch's workers, and the call returns once every piece
/// has.
///
/// ```
/// use filch::par::prelude::*;
///
/// let v: Vec<u64> = (1..=100).collect();
/// let sum_of_squares: u64 = v.par_iter().map(|x| x * x).sum();
/// assert_eq!(sum_of_squares, 338_350);
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The type of the items.
    type Item: Send;

    /// Calls `op` on each item, in parallel.
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let total = AtomicUsize::new(0);
    /// (0..1000usize).into_par_iter().for_each(|i| {
    ///     total.fetch_add(i, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 499_500);
    /// ```
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        for_each::for_each(self, &op)
    }

    /// Calls `op` on each item with a mutable reference to a clone of `init`; each piece of
    /// work clones `init` once and uses its clone for all its items.
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::sync::mpsc::channel;
    ///
    /// let (sender, receiver) = channel();
    /// (0..5).into_par_iter().for_each_with(sender, |s, x| s.send(x).unwrap());
    /// let mut res: Vec<_> = receiver.iter().collect();
    /// res.sort();
    /// assert_eq!(res, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Clone,
    {
        self.map_with(init, op).collect()
    }

    /// Calls `op` on each item with a mutable reference to a value made by `init`, which runs
    /// once per piece of work (for a buffer or a random generator that each piece needs).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let mut rows = vec![vec![0u8; 8]; 100];
    /// rows.par_iter_mut().for_each_init(Vec::new, |scratch: &mut Vec<u8>, row| {
    ///     scratch.clear();
    ///     scratch.extend((0..8).map(|x| x * 2));
    ///     row.copy_from_slice(scratch);
    /// });
    /// assert_eq!(rows[99][7], 14);
    /// ```
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.map_init(init, op).collect()
    }

    /// Calls the fallible `op` on each item; returns the first failure met (`Err` or `None`),
    /// stopping the other pieces early, or success. Which failure is returned when several
    /// items fail is not specified.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let ok: Result<(), String> = (0..100).into_par_iter().try_for_each(|x| {
    ///     if x < 100 { Ok(()) } else { Err(format!("{x} too big")) }
    /// });
    /// assert!(ok.is_ok());
    ///
    /// let failed = (0..100).into_par_iter().try_for_each(|x| if x == 42 { Err(x) } else { Ok(()) });
    /// assert_eq!(failed, Err(42));
    /// ```
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map(op)
            .try_reduce(<()>::default, |(), ()| R::from_output(()))
    }

    /// [`try_for_each`](Self::try_for_each) with a clone of `init` per piece of work, as
    /// [`for_each_with`](Self::for_each_with).
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::sync::mpsc::channel;
    ///
    /// let (sender, receiver) = channel();
    /// (0..5).into_par_iter().try_for_each_with(sender, |s, x| s.send(x)).unwrap();
    /// let mut res: Vec<_> = receiver.iter().collect();
    /// res.sort();
    /// assert_eq!(res, [0, 1, 2, 3, 4]);
    /// ```
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op)
            .try_reduce(<()>::default, |(), ()| R::from_output(()))
    }

    /// [`try_for_each`](Self::try_for_each) with a value made by `init` per piece of work, as
    /// [`for_each_init`](Self::for_each_init).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let r: Result<(), ()> = (0..100u32).into_par_iter().try_for_each_init(
    ///     || String::new(),
    ///     |buf, x| {
    ///         buf.clear();
    ///         buf.push_str(&x.to_string());
    ///         if buf.len() <= 2 { Ok(()) } else { Err(()) }
    ///     },
    /// );
    /// assert!(r.is_ok());
    /// ```
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op)
            .try_reduce(<()>::default, |(), ()| R::from_output(()))
    }

    /// The number of items.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().filter(|x| x % 3 == 0).count(), 34);
    /// ```
    fn count(self) -> usize {
        self.map(|_| 1usize).sum()
    }

    /// Applies `map_op` to each item.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let doubled: Vec<i32> = (0..5).into_par_iter().map(|x| x * 2).collect();
    /// assert_eq!(doubled, [0, 2, 4, 6, 8]);
    /// ```
    fn map<F, R>(self, map_op: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map_op)
    }

    /// Applies `map_op` to each item with a mutable reference to a clone of `init`, cloned
    /// once per piece of work.
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::sync::mpsc::channel;
    ///
    /// let (sender, receiver) = channel();
    /// let a: Vec<_> = (0..5)
    ///     .into_par_iter()
    ///     .map_with(sender, |s, x| {
    ///         s.send(x).unwrap();
    ///         x * 10
    ///     })
    ///     .collect();
    /// let mut b: Vec<_> = receiver.iter().collect();
    /// b.sort();
    /// assert_eq!(a, [0, 10, 20, 30, 40]);
    /// assert_eq!(b, [0, 1, 2, 3, 4]);
    /// ```
    fn map_with<F, T, R>(self, init: T, map_op: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        MapWith::new(self, init, map_op)
    }

    /// Applies `map_op` to each item with a mutable reference to a value made by `init`,
    /// which runs once per piece of work (a scratch buffer, a random generator).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let lens: Vec<usize> = (0..1000u32)
    ///     .into_par_iter()
    ///     .map_init(String::new, |buf, x| {
    ///         buf.clear();
    ///         buf.push_str(&x.to_string());
    ///         buf.len()
    ///     })
    ///     .collect();
    /// assert_eq!(lens[5], 1);
    /// assert_eq!(lens[500], 3);
    /// ```
    fn map_init<F, INIT, T, R>(self, init: INIT, map_op: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, map_op)
    }

    /// Clones each referenced item.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = ["a".to_string(), "b".to_string()];
    /// let v: Vec<String> = a.par_iter().cloned().collect();
    /// assert_eq!(v, a);
    /// ```
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(self)
    }

    /// Copies each referenced item.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [1, 2, 3];
    /// let v: Vec<i32> = a.par_iter().copied().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(self)
    }

    /// Calls `inspect_op` on a reference to each item as it passes.
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let seen = AtomicUsize::new(0);
    /// let sum: i32 = (1..=4).into_par_iter().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).sum();
    /// assert_eq!((sum, seen.into_inner()), (10, 4));
    /// ```
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect_op)
    }

    /// Mutates each item in place with `update_op` as it passes.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<Vec<i32>> = (0..3).into_par_iter().map(|x| vec![x]).update(|v| v.push(9)).collect();
    /// assert_eq!(v, [vec![0, 9], vec![1, 9], vec![2, 9]]);
    /// ```
    fn update<F>(self, update_op: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update_op)
    }

    /// Keeps the items for which `filter_op` is true.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let even: Vec<i32> = (0..10).into_par_iter().filter(|x| x % 2 == 0).collect();
    /// assert_eq!(even, [0, 2, 4, 6, 8]);
    /// ```
    fn filter<P>(self, filter_op: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, filter_op)
    }

    /// Maps each item with `filter_op` and keeps the `Some` values.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let words = ["1", "two", "3", "four"];
    /// let numbers: Vec<u32> = words.par_iter().filter_map(|w| w.parse().ok()).collect();
    /// assert_eq!(numbers, [1, 3]);
    /// ```
    fn filter_map<P, R>(self, filter_op: P) -> FilterMap<Self, P>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, filter_op)
    }

    /// Maps each item to a parallel iterator and runs them all, flattened in order.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map(|n| (0..n).into_par_iter()).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map<F, PI>(self, map_op: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, map_op)
    }

    /// Maps each item to a sequential iterator and flattens them in order; each inner
    /// iterator runs on one thread (cheaper than [`flat_map`](Self::flat_map) when the inner
    /// iterators are short).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map_iter(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map_iter<F, SI>(self, map_op: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator<Item: Send>,
    {
        FlatMapIter::new(self, map_op)
    }

    /// Flattens items that are themselves parallel iterators.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v = vec![vec![1, 2], vec![], vec![3]];
    /// let flat: Vec<i32> = v.into_par_iter().flatten().collect();
    /// assert_eq!(flat, [1, 2, 3]);
    /// ```
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Flattens items that are sequential iterators (each runs on one thread).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v = vec![vec![1, 2], vec![], vec![3]];
    /// let flat: Vec<i32> = v.into_par_iter().flatten_iter().collect();
    /// assert_eq!(flat, [1, 2, 3]);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator<Item: Send>,
    {
        FlattenIter::new(self)
    }

    /// Reduces the items with `op`, starting each piece of work from `identity()`; the
    /// result of an empty iterator is `identity()`. `op` must be associative, and `identity()`
    /// must be its identity, since the items are grouped in any way (but kept in order).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let sums = [(0, 1), (5, 6), (16, 2), (8, 9)]
    ///     .par_iter()
    ///     .map(|&(a, b)| (a, b))
    ///     .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    /// assert_eq!(sums, (29, 18));
    /// ```
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        reduce::reduce(self, identity, op)
    }

    /// Reduces the items with `op`; `None` if there are none. `op` must be associative.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!((1..=5).into_par_iter().reduce_with(|a, b| a * b), Some(120));
    /// assert_eq!((0..0).into_par_iter().reduce_with(|a, b| a + b), None);
    /// ```
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        reduce::reduce_with(self, op)
    }

    /// Reduces fallible items with `op`, stopping early at the first failure (`Err` or
    /// `None`, which is then the result); an empty iterator gives success with `identity()`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let sum = (1..=100u8).into_par_iter().map(|x| Some(x)).try_reduce(|| 0, u8::checked_add);
    /// assert_eq!(sum, None); // 5050 does not fit in a u8
    /// let sum = (1..=10u8).into_par_iter().map(|x| Some(x)).try_reduce(|| 0, u8::checked_add);
    /// assert_eq!(sum, Some(55));
    /// ```
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        try_reduce::try_reduce(self, identity, op)
    }

    /// Reduces fallible items with `op` without an identity: `None` for an empty iterator,
    /// else the first failure met or the reduced success.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let r = (1..=10u32).into_par_iter().map(Ok::<u32, ()>).try_reduce_with(|a, b| Ok(a + b));
    /// assert_eq!(r, Some(Ok(55)));
    /// ```
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        try_reduce::try_reduce_with(self, op)
    }

    /// Folds each piece of work's items into an accumulator started from `identity()`, and
    /// yields the accumulators (in order) as a parallel iterator: the parallel counterpart
    /// of [`Iterator::fold`], to be followed by a `reduce` or `sum`. How many accumulators
    /// there are depends on how the work was split.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let bytes = 0..22_u8;
    /// let sum = bytes
    ///     .into_par_iter()
    ///     .fold(|| 0_u32, |a: u32, b: u8| a + (b as u32))
    ///     .sum::<u32>();
    /// assert_eq!(sum, (0..22).sum::<u32>());
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// [`fold`](Self::fold) with a clone of `init` as each accumulator's start.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let sum: u32 = (0..22u32).into_par_iter().fold_with(0, |a, b| a + b).sum();
    /// assert_eq!(sum, 231);
    /// ```
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// A fallible [`fold`](Self::fold): each accumulator stops at its first failure, which
    /// it yields; a following `try_reduce` stops the whole call.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let bytes = 0..22_u8;
    /// let sum = bytes
    ///     .into_par_iter()
    ///     .try_fold(|| 0_u32, |a: u32, b: u8| a.checked_add(b as u32))
    ///     .try_reduce(|| 0, u32::checked_add);
    /// assert_eq!(sum, Some((0..22).sum::<u32>()));
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// [`try_fold`](Self::try_fold) with a clone of `init` as each accumulator's start.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let sum = (1..5u32).into_par_iter().try_fold_with(0u32, |a, b| a.checked_add(b))
    ///     .try_reduce(|| 0, u32::checked_add);
    /// assert_eq!(sum, Some(10));
    /// ```
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// Sums the items: each piece sums its own with [`Sum`], and the partial sums are summed
    /// in order. An empty iterator sums to `S`'s zero.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [1, 5, 7];
    /// let sum: i32 = a.par_iter().sum();
    /// assert_eq!(sum, 13);
    /// let total: f64 = (0..4).into_par_iter().map(|x| x as f64 / 2.0).sum();
    /// assert_eq!(total, 3.0);
    /// ```
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        sum::sum(self)
    }

    /// Multiplies the items, as [`sum`](Self::sum) adds them.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let p: u64 = (1..=10u64).into_par_iter().product();
    /// assert_eq!(p, 3_628_800);
    /// ```
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        sum::product(self)
    }

    /// The least item (the first of equals, as [`Iterator::min`]); `None` if empty.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!([45, 74, 32].par_iter().min(), Some(&32));
    /// ```
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.reduce_with(Ord::min)
    }

    /// The least item by `f` (the first of equals); `None` if empty.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [-3_i32, 77, 53, 240, -1];
    /// assert_eq!(a.par_iter().min_by(|x, y| x.cmp(y)), Some(&-3));
    /// ```
    fn min_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> Ordering,
    {
        self.reduce_with(move |a, b| match f(&a, &b) {
            Ordering::Greater => b,
            _ => a,
        })
    }

    /// The item with the least key `f(item)` (the first of equals); `None` if empty.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [-3_i32, 34, 2, 5, -10, -3, -23];
    /// assert_eq!(a.par_iter().min_by_key(|x| x.abs()), Some(&2));
    /// ```
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        let keyed = self.map(move |x| (f(&x), x));
        let (_, x) = keyed.reduce_with(|a, b| match a.0.cmp(&b.0) {
            Ordering::Greater => b,
            _ => a,
        })?;
        Some(x)
    }

    /// The greatest item (the last of equals, as [`Iterator::max`]); `None` if empty.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!([45, 74, 32].par_iter().max(), Some(&74));
    /// ```
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.reduce_with(Ord::max)
    }

    /// The greatest item by `f` (the last of equals); `None` if empty.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [-3_i32, 77, 53, 240, -1];
    /// assert_eq!(a.par_iter().max_by(|x, y| x.abs().cmp(&y.abs())), Some(&240));
    /// ```
    fn max_by<F>(self, f: F) -> Option<Self::Item>
    where
        F: Sync + Send + Fn(&Self::Item, &Self::Item) -> Ordering,
    {
        self.reduce_with(move |a, b| match f(&a, &b) {
            Ordering::Greater => a,
            _ => b,
        })
    }

    /// The item with the greatest key `f(item)` (the last of equals); `None` if empty.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [-3_i32, 34, 2, 5, -10, -3, -23];
    /// assert_eq!(a.par_iter().max_by_key(|x| x.abs()), Some(&34));
    /// ```
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Sync + Send + Fn(&Self::Item) -> K,
    {
        let keyed = self.map(move |x| (f(&x), x));
        let (_, x) = keyed.reduce_with(|a, b| match a.0.cmp(&b.0) {
            Ordering::Greater => a,
            _ => b,
        })?;
        Some(x)
    }

    /// This iterator's items, then `chain`'s.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..3).into_par_iter().chain(vec![7, 8]).collect();
    /// assert_eq!(v, [0, 1, 2, 7, 8]);
    /// ```
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// Some item for which `predicate` is true, not necessarily the first; the search stops
    /// in every piece once one is found.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [1, 2, 3, 3];
    /// assert_eq!(a.par_iter().find_any(|&&x| x == 3), Some(&3));
    /// assert_eq!(a.par_iter().find_any(|&&x| x == 100), None);
    /// ```
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find_any(self, predicate)
    }

    /// The first item (in order) for which `predicate` is true; pieces after a match stop.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [1, 2, 3, 3];
    /// assert_eq!(a.par_iter().enumerate().find_first(|&(_, &x)| x == 3), Some((2, &3)));
    /// ```
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find_first_last::find_first(self, predicate)
    }

    /// The last item (in order) for which `predicate` is true; pieces before a match stop.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let a = [1, 2, 3, 3];
    /// assert_eq!(a.par_iter().enumerate().find_last(|&(_, &x)| x == 3), Some((3, &3)));
    /// ```
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find_first_last::find_last(self, predicate)
    }

    /// Some `Some` value of `predicate`, not necessarily the first.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let c = ["lol", "NaN", "5", "5"];
    /// assert_eq!(c.par_iter().find_map_any(|s| s.parse::<i32>().ok()), Some(5));
    /// ```
    fn find_map_any<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_any(|_| true)
    }

    /// The first (in order) `Some` value of `predicate`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let c = ["lol", "NaN", "2", "5"];
    /// assert_eq!(c.par_iter().find_map_first(|s| s.parse::<i32>().ok()), Some(2));
    /// ```
    fn find_map_first<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_first(|_| true)
    }

    /// The last (in order) `Some` value of `predicate`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let c = ["lol", "NaN", "2", "5"];
    /// assert_eq!(c.par_iter().find_map_last(|s| s.parse::<i32>().ok()), Some(5));
    /// ```
    fn find_map_last<P, R>(self, predicate: P) -> Option<R>
    where
        P: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(predicate).find_last(|_| true)
    }

    /// Deprecated as rayon's: use [`find_any`](Self::find_any), `find_first` or
    /// `find_last`.
    #[doc(hidden)]
    #[deprecated(note = "parallel `find` does not search in order -- use `find_any`, \
                         `find_first`, or `find_last`")]
    fn find<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.find_any(predicate)
    }

    /// Whether `predicate` is true for some item; stops early once one is found.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert!((0..100).into_par_iter().any(|x| x == 42));
    /// assert!(!(0..100).into_par_iter().any(|x| x > 100));
    /// ```
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&found| found).is_some()
    }

    /// Whether `predicate` is true for every item; stops early at the first false.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert!((0..100).into_par_iter().all(|x| x < 100));
    /// assert!(!(0..100).into_par_iter().all(|x| x != 42));
    /// ```
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate).find_any(|&ok| !ok).is_none()
    }

    /// The `Some` values until the first `None` (which stops the other pieces). With several
    /// pieces, values after the first `None` may still be yielded, but processing stops.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..10).into_par_iter().map(|x| Some(x)).while_some().collect();
    /// assert_eq!(v.len(), 10);
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// Stops the other pieces as soon as a closure panics. filch's pieces always do so
    /// (a panic stops a call at once), so this adaptor changes nothing; it exists for
    /// rayon's API.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let sum: i32 = (1..=4).into_par_iter().panic_fuse().sum();
    /// assert_eq!(sum, 10);
    /// ```
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// Collects the items into a collection, in order where the collection has an order.
    /// Into a `Vec` from an indexed iterator each item is written straight into its slot.
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::collections::HashMap;
    ///
    /// let squares: Vec<u64> = (0..5u64).into_par_iter().map(|x| x * x).collect();
    /// assert_eq!(squares, [0, 1, 4, 9, 16]);
    ///
    /// let by_name: HashMap<String, usize> =
    ///     ["a", "bb"].par_iter().map(|s| (s.to_string(), s.len())).collect();
    /// assert_eq!(by_name["bb"], 2);
    ///
    /// let all_ok: Result<Vec<i32>, String> = (0..3).into_par_iter().map(Ok).collect();
    /// assert_eq!(all_ok, Ok(vec![0, 1, 2]));
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// Splits pairs into two collections, each extended in order.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let (left, right): (Vec<i32>, Vec<i32>) = (0..4).into_par_iter().map(|x| (x, x * 10)).unzip();
    /// assert_eq!(left, [0, 1, 2, 3]);
    /// assert_eq!(right, [0, 10, 20, 30]);
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        unzip::unzip(self)
    }

    /// Splits the items into those for which `predicate` is true and the others.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let (even, odd): (Vec<i32>, Vec<i32>) = (0..8).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!(even, [0, 2, 4, 6]);
    /// assert_eq!(odd, [1, 3, 5, 7]);
    /// ```
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        unzip::partition(self, predicate)
    }

    /// Maps each item to [`Either`] and collects the lefts and the rights apart.
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use filch::par::iter::Either;
    ///
    /// let (small, big): (Vec<i32>, Vec<String>) = (0..6).into_par_iter().partition_map(|x| {
    ///     if x < 3 { Either::Left(x) } else { Either::Right(x.to_string()) }
    /// });
    /// assert_eq!(small, [0, 1, 2]);
    /// assert_eq!(big, ["3", "4", "5"]);
    /// ```
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        unzip::partition_map(self, predicate)
    }

    /// A clone of `element` between each two adjacent items.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (1..4).into_par_iter().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// ```
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, element)
    }

    /// At most `n` items, any of them (not necessarily the first `n`), in order.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..100).into_par_iter().take_any(5).collect();
    /// assert_eq!(v.len(), 5);
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// All but `n` items, any `n` of them skipped (not necessarily the first), in order.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..100).into_par_iter().skip_any(95).collect();
    /// assert_eq!(v.len(), 5);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// Items while `predicate` holds: once it is false for an item, no piece yields items
    /// after that one; items before it for which it is true may be yielded or not.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..100).into_par_iter().take_any_while(|&x| x < 50).collect();
    /// assert!(v.iter().all(|&x| x < 50));
    /// ```
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(self, predicate)
    }

    /// Skips items while `predicate` holds: once it is false for an item, every piece yields
    /// its items from there on; items for which it is true may be skipped or not.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let v: Vec<i32> = (0..100).into_par_iter().skip_any_while(|&x| x < 50).collect();
    /// assert!(v.ends_with(&[98, 99]) && v.len() >= 50);
    /// ```
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(self, predicate)
    }

    /// Collects into a list of vectors, one per piece of work, in order: no copy into one
    /// vector at the end.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let list = (0..10).into_par_iter().collect_vec_list();
    /// let flat: Vec<i32> = list.into_iter().flatten().collect();
    /// assert_eq!(flat, (0..10).collect::<Vec<_>>());
    /// ```
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        collect::vec_list(self)
    }

    /// Runs the iterator into `consumer` (plumbing: what terminal operations call).
    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>;

    /// The number of items, when known without running the iterator (indexed iterators
    /// know it).
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!((0..10).into_par_iter().opt_len(), Some(10));
    /// assert_eq!((0..10).into_par_iter().filter(|_| true).opt_len(), None);
    /// ```
    fn opt_len(&self) -> Option<usize> {
        None
    }
}
