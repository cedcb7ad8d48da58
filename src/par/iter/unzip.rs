//! `unzip`, `partition` and `partition_map`: one pass that feeds two collections.
//!
//! The collections are only reachable through their [`ParallelExtend`] impls, each of
//! which wants a parallel iterator to drive. So the left collection is extended with
//! `LeftSide`, an iterator that, when driven with the left consumer, extends the right
//! collection with `RightSide`; that one, driven with the right consumer, runs the base
//! iterator once into an `UnzipConsumer` holding both, hands the right result back to
//! the right collection and leaves the left result in a slot for `LeftSide` to return.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::{
    Either, FromParallelIterator, IndexedParallelIterator, ParallelExtend, ParallelIterator,
};

/// How one item feeds the two sides.
trait UnzipOp<T>: Sync + Send {
    type Left: Send;
    type Right: Send;

    /// Feeds `item` to one side or both.
    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<Self::Left>,
        FB: Folder<Self::Right>;

    /// Whether every item feeds both sides (so each side has the base's length).
    fn keeps_len(&self) -> bool {
        false
    }
}

/// `unzip`: a pair's halves go left and right.
struct Unzip;

impl<A: Send, B: Send> UnzipOp<(A, B)> for Unzip {
    type Left = A;
    type Right = B;

    fn consume<FA, FB>(&self, (a, b): (A, B), left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<A>,
        FB: Folder<B>,
    {
        (left.consume(a), right.consume(b))
    }

    fn keeps_len(&self) -> bool {
        true
    }
}

/// `partition`: an item goes left when the predicate holds, else right.
struct Partition<P> {
    predicate: P,
}

impl<P: Fn(&T) -> bool + Sync + Send, T: Send> UnzipOp<T> for Partition<P> {
    type Left = T;
    type Right = T;

    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<T>,
        FB: Folder<T>,
    {
        if (self.predicate)(&item) {
            (left.consume(item), right)
        } else {
            (left, right.consume(item))
        }
    }
}

/// `partition_map`: the predicate's `Left`s go left, its `Right`s right.
struct PartitionMap<P> {
    predicate: P,
}

impl<P, T, L, R> UnzipOp<T> for PartitionMap<P>
where
    P: Fn(T) -> Either<L, R> + Sync + Send,
    L: Send,
    R: Send,
{
    type Left = L;
    type Right = R;

    fn consume<FA, FB>(&self, item: T, left: FA, right: FB) -> (FA, FB)
    where
        FA: Folder<L>,
        FB: Folder<R>,
    {
        match (self.predicate)(item) {
            Either::Left(l) => (left.consume(l), right),
            Either::Right(r) => (left, right.consume(r)),
        }
    }
}

/// Unzips `pi`'s pairs into two collections.
pub(super) fn unzip<I, A, B, FromA, FromB>(pi: I) -> (FromA, FromB)
where
    I: ParallelIterator<Item = (A, B)>,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
    A: Send,
    B: Send,
{
    execute(pi, Unzip)
}

/// Splits `pi`'s items by `predicate` into two collections.
pub(super) fn partition<I, A, B, P>(pi: I, predicate: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<I::Item>,
    B: Default + Send + ParallelExtend<I::Item>,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    execute(pi, Partition { predicate })
}

/// Maps `pi`'s items to `Either` and collects the two kinds apart.
pub(super) fn partition_map<I, A, B, P, L, R>(pi: I, predicate: P) -> (A, B)
where
    I: ParallelIterator,
    A: Default + Send + ParallelExtend<L>,
    B: Default + Send + ParallelExtend<R>,
    P: Fn(I::Item) -> Either<L, R> + Sync + Send,
    L: Send,
    R: Send,
{
    execute(pi, PartitionMap { predicate })
}

/// Runs `pi` once into two new collections, split by `op`.
fn execute<I, OP, FromA, FromB>(pi: I, op: OP) -> (FromA, FromB)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromA: Default + Send + ParallelExtend<OP::Left>,
    FromB: Default + Send + ParallelExtend<OP::Right>,
{
    let mut a = FromA::default();
    let mut b = FromB::default();
    execute_into(&mut a, &mut b, pi, op);
    (a, b)
}

/// Runs `pi` once, extending `a` and `b` with the two sides of `op`.
fn execute_into<I, OP, FromA, FromB>(a: &mut FromA, b: &mut FromB, pi: I, op: OP)
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromA: Send + ParallelExtend<OP::Left>,
    FromB: Send + ParallelExtend<OP::Right>,
{
    a.par_extend(LeftSide { base: pi, op, b });
}

/// Unzips the indexed `pi` straight into two indexed consumers.
pub(super) fn unzip_indexed<I, A, B, CA, CB>(pi: I, left: CA, right: CB) -> (CA::Result, CB::Result)
where
    I: IndexedParallelIterator<Item = (A, B)>,
    CA: Consumer<A>,
    CB: Consumer<B>,
    A: Send,
    B: Send,
{
    pi.drive(UnzipConsumer {
        op: &Unzip,
        left,
        right,
    })
}

/// The left side of an unzip, as a parallel iterator for the left collection to drive.
struct LeftSide<'b, I, OP, FromB> {
    base: I,
    op: OP,
    b: &'b mut FromB,
}

