//! `MultiZip`: a tuple of indexed parallel iterators (or of values that convert into them)
//! iterated in step, `(a, b, c).into_par_iter()`, as long as the shortest; a nest of
//! [`zip`](super::IndexedParallelIterator::zip)s whose pairs are flattened into tuples.

use super::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator};
use super::{IntoParallelRefMutIterator, ParallelIterator};

/// The iterator of a tuple's `into_par_iter()`: the tuple's iterators in step.
///
/// ```
/// use filch::par::prelude::*;
///
/// let a = vec![1, 2, 3];
/// let b = vec!['x', 'y', 'z'];
/// let c = vec![true, false];
/// let v: Vec<(&i32, &char, &bool)> = (&a, &b, &c).into_par_iter().collect();
/// assert_eq!(v, [(&1, &'x', &true), (&2, &'y', &false)]);
/// ```
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct MultiZip<T> {
    tuple: T,
}

/// The pattern `(((a, b), c), d)` of a left-nested zip of `a b c d`.
macro_rules! nested_pat {
    ($a:ident) => { $a };
    ($a:ident $b:ident $($rest:ident)*) => { nested_pat!(@acc ($a, $b) $($rest)*) };
    (@acc $acc:tt) => { $acc };
    (@acc $acc:tt $c:ident $($rest:ident)*) => { nested_pat!(@acc ($acc, $c) $($rest)*) };
}

/// The tuple's iterators zipped in a left nest, mapped to flat tuples.
macro_rules! flat_zip {
    ($tuple:expr, $($t:ident)+) => {{
        let ($($t,)+) = $tuple;
        flat_zip!(@zip $($t)+).map(|nested_pat!($($t)+)| ($($t,)+))
    }};
    (@zip $first:ident $($rest:ident)*) => { $first $(.zip($rest))* };
}

macro_rules! multizip {
    ($(($($T:ident $t:ident $idx:tt),+))+) => {$(
        impl<$($T,)+> IntoParallelIterator for ($($T,)+)
        where
            $($T: IntoParallelIterator<Iter: IndexedParallelIterator>,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$idx.into_par_iter(),)+) }
            }
        }

        impl<'a, $($T,)+> IntoParallelIterator for &'a ($($T,)+)
        where
            $($T: IntoParallelRefIterator<'a, Iter: IndexedParallelIterator>,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$idx.par_iter(),)+) }
            }
        }

        impl<'a, $($T,)+> IntoParallelIterator for &'a mut ($($T,)+)
        where
            $($T: IntoParallelRefMutIterator<'a, Iter: IndexedParallelIterator>,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$idx.par_iter_mut(),)+) }
            }
        }

        impl<$($T,)+> ParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            type Item = ($($T::Item,)+);

            fn drive_unindexed<CONSUMER>(self, consumer: CONSUMER) -> CONSUMER::Result
            where
                CONSUMER: UnindexedConsumer<Self::Item>,
            {
                self.drive(consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($T,)+> IndexedParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            fn drive<CONSUMER>(self, consumer: CONSUMER) -> CONSUMER::Result
            where
                CONSUMER: Consumer<Self::Item>,
            {
                flat_zip!(self.tuple, $($t)+).drive(consumer)
            }

            fn len(&self) -> usize {
                let lens = [$(self.tuple.$idx.len(),)+];
                lens.into_iter().min().unwrap_or(0)
            }

            fn with_producer<CB>(self, callback: CB) -> CB::Output
            where
                CB: ProducerCallback<Self::Item>,
            {
                flat_zip!(self.tuple, $($t)+).with_producer(callback)
            }
        }
    )+};
}

multizip! {
    (A a 0)
    (A a 0, B b 1)
    (A a 0, B b 1, C c 2)
    (A a 0, B b 1, C c 2, D d 3)
    (A a 0, B b 1, C c 2, D d 3, E e 4)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10, L l 11)
}
