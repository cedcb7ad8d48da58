//! `par_chunk_by` and `par_chunk_by_mut`: the runs of a slice whose neighbours a predicate
//! calls the same, as unindexed parallel iterators on [`CutProducer`] (each neighbouring
//! pair is tested once).

use std::fmt;

use super::cuts::CutProducer;
use super::predicate_split::Boundary;
use crate::par::iter::plumbing::{bridge_unindexed, UnindexedConsumer};
use crate::par::iter::ParallelIterator;

/// A parallel iterator over the runs of a slice in which each pair of neighbours satisfies
/// a predicate: `slice.par_chunk_by(pred)`, as std's `chunk_by`.
pub struct ChunkBy<'data, T, P> {
    slice: &'data [T],
    kind: Boundary<T, P>,
}

/// A parallel iterator over the mutable runs of a slice in which each pair of neighbours
/// satisfies a predicate: `slice.par_chunk_by_mut(pred)`, as std's `chunk_by_mut`.
pub struct ChunkByMut<'data, T, P> {
    slice: &'data mut [T],
    kind: Boundary<T, P>,
}

impl<'data, T, P> ChunkBy<'data, T, P> {
    pub(super) fn new(slice: &'data [T], same: P) -> Self {
        ChunkBy {
            slice,
            kind: Boundary::new(same),
        }
    }
}

impl<'data, T, P> ChunkByMut<'data, T, P> {
    pub(super) fn new(slice: &'data mut [T], same: P) -> Self {
        ChunkByMut {
            slice,
            kind: Boundary::new(same),
        }
    }
}

impl<T, P: Clone> Clone for ChunkBy<'_, T, P> {
    fn clone(&self) -> Self {
        ChunkBy {
            slice: self.slice,
            kind: self.kind.clone(),
        }
    }
}

impl<T: fmt::Debug, P> fmt::Debug for ChunkBy<'_, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkBy")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<T: fmt::Debug, P> fmt::Debug for ChunkByMut<'_, T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkByMut")
            .field("slice", &self.slice)
            .finish()
    }
}

impl<'data, T, P> ParallelIterator for ChunkBy<'data, T, P>
where
    T: Sync,
    P: Fn(&T, &T) -> bool + Send + Sync,
{
    type Item = &'data [T];

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        bridge_unindexed(CutProducer::new(self.slice, &self.kind), consumer)
    }
}

impl<'data, T, P> ParallelIterator for ChunkByMut<'data, T, P>
where
    T: Send,
    P: Fn(&T, &T) -> bool + Send + Sync,
{
    type Item = &'data mut [T];

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        bridge_unindexed(CutProducer::new(self.slice, &self.kind), consumer)
    }
}