impl<I, OP, FromB> ParallelIterator for LeftSide<'_, I, OP, FromB>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    FromB: Send + ParallelExtend<OP::Right>,
{
    type Item = OP::Left;

    fn drive_unindexed<C: UnindexedConsumer<OP::Left>>(self, consumer: C) -> C::Result {
        let mut left_result = None;
        self.b.par_extend(RightSide {
            base: self.base,
            op: &self.op,
            left_consumer: consumer,
            left_result: &mut left_result,
        });
        left_result.expect("the right collection's `par_extend` did not run its iterator")
    }

    fn opt_len(&self) -> Option<usize> {
        self.op.keeps_len().then(|| self.base.opt_len()).flatten()
    }
}

/// The right side of an unzip, driven by the right collection; holds the left consumer.
struct RightSide<'r, I, OP, CA, R> {
    base: I,
    op: &'r OP,
    left_consumer: CA,
    left_result: &'r mut Option<R>,
}

impl<I, OP, CA, R> ParallelIterator for RightSide<'_, I, OP, CA, R>
where
    I: ParallelIterator,
    OP: UnzipOp<I::Item>,
    CA: UnindexedConsumer<OP::Left, Result = R>,
    R: Send,
{
    type Item = OP::Right;

    fn drive_unindexed<C: UnindexedConsumer<OP::Right>>(self, consumer: C) -> C::Result {
        let both = UnzipConsumer {
            op: self.op,
            left: self.left_consumer,
            right: consumer,
        };
        let (left, right) = self.base.drive_unindexed(both);
        *self.left_result = Some(left);
        right
    }

    fn opt_len(&self) -> Option<usize> {
        self.op.keeps_len().then(|| self.base.opt_len()).flatten()
    }
}

/// Feeds each item to the left and right consumers as the op says.
struct UnzipConsumer<'o, OP, CA, CB> {
    op: &'o OP,
    left: CA,
    right: CB,
}

impl<'o, T, OP, CA, CB> Consumer<T> for UnzipConsumer<'o, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: Consumer<OP::Left>,
    CB: Consumer<OP::Right>,
{
    type Folder = UnzipFolder<'o, OP, CA::Folder, CB::Folder>;
    type Reducer = UnzipReducer<CA::Reducer, CB::Reducer>;
    type Result = (CA::Result, CB::Result);

    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        let (left1, left2, left_reducer) = self.left.split_at(index);
        let (right1, right2, right_reducer) = self.right.split_at(index);
        (
            UnzipConsumer {
                op: self.op,
                left: left1,
                right: right1,
            },
            UnzipConsumer {
                op: self.op,
                left: left2,
                right: right2,
            },
            UnzipReducer {
                left: left_reducer,
                right: right_reducer,
            },
        )
    }

    fn into_folder(self) -> Self::Folder {
        UnzipFolder {
            op: self.op,
            left: self.left.into_folder(),
            right: self.right.into_folder(),
        }
    }

    fn full(&self) -> bool {
        // Both sides must be full: a partition stops only when neither side wants items.
        self.left.full() && self.right.full()
    }
}

