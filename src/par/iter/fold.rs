//! `fold`, `fold_with`, `try_fold` and `try_fold_with`: each piece's items folded into one
//! accumulator, which goes on as an item. An accumulator starts from `identity()` or a
//! clone of `init` (a [`Start`]); the fallible forms stop their piece at a failure.

use std::fmt;
use std::marker::PhantomData;
use std::ops::ControlFlow::{self, Break, Continue};

use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::try_trait::Try;
use super::ParallelIterator;

/// How a piece's accumulator starts: `identity()`, or a clone of a value that travels
/// with the consumer.
trait Start<T>: Send {
    /// The start of a piece split off to the left.
    fn split(&self) -> Self;
    /// The accumulator.
    fn make(self) -> T;
}

struct Identity<'f, ID>(&'f ID);

impl<T, ID: Fn() -> T + Sync> Start<T> for Identity<'_, ID> {
    fn split(&self) -> Self {
        Identity(self.0)
    }

    fn make(self) -> T {
        (self.0)()
    }
}

struct Cloning<T>(T);

impl<T: Clone + Send> Start<T> for Cloning<T> {
    fn split(&self) -> Self {
        Cloning(self.0.clone())
    }

    fn make(self) -> T {
        self.0
    }
}

/// The iterator of [`ParallelIterator::fold`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I: fmt::Debug, ID, F> fmt::Debug for Fold<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fold").field("base", &self.base).finish()
    }
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    T: Send,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let start = Identity(&self.identity);
        self.base.drive_unindexed(FoldConsumer {
            base: consumer,
            start,
            fold_op: &self.fold_op,
            acc: PhantomData,
        })
    }
}

/// The iterator of [`ParallelIterator::fold_with`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct FoldWith<I, T, F> {
    base: I,
    item: T,
    fold_op: F,
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for FoldWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, T, F> FoldWith<I, T, F> {
    pub(super) fn new(base: I, item: T, fold_op: F) -> Self {
        FoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I, F, T> ParallelIterator for FoldWith<I, T, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    T: Send + Clone,
{
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let start = Cloning(self.item);
        self.base.drive_unindexed(FoldConsumer {
            base: consumer,
            start,
            fold_op: &self.fold_op,
            acc: PhantomData,
        })
    }
}

/// Folds each piece into an accumulator and passes it to `base`.
struct FoldConsumer<'f, C, S, F, T> {
    base: C,
    start: S,
    fold_op: &'f F,
    acc: PhantomData<fn() -> T>,
}

impl<'f, U, T, C, S, F> Consumer<U> for FoldConsumer<'f, C, S, F, T>
where
    C: Consumer<T>,
    S: Start<T>,
    F: Fn(T, U) -> T + Sync,
    T: Send,
{
    type Folder = FoldFolder<'f, C::Folder, F, T>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let left_start = self.start.split();
        (
            FoldConsumer {
                base: left,
                start: left_start,
                fold_op: self.fold_op,
                acc: PhantomData,
            },
            FoldConsumer {
                base: right,
                start: self.start,
                fold_op: self.fold_op,
                acc: PhantomData,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        FoldFolder {
            base: self.base.into_folder(),
            acc: self.start.make(),
            fold_op: self.fold_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<U, T, C, S, F> UnindexedConsumer<U> for FoldConsumer<'_, C, S, F, T>
where
    C: UnindexedConsumer<T>,
    S: Start<T>,
    F: Fn(T, U) -> T + Sync,
    T: Send,
{
    fn split_off_left(&self) -> Self {
        FoldConsumer {
            base: self.base.split_off_left(),
            start: self.start.split(),
            fold_op: self.fold_op,
            acc: PhantomData,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FoldFolder<'f, C, F, T> {
    base: C,
    acc: T,
    fold_op: &'f F,
}

impl<U, T, C, F> Folder<U> for FoldFolder<'_, C, F, T>
where
    C: Folder<T>,
    F: Fn(T, U) -> T,
{
    type Result = C::Result;

    fn consume(self, item: U) -> Self {
        FoldFolder {
            acc: (self.fold_op)(self.acc, item),
            ..self
        }
    }

    fn consume_iter<I: IntoIterator<Item = U>>(self, iter: I) -> Self {
        let base = &self.base;
        let acc = iter
            .into_iter()
            .take_while(|_| !base.full())
            .fold(self.acc, self.fold_op);
        FoldFolder { acc, ..self }
    }

    fn complete(self) -> C::Result {
        self.base.consume(self.acc).complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// The iterator of [`ParallelIterator::try_fold`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
pub struct TryFold<I, R, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
    result: PhantomData<fn() -> R>,
}

impl<I: Clone, R, ID: Clone, F: Clone> Clone for TryFold<I, R, ID, F> {
    fn clone(&self) -> Self {
        TryFold::new(
            self.base.clone(),
            self.identity.clone(),
            self.fold_op.clone(),
        )
    }
}

impl<I: fmt::Debug, R, ID, F> fmt::Debug for TryFold<I, R, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFold").field("base", &self.base).finish()
    }
}

impl<I, R, ID, F> TryFold<I, R, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
            result: PhantomData,
        }
    }
}

impl<I, R, ID, F, T> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> R + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    R: Try<Output = T> + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let start = Identity(&self.identity);
        self.base.drive_unindexed(TryFoldConsumer {
            base: consumer,
            start,
            fold_op: &self.fold_op,
            result: PhantomData,
        })
    }
}

