//! Parallel iterators over the std collections (rayon's `rayon::collections`): one module
//! per collection, named after std's.
//!
//! A hash or B-tree collection (and a linked list) cannot be split in place, so its items
//! (or references to them) are first gathered into a `Vec`, sequentially, and the vector
//! is iterated in parallel; the iterators are unindexed, as rayon's. A `VecDeque` and a
//! `BinaryHeap` are vectors underneath and their iterators are indexed; their drains move
//! the collection into a `Vec` for the duration (a `VecGuard`), drain that, and move it
//! back when dropped.

pub mod binary_heap;
pub mod btree_map;
pub mod btree_set;
pub mod hash_map;
pub mod hash_set;
pub mod linked_list;
pub mod vec_deque;

/// A collection moved into a `Vec` (left empty in its place), and moved back from whatever
/// the vector holds when the guard drops.
struct VecGuard<'a, C: Default, T>
where
    C: From<Vec<T>>,
{
    collection: &'a mut C,
    vec: Vec<T>,
}

impl<'a, C, T> VecGuard<'a, C, T>
where
    C: Default + From<Vec<T>>,
    Vec<T>: From<C>,
{
    fn new(collection: &'a mut C) -> Self {
        let vec = Vec::from(std::mem::take(collection));
        VecGuard { collection, vec }
    }
}

impl<C, T> Drop for VecGuard<'_, C, T>
where
    C: Default + From<Vec<T>>,
{
    fn drop(&mut self) {
        *self.collection = C::from(std::mem::take(&mut self.vec));
    }
}

impl<C: Default + From<Vec<T>>, T> std::fmt::Debug for VecGuard<'_, C, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VecGuard")
            .field("len", &self.vec.len())
            .finish()
    }
}

/// Defines an unindexed iterator `$name` over a `Vec` of `$item`s gathered from a
/// collection (its `IntoParallelIterator` impl is written beside it).
macro_rules! gathered_iter {
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime),*; $($g:ident),*> => $item:ty, where [$($w:tt)*]) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<$($lt,)* $($g),*> {
            inner: crate::par::vec::IntoIter<$item>,
            borrows: std::marker::PhantomData<($(&$lt (),)*)>,
        }

        impl<$($lt,)* $($g),*> Clone for $name<$($lt,)* $($g),*>
        where
            crate::par::vec::IntoIter<$item>: Clone,
        {
            fn clone(&self) -> Self {
                $name { inner: self.inner.clone(), borrows: std::marker::PhantomData }
            }
        }

        impl<$($lt,)* $($g),*> $name<$($lt,)* $($g),*> {
            fn gathered(items: Vec<$item>) -> Self
            where
                $($w)*
            {
                let inner = crate::par::iter::IntoParallelIterator::into_par_iter(items);
                $name { inner, borrows: std::marker::PhantomData }
            }
        }

        crate::par::iter::delegate_unindexed!($name<$($lt),*; $($g),*> => crate::par::vec::IntoIter<$item>, item = $item, where [$($w)*]);
    };
}

use gathered_iter;
