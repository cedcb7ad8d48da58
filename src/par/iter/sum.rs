//! `sum` and `product`: each piece folds its items with [`Sum`]/[`Product`], and the
//! partial results are combined the same way, in order.

use std::iter::{self, Product, Sum};
use std::marker::PhantomData;

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;

/// The sum of `pi`'s items.
pub(super) fn sum<I, S>(pi: I) -> S
where
    I: ParallelIterator,
    S: Send + Sum<I::Item> + Sum<S>,
{
    pi.drive_unindexed(Arith::<S, AddOp>::new())
}

/// The product of `pi`'s items.
pub(super) fn product<I, P>(pi: I) -> P
where
    I: ParallelIterator,
    P: Send + Product<I::Item> + Product<P>,
{
    pi.drive_unindexed(Arith::<P, MulOp>::new())
}

/// Addition or multiplication, through the std traits.
trait ArithOp<S> {
    fn empty() -> S;
    fn combine(a: S, b: S) -> S;
}

/// `S::sum` or `S::product` of an iterator of `T`, chosen by the op.
trait FromIterOp<T, O> {
    fn fold<I: Iterator<Item = T>>(iter: I) -> Self;
}

struct AddOp;
struct MulOp;

impl<S: Sum<S>> ArithOp<S> for AddOp {
    fn empty() -> S {
        iter::empty::<S>().sum()
    }
    fn combine(a: S, b: S) -> S {
        [a, b].into_iter().sum()
    }
}

impl<S: Product<S>> ArithOp<S> for MulOp {
    fn empty() -> S {
        iter::empty::<S>().product()
    }
    fn combine(a: S, b: S) -> S {
        [a, b].into_iter().product()
    }
}

impl<T, S: Sum<T>> FromIterOp<T, AddOp> for S {
    fn fold<I: Iterator<Item = T>>(iter: I) -> S {
        iter.sum()
    }
}

impl<T, S: Product<T>> FromIterOp<T, MulOp> for S {
    fn fold<I: Iterator<Item = T>>(iter: I) -> S {
        iter.product()
    }
}

/// The consumer of `sum` or `product` into `S`; also its reducer.
struct Arith<S, O>(PhantomData<fn() -> (S, O)>);

impl<S, O> Arith<S, O> {
    fn new() -> Self {
        Arith(PhantomData)
    }
}

impl<T, S, O> Consumer<T> for Arith<S, O>
where
    S: Send + FromIterOp<T, O>,
    O: ArithOp<S>,
{
    type Folder = ArithFolder<S, O>;
    type Reducer = Self;
    type Result = S;

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (Arith::new(), Arith::new(), Arith::new())
    }

    fn into_folder(self) -> Self::Folder {
        ArithFolder {
            acc: O::empty(),
            op: PhantomData,
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T, S, O> UnindexedConsumer<T> for Arith<S, O>
where
    S: Send + FromIterOp<T, O>,
    O: ArithOp<S>,
{
    fn split_off_left(&self) -> Self {
        Arith::new()
    }

    fn to_reducer(&self) -> Self {
        Arith::new()
    }
}

impl<S, O: ArithOp<S>> Reducer<S> for Arith<S, O> {
    fn reduce(self, left: S, right: S) -> S {
        O::combine(left, right)
    }
}

struct ArithFolder<S, O> {
    acc: S,
    op: PhantomData<fn() -> O>,
}

impl<T, S, O> Folder<T> for ArithFolder<S, O>
where
    S: FromIterOp<T, O>,
    O: ArithOp<S>,
{
    type Result = S;

    fn consume(self, item: T) -> Self {
        let one = S::fold(iter::once(item));
        ArithFolder {
            acc: O::combine(self.acc, one),
            op: PhantomData,
        }
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let part = S::fold(iter.into_iter());
        ArithFolder {
            acc: O::combine(self.acc, part),
            op: PhantomData,
        }
    }

    fn complete(self) -> S {
        self.acc
    }

    fn full(&self) -> bool {
        false
    }
}
