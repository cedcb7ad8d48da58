//! `for_each`: a closure called on each item, nothing collected.

use super::noop::NoopReducer;
use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::ParallelIterator;

/// Calls `op` on each item of `pi`.
pub(super) fn for_each<I, F>(pi: I, op: &F)
where
    I: ParallelIterator,
    F: Fn(I::Item) + Sync,
{
    pi.drive_unindexed(ForEachConsumer { op });
}

struct ForEachConsumer<'f, F> {
    op: &'f F,
}

impl<'f, F, T> Consumer<T> for ForEachConsumer<'f, F>
where
    F: Fn(T) + Sync,
{
    type Folder = ForEachConsumer<'f, F>;
    type Reducer = NoopReducer;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, NoopReducer) {
        (self.split_off_left(), self, NoopReducer)
    }

    fn into_folder(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }
}

impl<F, T> Folder<T> for ForEachConsumer<'_, F>
where
    F: Fn(T) + Sync,
{
    type Result = ();

    fn consume(self, item: T) -> Self {
        (self.op)(item);
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        iter.into_iter().for_each(self.op);
        self
    }

    fn complete(self) {}

    fn full(&self) -> bool {
        false
    }
}

impl<F, T> UnindexedConsumer<T> for ForEachConsumer<'_, F>
where
    F: Fn(T) + Sync,
{
    fn split_off_left(&self) -> Self {
        ForEachConsumer { op: self.op }
    }

    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}
