//! `chunks`, `fold_chunks` and `fold_chunks_with`: runs of `size` items, each made into one
//! item (a `Vec`, or a fold of the run) by a [`ChunkOp`]; the producer splits at multiples
//! of `size`.

use std::fmt;

use super::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// What a run of items becomes.
trait ChunkOp<T>: Sync + Send {
    type Out: Send;
    fn chunk<I: Iterator<Item = T>>(&self, items: I) -> Self::Out;
}

struct CollectChunk;

impl<T: Send> ChunkOp<T> for CollectChunk {
    type Out = Vec<T>;

    fn chunk<I: Iterator<Item = T>>(&self, items: I) -> Vec<T> {
        items.collect()
    }
}

#[derive(Clone)]
struct FoldChunk<ID, F> {
    identity: ID,
    fold_op: F,
}

impl<T, U, ID, F> ChunkOp<T> for FoldChunk<ID, F>
where
    ID: Fn() -> U + Sync + Send,
    F: Fn(U, T) -> U + Sync + Send,
    U: Send,
{
    type Out = U;

    fn chunk<I: Iterator<Item = T>>(&self, items: I) -> U {
        items.fold((self.identity)(), &self.fold_op)
    }
}

#[derive(Clone)]
struct FoldChunkWith<U, F> {
    init: U,
    fold_op: F,
}

impl<T, U, F> ChunkOp<T> for FoldChunkWith<U, F>
where
    F: Fn(U, T) -> U + Sync + Send,
    U: Clone + Send + Sync,
{
    type Out = U;

    fn chunk<I: Iterator<Item = T>>(&self, items: I) -> U {
        items.fold(self.init.clone(), &self.fold_op)
    }
}

/// The length of `len` items in runs of `size`.
fn chunk_count(len: usize, size: usize) -> usize {
    len.div_ceil(size)
}

/// Defines a chunking adaptor: its struct, constructor and iterator impls.
macro_rules! chunk_adaptor {
    (
        $(#[$doc:meta])* $name:ident<I $(, $g:ident)*> [$($x:ident),*] { $($field:ident: $fty:ty),* }
        op = |$this:ident| $op:expr, out = $out:ty, where { $($bounds:tt)* }
    ) => {
        $(#[$doc])*
        #[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
        #[derive(Clone)]
        pub struct $name<I $(, $g)*> {
            base: I,
            size: usize,
            $($field: $fty),*
        }

        impl<I: fmt::Debug $(, $g)*> fmt::Debug for $name<I $(, $g)*> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("base", &self.base).field("size", &self.size).finish()
            }
        }

        impl<I $(, $g)*> $name<I $(, $g)*> {
            pub(super) fn new(base: I, size: usize, $($field: $fty),*) -> Self {
                $name { base, size, $($field),* }
            }
        }

        impl<I: IndexedParallelIterator $(, $g)* $(, $x)*> ParallelIterator for $name<I $(, $g)*>
        where
            $($bounds)*
        {
            type Item = $out;

            fn drive_unindexed<C: UnindexedConsumer<$out>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I: IndexedParallelIterator $(, $g)* $(, $x)*> IndexedParallelIterator for $name<I $(, $g)*>
        where
            $($bounds)*
        {
            fn drive<C: Consumer<$out>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn len(&self) -> usize {
                chunk_count(self.base.len(), self.size)
            }

            fn with_producer<CB: ProducerCallback<$out>>(self, callback: CB) -> CB::Output {
                let len = self.base.len();
                let size = self.size;
                let $this = self;
                let op = $op;
                $this.base.with_producer(ChunksCallback { callback, size, len, op })
            }
        }
    };
}

chunk_adaptor! {
    /// The iterator of [`IndexedParallelIterator::chunks`].
    Chunks<I> [] {} op = |this| CollectChunk, out = Vec<I::Item>, where {}
}

chunk_adaptor! {
    /// The iterator of [`IndexedParallelIterator::fold_chunks`].
    FoldChunks<I, ID, F> [U] { identity: ID, fold_op: F }
    op = |this| FoldChunk { identity: this.identity, fold_op: this.fold_op }, out = U,
    where { ID: Fn() -> U + Send + Sync, F: Fn(U, I::Item) -> U + Send + Sync, U: Send, }
}

chunk_adaptor! {
    /// The iterator of [`IndexedParallelIterator::fold_chunks_with`].
    FoldChunksWith<I, U, F> [] { init: U, fold_op: F }
    op = |this| FoldChunkWith { init: this.init, fold_op: this.fold_op }, out = U,
    where { U: Send + Clone + Sync, F: Fn(U, I::Item) -> U + Send + Sync, }
}

struct ChunksCallback<CB, OP> {
    callback: CB,
    size: usize,
    len: usize,
    op: OP,
}

impl<T, CB, OP> ProducerCallback<T> for ChunksCallback<CB, OP>
where
    OP: ChunkOp<T>,
    CB: ProducerCallback<OP::Out>,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let producer = ChunkProducer {
            base,
            size: self.size,
            len: self.len,
            op: &self.op,
        };
        self.callback.callback(producer)
    }
}

