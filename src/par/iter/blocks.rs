//! `by_exponential_blocks` and `by_uniform_blocks`: the iterator run in blocks, one after
//! the other, each block a bridged call of its own, the results reduced in order; a
//! short-circuiting consumer stops before the next block.

use super::plumbing::{
    bridge_producer_consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer,
};
use super::{IndexedParallelIterator, ParallelIterator};

/// Runs the `len` items of `producer` into `consumer` in blocks, the first of `first`
/// items, each next one `grow(size)`.
fn run_blocks<P, C>(
    len: usize,
    producer: P,
    consumer: C,
    first: usize,
    grow: impl Fn(usize) -> usize,
) -> C::Result
where
    P: Producer,
    C: UnindexedConsumer<P::Item>,
{
    let mut result = consumer.split_off_left().into_folder().complete();
    let mut rest = Some(producer);
    let mut left = len;
    let mut size = first.max(1);
    while left > 0 && !consumer.full() {
        let n = size.min(left);
        let (block, after) = rest.take().expect("a producer for the rest").split_at(n);
        rest = Some(after);
        left -= n;
        let block_result = bridge_producer_consumer(n, block, consumer.split_off_left());
        result = consumer.to_reducer().reduce(result, block_result);
        size = grow(size);
    }
    result
}

struct BlocksCallback<C, G> {
    consumer: C,
    len: usize,
    first: usize,
    grow: G,
}

impl<T, C, G> ProducerCallback<T> for BlocksCallback<C, G>
where
    C: UnindexedConsumer<T>,
    G: Fn(usize) -> usize,
{
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        run_blocks(self.len, producer, self.consumer, self.first, self.grow)
    }
}

/// The iterator of [`IndexedParallelIterator::by_exponential_blocks`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct ExponentialBlocks<I> {
    base: I,
}

impl<I> ExponentialBlocks<I> {
    pub(super) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for ExponentialBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let first = crate::par::current_num_threads();
        let len = self.base.len();
        let grow = |size: usize| size.saturating_mul(2);
        self.base.with_producer(BlocksCallback {
            consumer,
            len,
            first,
            grow,
        })
    }
}

/// The iterator of [`IndexedParallelIterator::by_uniform_blocks`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct UniformBlocks<I> {
    base: I,
    size: usize,
}

impl<I> UniformBlocks<I> {
    pub(super) fn new(base: I, size: usize) -> Self {
        UniformBlocks { base, size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for UniformBlocks<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let len = self.base.len();
        let size = self.size;
        self.base.with_producer(BlocksCallback {
            consumer,
            len,
            first: size,
            grow: move |_| size,
        })
    }
}
