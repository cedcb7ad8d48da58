//! `with_min_len` and `with_max_len`: bounds on the length of the pieces, passed to the
//! bridge through the producer's `min_len`/`max_len`.

use super::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// Defines a length-bounding adaptor around the producer wrapper `$producer`.
macro_rules! len_adaptor {
    ($(#[$doc:meta])* $name:ident, $field:ident, $producer:ident) => {
        $(#[$doc])*
        #[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
        #[derive(Debug, Clone)]
        pub struct $name<I> {
            base: I,
            $field: usize,
        }

        impl<I> $name<I> {
            pub(super) fn new(base: I, $field: usize) -> Self {
                $name { base, $field }
            }
        }

        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

            fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn len(&self) -> usize {
                self.base.len()
            }

            fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
                struct LenCallback<CB> {
                    callback: CB,
                    bound: usize,
                }

                impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for LenCallback<CB> {
                    type Output = CB::Output;

                    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                        self.callback.callback($producer { base, bound: self.bound })
                    }
                }

                self.base.with_producer(LenCallback { callback, bound: self.$field })
            }
        }

        struct $producer<P> {
            base: P,
            bound: usize,
        }

        impl<P: Producer> Producer for $producer<P> {
            type Item = P::Item;
            type IntoIter = P::IntoIter;

            fn into_iter(self) -> P::IntoIter {
                self.base.into_iter()
            }

            fn min_len(&self) -> usize {
                len_adaptor!(@min $field, self)
            }

            fn max_len(&self) -> usize {
                len_adaptor!(@max $field, self)
            }

            fn split_at(self, index: usize) -> (Self, Self) {
                let (left, right) = self.base.split_at(index);
                ($producer { base: left, bound: self.bound }, $producer { base: right, bound: self.bound })
            }

            fn fold_with<F: super::plumbing::Folder<P::Item>>(self, folder: F) -> F {
                self.base.fold_with(folder)
            }
        }
    };
    (@min min, $this:ident) => { $this.base.min_len().max($this.bound) };
    (@min max, $this:ident) => { $this.base.min_len() };
    (@max min, $this:ident) => { $this.base.max_len() };
    (@max max, $this:ident) => { $this.base.max_len().min($this.bound) };
}

len_adaptor! {
    /// The iterator of [`IndexedParallelIterator::with_min_len`].
    MinLen, min, MinLenProducer
}

len_adaptor! {
    /// The iterator of [`IndexedParallelIterator::with_max_len`].
    MaxLen, max, MaxLenProducer
}