/// The `len` items of `base` in runs of `size`.
struct ChunkProducer<'o, P, OP> {
    base: P,
    size: usize,
    len: usize,
    op: &'o OP,
}

impl<'o, P: Producer, OP: ChunkOp<P::Item>> Producer for ChunkProducer<'o, P, OP> {
    type Item = OP::Out;
    type IntoIter = ChunkIter<'o, P, OP>;

    fn into_iter(self) -> Self::IntoIter {
        ChunkIter {
            base: Some(self.base),
            size: self.size,
            len: self.len,
            op: self.op,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.size)
    }

    fn max_len(&self) -> usize {
        self.base.max_len() / self.size
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.len);
        let (left, right) = self.base.split_at(at);
        (
            ChunkProducer {
                base: left,
                size: self.size,
                len: at,
                op: self.op,
            },
            ChunkProducer {
                base: right,
                size: self.size,
                len: self.len - at,
                op: self.op,
            },
        )
    }
}

/// The runs of a chunk producer, split off its front or back one at a time.
struct ChunkIter<'o, P, OP> {
    base: Option<P>,
    size: usize,
    len: usize,
    op: &'o OP,
}

impl<P: Producer, OP: ChunkOp<P::Item>> Iterator for ChunkIter<'_, P, OP> {
    type Item = OP::Out;

    fn next(&mut self) -> Option<OP::Out> {
        let base = self.base.take()?;
        if self.len > self.size {
            let (run, rest) = base.split_at(self.size);
            self.base = Some(rest);
            self.len -= self.size;
            Some(self.op.chunk(run.into_iter()))
        } else if self.len > 0 {
            self.len = 0;
            Some(self.op.chunk(base.into_iter()))
        } else {
            None
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = chunk_count(self.len, self.size);
        (n, Some(n))
    }
}

impl<P: Producer, OP: ChunkOp<P::Item>> DoubleEndedIterator for ChunkIter<'_, P, OP> {
    fn next_back(&mut self) -> Option<OP::Out> {
        let base = self.base.take()?;
        if self.len == 0 {
            return None;
        }
        // The last run is the remainder of the division, or a whole one.
        let last = match self.len % self.size {
            0 => self.size,
            rem => rem,
        };
        if self.len > last {
            let (rest, run) = base.split_at(self.len - last);
            self.base = Some(rest);
            self.len -= last;
            Some(self.op.chunk(run.into_iter()))
        } else {
            self.len = 0;
            Some(self.op.chunk(base.into_iter()))
        }
    }
}

impl<P: Producer, OP: ChunkOp<P::Item>> ExactSizeIterator for ChunkIter<'_, P, OP> {}