/// The iterator of [`ParallelIterator::try_fold_with`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
pub struct TryFoldWith<I, R: Try, F> {
    base: I,
    item: R::Output,
    fold_op: F,
}

impl<I: Clone, R: Try<Output: Clone>, F: Clone> Clone for TryFoldWith<I, R, F> {
    fn clone(&self) -> Self {
        TryFoldWith {
            base: self.base.clone(),
            item: self.item.clone(),
            fold_op: self.fold_op.clone(),
        }
    }
}

impl<I: fmt::Debug, R: Try<Output: fmt::Debug>, F> fmt::Debug for TryFoldWith<I, R, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, R: Try, F> TryFoldWith<I, R, F> {
    pub(super) fn new(base: I, item: R::Output, fold_op: F) -> Self {
        TryFoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I, R, F, T> ParallelIterator for TryFoldWith<I, R, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> R + Sync + Send,
    R: Try<Output = T> + Send,
    T: Clone + Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let start = Cloning(self.item);
        self.base.drive_unindexed(TryFoldConsumer {
            base: consumer,
            start,
            fold_op: &self.fold_op,
            result: PhantomData,
        })
    }
}

/// Folds each piece into an accumulator until a failure, and passes the outcome to `base`.
struct TryFoldConsumer<'f, C, S, F, R> {
    base: C,
    start: S,
    fold_op: &'f F,
    result: PhantomData<fn() -> R>,
}

impl<'f, U, T, R, C, S, F> Consumer<U> for TryFoldConsumer<'f, C, S, F, R>
where
    C: Consumer<R>,
    S: Start<T>,
    F: Fn(T, U) -> R + Sync,
    R: Try<Output = T> + Send,
{
    type Folder = TryFoldFolder<'f, C::Folder, F, R>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let left_start = self.start.split();
        (
            TryFoldConsumer {
                base: left,
                start: left_start,
                fold_op: self.fold_op,
                result: PhantomData,
            },
            TryFoldConsumer {
                base: right,
                start: self.start,
                fold_op: self.fold_op,
                result: PhantomData,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        TryFoldFolder {
            base: self.base.into_folder(),
            control: Continue(self.start.make()),
            fold_op: self.fold_op,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<U, T, R, C, S, F> UnindexedConsumer<U> for TryFoldConsumer<'_, C, S, F, R>
where
    C: UnindexedConsumer<R>,
    S: Start<T>,
    F: Fn(T, U) -> R + Sync,
    R: Try<Output = T> + Send,
{
    fn split_off_left(&self) -> Self {
        TryFoldConsumer {
            base: self.base.split_off_left(),
            start: self.start.split(),
            fold_op: self.fold_op,
            result: PhantomData,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct TryFoldFolder<'f, C, F, R: Try> {
    base: C,
    control: ControlFlow<R::Residual, R::Output>,
    fold_op: &'f F,
}

impl<U, T, R, C, F> Folder<U> for TryFoldFolder<'_, C, F, R>
where
    C: Folder<R>,
    F: Fn(T, U) -> R,
    R: Try<Output = T>,
{
    type Result = C::Result;

    fn consume(mut self, item: U) -> Self {
        if let Continue(acc) = self.control {
            self.control = (self.fold_op)(acc, item).branch();
        }
        self
    }

    fn complete(self) -> C::Result {
        let item = match self.control {
            Continue(c) => R::from_output(c),
            Break(r) => R::from_residual(r),
        };
        self.base.consume(item).complete()
    }

    fn full(&self) -> bool {
        self.control.is_break() || self.base.full()
    }
}
