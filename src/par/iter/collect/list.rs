//! The consumers that gather each piece's items in a vector (or a linked list) and chain
//! the pieces' results into a linked list, in order: for collects whose length is unknown
//! (after `filter`, `flat_map` …), appended to the target once at the end.

use std::collections::LinkedList;

use super::super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};

/// Gathers each piece's items into a `Vec`; the result is the list of the pieces' vectors.
pub(in crate::par) struct ListVecConsumer;

impl<T: Send> Consumer<T> for ListVecConsumer {
    type Folder = ListVecFolder<T>;
    type Reducer = ListReducer;
    type Result = LinkedList<Vec<T>>;

    fn split_at(self, _index: usize) -> (Self, Self, ListReducer) {
        (ListVecConsumer, ListVecConsumer, ListReducer)
    }

    fn into_folder(self) -> ListVecFolder<T> {
        ListVecFolder { vec: Vec::new() }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for ListVecConsumer {
    fn split_off_left(&self) -> Self {
        ListVecConsumer
    }

    fn to_reducer(&self) -> ListReducer {
        ListReducer
    }
}

/// The folder of [`ListVecConsumer`].
pub(in crate::par) struct ListVecFolder<T> {
    vec: Vec<T>,
}

impl<T> Folder<T> for ListVecFolder<T> {
    type Result = LinkedList<Vec<T>>;

    fn consume(mut self, item: T) -> Self {
        self.vec.push(item);
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        self.vec.extend(iter);
        self
    }

    fn complete(self) -> LinkedList<Vec<T>> {
        let mut list = LinkedList::new();
        if !self.vec.is_empty() {
            list.push_back(self.vec);
        }
        list
    }

    fn full(&self) -> bool {
        false
    }
}

/// Gathers items into a `LinkedList<T>` (for collecting into a linked list).
pub(in crate::par) struct ListConsumer;

impl<T: Send> Consumer<T> for ListConsumer {
    type Folder = ListFolder<T>;
    type Reducer = ListReducer;
    type Result = LinkedList<T>;

    fn split_at(self, _index: usize) -> (Self, Self, ListReducer) {
        (ListConsumer, ListConsumer, ListReducer)
    }

    fn into_folder(self) -> ListFolder<T> {
        ListFolder {
            list: LinkedList::new(),
        }
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for ListConsumer {
    fn split_off_left(&self) -> Self {
        ListConsumer
    }

    fn to_reducer(&self) -> ListReducer {
        ListReducer
    }
}

/// The folder of [`ListConsumer`].
pub(in crate::par) struct ListFolder<T> {
    list: LinkedList<T>,
}

impl<T> Folder<T> for ListFolder<T> {
    type Result = LinkedList<T>;

    fn consume(mut self, item: T) -> Self {
        self.list.push_back(item);
        self
    }

    fn complete(self) -> LinkedList<T> {
        self.list
    }

    fn full(&self) -> bool {
        false
    }
}

/// Chains two lists, left first.
pub(in crate::par) struct ListReducer;

impl<T> Reducer<LinkedList<T>> for ListReducer {
    fn reduce(self, mut left: LinkedList<T>, mut right: LinkedList<T>) -> LinkedList<T> {
        left.append(&mut right);
        left
    }
}
