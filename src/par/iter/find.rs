//! `find_any` (and through it `any`, `all`, `find_map_any`, `position_any`): the first
//! match any piece meets; every piece stops once one is found.

use crate::util::sync::{AtomicBool, Ordering};

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::ParallelIterator;

/// Some item of `pi` for which `predicate` holds.
pub(super) fn find_any<I, P>(pi: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync,
{
    let found = AtomicBool::new(false);
    pi.drive_unindexed(FindAny {
        predicate: &predicate,
        found: &found,
    })
}

/// The consumer of `find_any`. `found` is set (Relaxed: it only stops work early; the item
/// itself travels in the results, which `join` hands over) once any piece has a match.
struct FindAny<'p, P> {
    predicate: &'p P,
    found: &'p AtomicBool,
}

impl<P> Clone for FindAny<'_, P> {
    fn clone(&self) -> Self {
        FindAny {
            predicate: self.predicate,
            found: self.found,
        }
    }
}

impl<'p, T: Send, P: Fn(&T) -> bool + Sync> Consumer<T> for FindAny<'p, P> {
    type Folder = FindAnyFolder<'p, T, P>;
    type Reducer = FirstSome;
    type Result = Option<T>;

    fn split_at(self, _index: usize) -> (Self, Self, FirstSome) {
        (self.clone(), self, FirstSome)
    }

    fn into_folder(self) -> Self::Folder {
        FindAnyFolder {
            consumer: self,
            item: None,
        }
    }

    fn full(&self) -> bool {
        self.found.load(Ordering::Relaxed)
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync> UnindexedConsumer<T> for FindAny<'_, P> {
    fn split_off_left(&self) -> Self {
        self.clone()
    }

    fn to_reducer(&self) -> FirstSome {
        FirstSome
    }
}

struct FindAnyFolder<'p, T, P> {
    consumer: FindAny<'p, P>,
    item: Option<T>,
}

impl<T, P: Fn(&T) -> bool> Folder<T> for FindAnyFolder<'_, T, P> {
    type Result = Option<T>;

    fn consume(mut self, item: T) -> Self {
        if (self.consumer.predicate)(&item) {
            self.consumer.found.store(true, Ordering::Relaxed);
            self.item = Some(item);
        }
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let predicate = self.consumer.predicate;
        let found = self.consumer.found;
        self.item = iter
            .into_iter()
            .take_while(|_| !found.load(Ordering::Relaxed))
            .find(predicate);
        if self.item.is_some() {
            found.store(true, Ordering::Relaxed);
        }
        self
    }

    fn complete(self) -> Option<T> {
        self.item
    }

    fn full(&self) -> bool {
        self.item.is_some() || self.consumer.found.load(Ordering::Relaxed)
    }
}

/// Keeps the left result if there is one, else the right.
pub(super) struct FirstSome;

impl<T> Reducer<Option<T>> for FirstSome {
    fn reduce(self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }
}