impl<T, OP, CA, CB> UnindexedConsumer<T> for UnzipConsumer<'_, OP, CA, CB>
where
    OP: UnzipOp<T>,
    CA: UnindexedConsumer<OP::Left>,
    CB: UnindexedConsumer<OP::Right>,
{
    fn split_off_left(&self) -> Self {
        UnzipConsumer {
            op: self.op,
            left: self.left.split_off_left(),
            right: self.right.split_off_left(),
        }
    }

    fn to_reducer(&self) -> Self::Reducer {
        UnzipReducer {
            left: self.left.to_reducer(),
            right: self.right.to_reducer(),
        }
    }
}

struct UnzipFolder<'o, OP, FA, FB> {
    op: &'o OP,
    left: FA,
    right: FB,
}

impl<T, OP, FA, FB> Folder<T> for UnzipFolder<'_, OP, FA, FB>
where
    OP: UnzipOp<T>,
    FA: Folder<OP::Left>,
    FB: Folder<OP::Right>,
{
    type Result = (FA::Result, FB::Result);

    fn consume(self, item: T) -> Self {
        let (left, right) = self.op.consume(item, self.left, self.right);
        UnzipFolder {
            op: self.op,
            left,
            right,
        }
    }

    fn complete(self) -> Self::Result {
        (self.left.complete(), self.right.complete())
    }

    fn full(&self) -> bool {
        self.left.full() && self.right.full()
    }
}

struct UnzipReducer<RA, RB> {
    left: RA,
    right: RB,
}

impl<A, B, RA: Reducer<A>, RB: Reducer<B>> Reducer<(A, B)> for UnzipReducer<RA, RB> {
    fn reduce(self, left: (A, B), right: (A, B)) -> (A, B) {
        (
            self.left.reduce(left.0, right.0),
            self.right.reduce(left.1, right.1),
        )
    }
}

/// `(A, B)` extended with pairs: both collections at once, in one pass.
impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + ParallelExtend<A>,
    FromB: Send + ParallelExtend<B>,
{
    fn par_extend<I>(&mut self, pi: I)
    where
        I: super::IntoParallelIterator<Item = (A, B)>,
    {
        execute_into(&mut self.0, &mut self.1, pi.into_par_iter(), Unzip);
    }
}

/// `(A, B)` extended with `Either`s: the lefts into `A`, the rights into `B`.
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    fn par_extend<I>(&mut self, pi: I)
    where
        I: super::IntoParallelIterator<Item = Either<L, R>>,
    {
        execute_into(
            &mut self.0,
            &mut self.1,
            pi.into_par_iter(),
            PartitionMap { predicate: |x| x },
        );
    }
}

/// A collection made by one call of `from_par_iter`, which `unzip` reaches through
/// `ParallelExtend` (the only door it has into a side's collection).
struct FromOnce<C>(Option<C>);

impl<C> Default for FromOnce<C> {
    fn default() -> Self {
        FromOnce(None)
    }
}

impl<T: Send, C: FromParallelIterator<T>> ParallelExtend<T> for FromOnce<C> {
    fn par_extend<I: super::IntoParallelIterator<Item = T>>(&mut self, pi: I) {
        self.0 = Some(C::from_par_iter(pi));
    }
}

impl<C> FromOnce<C> {
    fn made(self) -> C {
        self.0.expect("`unzip` extends each side once")
    }
}

/// Pairs collected into two collections at once.
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Send + FromParallelIterator<A>,
    FromB: Send + FromParallelIterator<B>,
{
    fn from_par_iter<I: super::IntoParallelIterator<Item = (A, B)>>(pi: I) -> Self {
        let (a, b): (FromOnce<FromA>, FromOnce<FromB>) = execute(pi.into_par_iter(), Unzip);
        (a.made(), b.made())
    }
}

/// `Either`s collected into two collections: the lefts and the rights.
impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + FromParallelIterator<L>,
    B: Send + FromParallelIterator<R>,
{
    fn from_par_iter<I: super::IntoParallelIterator<Item = Either<L, R>>>(pi: I) -> Self {
        let (a, b): (FromOnce<A>, FromOnce<B>) =
            execute(pi.into_par_iter(), PartitionMap { predicate: |x| x });
        (a.made(), b.made())
    }
}
