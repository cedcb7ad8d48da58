//! [`FromParallelIterator`]: what `collect` can make. Each collection is made empty and
//! extended ([`ParallelExtend`], `extend.rs`); `Option` and `Result` collect their success
//! values and stop every piece at the first `None` or `Err`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::Arc;

use crate::util::sync::{AtomicBool, Mutex, Ordering};

use super::noop::NoopConsumer;
use super::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator};

/// A new `C` extended with `pi`'s items.
fn extended<C, T, I>(pi: I) -> C
where
    C: Default + ParallelExtend<T>,
    T: Send,
    I: IntoParallelIterator<Item = T>,
{
    let mut c = C::default();
    c.par_extend(pi);
    c
}

/// Implements `FromParallelIterator<$item>` for a collection by extending a new one.
macro_rules! collect_extended {
    (impl[$($g:tt)*] for $ty:ty, item = $item:ty $(, where $($w:tt)*)?) => {
        impl<$($g)*> FromParallelIterator<$item> for $ty
        $(where $($w)*)?
        {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(pi: I) -> Self {
                extended(pi)
            }
        }
    };
}

collect_extended!(impl[T] for Vec<T>, item = T, where T: Send);
collect_extended!(impl[T] for VecDeque<T>, item = T, where T: Send);
collect_extended!(impl[T] for LinkedList<T>, item = T, where T: Send);
collect_extended!(impl[K, V, S] for HashMap<K, V, S>, item = (K, V), where K: Eq + Hash + Send, V: Send, S: BuildHasher + Default + Send);
collect_extended!(impl[K, V] for BTreeMap<K, V>, item = (K, V), where K: Ord + Send, V: Send);
collect_extended!(impl[V, S] for HashSet<V, S>, item = V, where V: Eq + Hash + Send, S: BuildHasher + Default + Send);
collect_extended!(impl[V] for BTreeSet<V>, item = V, where V: Ord + Send);
collect_extended!(impl[] for String, item = char);
collect_extended!(impl['a] for String, item = &'a char);
collect_extended!(impl['a] for String, item = &'a str);
collect_extended!(impl[] for String, item = String);
collect_extended!(impl[] for String, item = Box<str>);
collect_extended!(impl['a] for String, item = Cow<'a, str>);
collect_extended!(impl['a] for OsString, item = &'a OsStr);
collect_extended!(impl[] for OsString, item = OsString);
collect_extended!(impl['a] for OsString, item = Cow<'a, OsStr>);

impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(pi: I) -> Self {
        Vec::from_par_iter(pi).into_boxed_slice()
    }
}

impl<T: Send> FromParallelIterator<T> for Rc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(pi: I) -> Self {
        Vec::from_par_iter(pi).into()
    }
}

impl<T: Send> FromParallelIterator<T> for Arc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(pi: I) -> Self {
        Vec::from_par_iter(pi).into()
    }
}

impl<T: Ord + Send> FromParallelIterator<T> for BinaryHeap<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(pi: I) -> Self {
        Vec::from_par_iter(pi).into()
    }
}

/// Collects into a boxed string, as into a `String`.
macro_rules! collect_boxed_str {
    ($(impl<$($l:lifetime)?> item = $item:ty;)*) => {$(
        impl<$($l)?> FromParallelIterator<$item> for Box<str> {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(pi: I) -> Self {
                String::from_par_iter(pi).into_boxed_str()
            }
        }
    )*};
}

collect_boxed_str! {
    impl<> item = char;
    impl<'a> item = &'a char;
    impl<'a> item = &'a str;
    impl<> item = String;
    impl<> item = Box<str>;
    impl<'a> item = Cow<'a, str>;
}

/// Any `Cow` whose owned form can be collected: `Cow::Owned` of it.
impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned<Owned: FromParallelIterator<T>> + ?Sized,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(pi: I) -> Self {
        Cow::Owned(C::Owned::from_par_iter(pi))
    }
}

/// Runs the iterator for its effects.
impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(pi: I) -> Self {
        pi.into_par_iter().drive_unindexed(NoopConsumer)
    }
}

/// `Some` of the collected values, or `None` if any item is `None` (which stops the
/// other pieces early).
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(pi: I) -> Self {
        let missing = AtomicBool::new(false);
        let collected = pi
            .into_par_iter()
            .inspect(|item| {
                if item.is_none() {
                    missing.store(true, Ordering::Relaxed);
                }
            })
            .while_some()
            .collect();
        // Relaxed: `join` orders every piece's store before the collect returns.
        if missing.load(Ordering::Relaxed) {
            None
        } else {
            Some(collected)
        }
    }
}

/// `Ok` of the collected values, or an `Err` of the items (which stops the other pieces
/// early; with several errors, which one is not specified).
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(pi: I) -> Self {
        let error = Mutex::new(None);
        let collected = pi
            .into_par_iter()
            .map(|item| match item {
                Ok(t) => Some(t),
                Err(e) => {
                    let mut slot = error.lock();
                    if slot.is_none() {
                        *slot = Some(e);
                    }
                    None
                }
            })
            .while_some()
            .collect();
        match error.into_inner() {
            Some(e) => Err(e),
            None => Ok(collected),
        }
    }
}
