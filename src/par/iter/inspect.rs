//! `inspect`, `update`, `cloned` and `copied`: each item passed on after a look, a change
//! in place, a clone or a copy (on the machinery of `mapped.rs`).

use std::fmt;

use super::mapped::{self, ItemOp};
use super::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// Defines an adaptor on the `mapped` machinery: its struct, Debug and iterator impls.
macro_rules! item_adaptor {
    (
        $(#[$doc:meta])*
        $name:ident<I $(, $f:ident)?>, $op:ident, item = $item:ty, where { $($bounds:tt)* }
    ) => {
        $(#[$doc])*
        #[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
        #[derive(Clone)]
        pub struct $name<I $(, $f)?> {
            base: I,
            op: $op$(<$f>)?,
        }

        impl<I: fmt::Debug $(, $f)?> fmt::Debug for $name<I $(, $f)?> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("base", &self.base).finish()
            }
        }

        impl<'a, I, T $(, $f)?> ParallelIterator for $name<I $(, $f)?>
        where
            I: ParallelIterator<Item = $item>,
            $($bounds)*
        {
            type Item = T;

            fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
                mapped::drive_unindexed(self.base, &self.op, (), consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        impl<'a, I, T $(, $f)?> IndexedParallelIterator for $name<I $(, $f)?>
        where
            I: IndexedParallelIterator<Item = $item>,
            $($bounds)*
        {
            fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
                mapped::drive(self.base, &self.op, (), consumer)
            }

            fn len(&self) -> usize {
                self.base.len()
            }

            fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
                mapped::with_producer(self.base, self.op, (), callback)
            }
        }
    };
}

item_adaptor! {
    /// The iterator of [`ParallelIterator::inspect`].
    Inspect<I, F>, InspectOp, item = T, where { T: Send, F: Fn(&T) + Sync + Send, }
}

item_adaptor! {
    /// The iterator of [`ParallelIterator::update`].
    Update<I, F>, UpdateOp, item = T, where { T: Send, F: Fn(&mut T) + Sync + Send, }
}

item_adaptor! {
    /// The iterator of [`ParallelIterator::cloned`].
    Cloned<I>, ClonedOp, item = &'a T, where { T: 'a + Clone + Send + Sync, }
}

item_adaptor! {
    /// The iterator of [`ParallelIterator::copied`].
    Copied<I>, CopiedOp, item = &'a T, where { T: 'a + Copy + Send + Sync, }
}

impl<I, F> Inspect<I, F> {
    pub(super) fn new(base: I, op: F) -> Self {
        Inspect {
            base,
            op: InspectOp(op),
        }
    }
}

impl<I, F> Update<I, F> {
    pub(super) fn new(base: I, op: F) -> Self {
        Update {
            base,
            op: UpdateOp(op),
        }
    }
}

impl<I> Cloned<I> {
    pub(super) fn new(base: I) -> Self {
        Cloned { base, op: ClonedOp }
    }
}

impl<I> Copied<I> {
    pub(super) fn new(base: I) -> Self {
        Copied { base, op: CopiedOp }
    }
}

#[derive(Clone)]
struct InspectOp<F>(F);

impl<T: Send, F: Fn(&T) + Sync> ItemOp<T> for InspectOp<F> {
    type Out = T;
    type Seed = ();
    type State = ();

    fn split_seed(&self, _: &()) {}

    fn start(&self, _: ()) {}

    #[inline]
    fn apply(&self, _: &mut (), item: T) -> T {
        (self.0)(&item);
        item
    }
}

#[derive(Clone)]
struct UpdateOp<F>(F);

impl<T: Send, F: Fn(&mut T) + Sync> ItemOp<T> for UpdateOp<F> {
    type Out = T;
    type Seed = ();
    type State = ();

    fn split_seed(&self, _: &()) {}

    fn start(&self, _: ()) {}

    #[inline]
    fn apply(&self, _: &mut (), mut item: T) -> T {
        (self.0)(&mut item);
        item
    }
}

#[derive(Clone)]
struct ClonedOp;

impl<'a, T: 'a + Clone + Send> ItemOp<&'a T> for ClonedOp {
    type Out = T;
    type Seed = ();
    type State = ();

    fn split_seed(&self, _: &()) {}

    fn start(&self, _: ()) {}

    #[inline]
    fn apply(&self, _: &mut (), item: &'a T) -> T {
        item.clone()
    }
}

#[derive(Clone)]
struct CopiedOp;

impl<'a, T: 'a + Copy + Send> ItemOp<&'a T> for CopiedOp {
    type Out = T;
    type Seed = ();
    type State = ();

    fn split_seed(&self, _: &()) {}

    fn start(&self, _: ()) {}

    #[inline]
    fn apply(&self, _: &mut (), item: &'a T) -> T {
        *item
    }
}
