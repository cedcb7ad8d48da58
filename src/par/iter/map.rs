//! `map`, `map_with` and `map_init`: each item through a closure, without or with a state
//! per piece of work (on the machinery of `mapped.rs`).

use std::fmt;
use std::marker::PhantomData;

use super::mapped::{self, ItemOp};
use super::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::map`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct Map<I, F> {
    base: I,
    op: MapOp<F>,
}

impl<I: fmt::Debug, F> fmt::Debug for Map<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Map").field("base", &self.base).finish()
    }
}

impl<I, F> Map<I, F> {
    pub(super) fn new(base: I, map_op: F) -> Self {
        Map {
            base,
            op: MapOp(map_op),
        }
    }
}

#[derive(Clone)]
struct MapOp<F>(F);

impl<T, F, R> ItemOp<T> for MapOp<F>
where
    F: Fn(T) -> R + Sync,
    R: Send,
{
    type Out = R;
    type Seed = ();
    type State = ();

    fn split_seed(&self, _: &()) {}

    fn start(&self, _: ()) {}

    #[inline]
    fn apply(&self, _: &mut (), item: T) -> R {
        (self.0)(item)
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        mapped::drive_unindexed(self.base, &self.op, (), consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        mapped::drive(self.base, &self.op, (), consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        mapped::with_producer(self.base, self.op, (), callback)
    }
}

/// The iterator of [`ParallelIterator::map_with`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct MapWith<I, T, F> {
    base: I,
    item: T,
    op: WithOp<F, T>,
}

impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for MapWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish()
    }
}

impl<I, T, F> MapWith<I, T, F> {
    pub(super) fn new(base: I, item: T, map_op: F) -> Self {
        MapWith {
            base,
            item,
            op: WithOp(map_op, PhantomData),
        }
    }
}

struct WithOp<F, S>(F, PhantomData<fn(S)>);

impl<F: Clone, S> Clone for WithOp<F, S> {
    fn clone(&self) -> Self {
        WithOp(self.0.clone(), PhantomData)
    }
}

impl<T, F, S, R> ItemOp<T> for WithOp<F, S>
where
    F: Fn(&mut S, T) -> R + Sync,
    S: Send + Clone,
    R: Send,
{
    type Out = R;
    type Seed = S;
    type State = S;

    fn split_seed(&self, seed: &S) -> S {
        seed.clone()
    }

    fn start(&self, seed: S) -> S {
        seed
    }

    #[inline]
    fn apply(&self, state: &mut S, item: T) -> R {
        (self.0)(state, item)
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        mapped::drive_unindexed(self.base, &self.op, self.item, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, T, F, R> IndexedParallelIterator for MapWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        mapped::drive(self.base, &self.op, self.item, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        mapped::with_producer(self.base, self.op, self.item, callback)
    }
}

/// The iterator of [`ParallelIterator::map_init`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone)]
pub struct MapInit<I, INIT, F> {
    base: I,
    op: InitOp<INIT, F>,
}

impl<I: fmt::Debug, INIT, F> fmt::Debug for MapInit<I, INIT, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapInit").field("base", &self.base).finish()
    }
}

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(super) fn new(base: I, init: INIT, map_op: F) -> Self {
        MapInit {
            base,
            op: InitOp { init, map_op },
        }
    }
}

#[derive(Clone)]
struct InitOp<INIT, F> {
    init: INIT,
    map_op: F,
}

impl<X, INIT, F, S, R> ItemOp<X> for InitOp<INIT, F>
where
    INIT: Fn() -> S + Sync,
    F: Fn(&mut S, X) -> R + Sync,
    R: Send,
{
    type Out = R;
    type Seed = ();
    type State = S;

    fn split_seed(&self, _: &()) {}

    fn start(&self, _: ()) -> S {
        (self.init)()
    }

    #[inline]
    fn apply(&self, state: &mut S, item: X) -> R {
        (self.map_op)(state, item)
    }
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        mapped::drive_unindexed(self.base, &self.op, (), consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, INIT, T, F, R> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        mapped::drive(self.base, &self.op, (), consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        mapped::with_producer(self.base, self.op, (), callback)
    }
}
