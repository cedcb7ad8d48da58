//! [`ParallelExtend`] for the std collections: `Vec` in place (or through one splice of the
//! pieces' vectors); the others through the pieces' vectors, reserved once and extended
//! sequentially, in order; strings through one `String` per piece.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};

use super::collect::{self, ListConsumer, ListReducer};
use super::noop::NoopConsumer;
use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::{IntoParallelIterator, ParallelExtend, ParallelIterator};

/// The items of `pi` as the pieces' vectors, in order, and their total length.
fn pieces<I: IntoParallelIterator>(pi: I) -> (LinkedList<Vec<I::Item>>, usize) {
    let list = collect::vec_list(pi.into_par_iter());
    let len = list.iter().map(Vec::len).sum();
    (list, len)
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, pi: I) {
        collect::extend_vec(pi.into_par_iter(), self);
    }
}

impl<'a, T: 'a + Copy + Send + Sync> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, pi: I) {
        self.par_extend(pi.into_par_iter().copied());
    }
}

/// Implements `ParallelExtend<$item>` for a collection by extending it with the pieces'
/// vectors (after reserving their total length when `$reserve` says so).
macro_rules! extend_by_pieces {
    ($(#[$doc:meta])* impl[$($g:tt)*] for $ty:ty, item = $item:ty, reserve = $reserve:tt $(, where $($w:tt)*)?) => {
        $(#[$doc])*
        impl<$($g)*> ParallelExtend<$item> for $ty
        $(where $($w)*)?
        {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, pi: I) {
                let (list, len) = pieces(pi);
                extend_by_pieces!(@reserve $reserve, self, len);
                for piece in list {
                    self.extend(piece);
                }
            }
        }
    };
    (@reserve true, $self:ident, $len:ident) => { $self.reserve($len) };
    (@reserve false, $self:ident, $len:ident) => { let _ = $len; };
}

extend_by_pieces!(impl[T] for BinaryHeap<T>, item = T, reserve = true, where T: Ord + Send);
extend_by_pieces!(impl['a, T] for BinaryHeap<T>, item = &'a T, reserve = true, where T: 'a + Copy + Ord + Send + Sync);
extend_by_pieces!(impl[K, V] for BTreeMap<K, V>, item = (K, V), reserve = false, where K: Ord + Send, V: Send);
extend_by_pieces!(impl['a, K, V] for BTreeMap<K, V>, item = (&'a K, &'a V), reserve = false, where K: 'a + Copy + Ord + Send + Sync, V: 'a + Copy + Send + Sync);
extend_by_pieces!(impl[T] for BTreeSet<T>, item = T, reserve = false, where T: Ord + Send);
extend_by_pieces!(impl['a, T] for BTreeSet<T>, item = &'a T, reserve = false, where T: 'a + Copy + Ord + Send + Sync);
extend_by_pieces!(impl[K, V, S] for HashMap<K, V, S>, item = (K, V), reserve = true, where K: Eq + Hash + Send, V: Send, S: BuildHasher + Send);
extend_by_pieces!(impl['a, K, V, S] for HashMap<K, V, S>, item = (&'a K, &'a V), reserve = true, where K: 'a + Copy + Eq + Hash + Send + Sync, V: 'a + Copy + Send + Sync, S: BuildHasher + Send);
extend_by_pieces!(impl[T, S] for HashSet<T, S>, item = T, reserve = true, where T: Eq + Hash + Send, S: BuildHasher + Send);
extend_by_pieces!(impl['a, T, S] for HashSet<T, S>, item = &'a T, reserve = true, where T: 'a + Copy + Eq + Hash + Send + Sync, S: BuildHasher + Send);
extend_by_pieces!(impl[T] for VecDeque<T>, item = T, reserve = true, where T: Send);
extend_by_pieces!(impl['a, T] for VecDeque<T>, item = &'a T, reserve = true, where T: 'a + Copy + Send + Sync);
extend_by_pieces!(impl['a] for String, item = &'a str, reserve = false);
extend_by_pieces!(impl[] for String, item = String, reserve = false);
extend_by_pieces!(impl[] for String, item = Box<str>, reserve = false);
extend_by_pieces!(impl['a] for String, item = Cow<'a, str>, reserve = false);
extend_by_pieces!(impl['a] for OsString, item = &'a OsStr, reserve = false);
extend_by_pieces!(impl[] for OsString, item = OsString, reserve = false);
extend_by_pieces!(impl['a] for OsString, item = Cow<'a, OsStr>, reserve = false);

impl<T: Send> ParallelExtend<T> for LinkedList<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, pi: I) {
        let mut list = pi.into_par_iter().drive_unindexed(ListConsumer);
        self.append(&mut list);
    }
}

impl<'a, T: 'a + Copy + Send + Sync> ParallelExtend<&'a T> for LinkedList<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, pi: I) {
        self.par_extend(pi.into_par_iter().copied());
    }
}

impl ParallelExtend<char> for String {
    fn par_extend<I: IntoParallelIterator<Item = char>>(&mut self, pi: I) {
        let list = pi.into_par_iter().drive_unindexed(StringConsumer);
        self.reserve(list.iter().map(String::len).sum());
        self.extend(list);
    }
}

impl<'a> ParallelExtend<&'a char> for String {
    fn par_extend<I: IntoParallelIterator<Item = &'a char>>(&mut self, pi: I) {
        self.par_extend(pi.into_par_iter().copied());
    }
}

impl ParallelExtend<()> for () {
    fn par_extend<I: IntoParallelIterator<Item = ()>>(&mut self, pi: I) {
        pi.into_par_iter().drive_unindexed(NoopConsumer);
    }
}

/// Gathers each piece's characters into a `String`; the result is the list of them.
struct StringConsumer;

impl Consumer<char> for StringConsumer {
    type Folder = StringFolder;
    type Reducer = ListReducer;
    type Result = LinkedList<String>;

    fn split_at(self, _index: usize) -> (Self, Self, ListReducer) {
        (StringConsumer, StringConsumer, ListReducer)
    }

    fn into_folder(self) -> StringFolder {
        StringFolder(String::new())
    }

    fn full(&self) -> bool {
        false
    }
}

impl UnindexedConsumer<char> for StringConsumer {
    fn split_off_left(&self) -> Self {
        StringConsumer
    }

    fn to_reducer(&self) -> ListReducer {
        ListReducer
    }
}

struct StringFolder(String);

impl Folder<char> for StringFolder {
    type Result = LinkedList<String>;

    fn consume(mut self, item: char) -> Self {
        self.0.push(item);
        self
    }

    fn consume_iter<I: IntoIterator<Item = char>>(mut self, iter: I) -> Self {
        self.0.extend(iter);
        self
    }

    fn complete(self) -> LinkedList<String> {
        let mut list = LinkedList::new();
        if !self.0.is_empty() {
            list.push_back(self.0);
        }
        list
    }

    fn full(&self) -> bool {
        false
    }
}
