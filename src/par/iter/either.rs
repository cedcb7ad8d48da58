//! [`Either`] of two parallel iterators of the same items is a parallel iterator (the one
//! it holds), and of two collections a collection to extend (the one it holds).

use super::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use super::{
    Either, IndexedParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator,
};

impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    fn drive_unindexed<C: UnindexedConsumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(iter) => iter.drive_unindexed(consumer),
            Either::Right(iter) => iter.drive_unindexed(consumer),
        }
    }

    fn opt_len(&self) -> Option<usize> {
        self.as_ref().either(L::opt_len, R::opt_len)
    }
}

impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    fn drive<C: Consumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(iter) => iter.drive(consumer),
            Either::Right(iter) => iter.drive(consumer),
        }
    }

    fn len(&self) -> usize {
        self.as_ref().either(L::len, R::len)
    }

    fn with_producer<CB: ProducerCallback<L::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(iter) => iter.with_producer(callback),
            Either::Right(iter) => iter.with_producer(callback),
        }
    }
}

impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        match self.as_mut() {
            Either::Left(collection) => collection.par_extend(par_iter),
            Either::Right(collection) => collection.par_extend(par_iter),
        }
    }
}
