//! Macros for iterator types that only wrap another one (`inner`): the iterators of
//! `Option` references, of the std collections, and the like.

/// Implements `ParallelIterator` for `$name` by delegating to its `inner` field.
macro_rules! delegate_unindexed {
    ($name:ident<$($lt:lifetime),*; $($g:ident),*> => $inner:ty, item = $item:ty, where [$($w:tt)*]) => {
        impl<$($lt,)* $($g),*> $crate::par::iter::ParallelIterator for $name<$($lt,)* $($g),*>
        where
            $($w)*
        {
            type Item = $item;

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: $crate::par::iter::plumbing::UnindexedConsumer<$item>,
            {
                self.inner.drive_unindexed(consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }
        }
    };
}

/// Implements `ParallelIterator` and `IndexedParallelIterator` for `$name` by delegating to
/// its `inner` field.
macro_rules! delegate_indexed {
    ($name:ident<$($lt:lifetime),*; $($g:ident),*> => $inner:ty, item = $item:ty, where [$($w:tt)*]) => {
        $crate::par::iter::delegate_unindexed!($name<$($lt),*; $($g),*> => $inner, item = $item, where [$($w)*]);

        impl<$($lt,)* $($g),*> $crate::par::iter::IndexedParallelIterator for $name<$($lt,)* $($g),*>
        where
            $($w)*
        {
            fn drive<C>(self, consumer: C) -> C::Result
            where
                C: $crate::par::iter::plumbing::Consumer<$item>,
            {
                self.inner.drive(consumer)
            }

            fn len(&self) -> usize {
                self.inner.len()
            }

            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: $crate::par::iter::plumbing::ProducerCallback<$item>,
            {
                self.inner.with_producer(callback)
            }
        }
    };
}

pub(crate) use {delegate_indexed, delegate_unindexed};
