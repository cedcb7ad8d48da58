//! Parallel iterators over `Option` (rayon's `rayon::option`): zero or one item.

use crate::par::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use crate::par::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator over the value of an `Option`: `opt.into_par_iter()`.
#[derive(Debug, Clone)]
pub struct IntoIter<T: Send> {
    opt: Option<T>,
}

impl<T: Send> IntoParallelIterator for Option<T> {
    type Item = T;
    type Iter = IntoIter<T>;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { opt: self }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.opt.is_some() as usize
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(OptionProducer { opt: self.opt })
    }
}

/// Defines a by-reference option iterator over `IntoIter<$item>`.
macro_rules! option_ref_iter {
    ($(#[$doc:meta])* $name:ident, $ref:ty, $item:ty, $bound:ident, $as:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<'a, T: $bound> {
            inner: IntoIter<$item>,
        }

        impl<'a, T: $bound> IntoParallelIterator for $ref {
            type Item = $item;
            type Iter = $name<'a, T>;

            fn into_par_iter(self) -> Self::Iter {
                $name { inner: self.$as().into_par_iter() }
            }
        }

        crate::par::iter::delegate_indexed!($name<'a; T> => IntoIter<$item>, item = $item, where [T: $bound + 'a]);
    };
}

option_ref_iter! {
    /// A parallel iterator over a reference to an `Option`'s value: `opt.par_iter()`.
    Iter, &'a Option<T>, &'a T, Sync, as_ref
}

option_ref_iter! {
    /// A parallel iterator over a mutable reference to an `Option`'s value:
    /// `opt.par_iter_mut()`.
    IterMut, &'a mut Option<T>, &'a mut T, Send, as_mut
}

impl<T: Sync> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            inner: self.inner.clone(),
        }
    }
}

/// The producer of zero or one item.
pub(crate) struct OptionProducer<T: Send> {
    pub(crate) opt: Option<T>,
}

impl<T: Send> Producer for OptionProducer<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.opt.into_iter()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let none = OptionProducer { opt: None };
        if index == 0 {
            (none, self)
        } else {
            (self, none)
        }
    }
}
