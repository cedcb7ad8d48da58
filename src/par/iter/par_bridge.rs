//! `par_bridge()`: a sequential iterator shared by the pieces of a parallel call.
//!
//! The iterator sits behind a mutex; the bridge splits the producer into up to one piece
//! per worker, and each piece pulls items one at a time (the lock is held only for `next`)
//! until the iterator is exhausted or the consumer full. The items come in no particular
//! order. A piece whose thread already holds the lock (an iterator whose `next` runs
//! parallel work that came back to this call) returns at once instead of deadlocking.

use std::cell::Cell;

use super::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use super::ParallelIterator;
use crate::util::sync::{AtomicUsize, Mutex, Ordering};

/// Turns a sequential iterator into a parallel one: `iter.par_bridge()`.
pub trait ParallelBridge: Sized {
    /// A parallel iterator over this iterator's items, pulled by the workers as they
    /// go (in no particular order).
    ///
    /// ```
    /// use filch::par::prelude::*;
    /// use std::sync::mpsc::channel;
    ///
    /// let (tx, rx) = channel();
    /// for i in 0..100 {
    ///     tx.send(i).unwrap();
    /// }
    /// drop(tx);
    /// let mut squares: Vec<u64> = rx.into_iter().par_bridge().map(|x| x * x).collect();
    /// squares.sort();
    /// assert_eq!(squares[99], 9801);
    /// ```
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T: Iterator<Item: Send> + Send> ParallelBridge for T {
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// The iterator of [`ParallelBridge::par_bridge`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct IterBridge<Iter> {
    iter: Iter,
}

impl<Iter: Iterator<Item: Send> + Send> ParallelIterator for IterBridge<Iter> {
    type Item = Iter::Item;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let shared = ParBridgeShared {
            iter: Mutex::new(Some(self.iter)),
            holder: AtomicUsize::new(0),
            splits: AtomicUsize::new(crate::par::current_num_threads()),
        };
        bridge_unindexed(&shared, consumer)
    }
}

/// What the pieces of one `par_bridge` call share.
struct ParBridgeShared<Iter> {
    /// The iterator; `None` once it returned `None` or a `next` panicked.
    iter: Mutex<Option<Iter>>,
    /// The address of the holding thread's marker while the lock is held, else 0
    /// (Relaxed: a thread only compares it with its own marker, which only it stores).
    holder: AtomicUsize,
    /// How many more pieces may split off.
    splits: AtomicUsize,
}

thread_local! {
    /// A per-thread address, to recognise the thread that holds a bridge's lock.
    static MARKER: Cell<u8> = const { Cell::new(0) };
}

fn this_thread() -> usize {
    MARKER.with(|m| m as *const Cell<u8> as usize)
}

impl<Iter: Iterator<Item: Send> + Send> UnindexedProducer for &ParBridgeShared<Iter> {
    type Item = Iter::Item;

    fn split(self) -> (Self, Option<Self>) {
        let more = self
            .splits
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        (self, more.is_ok().then_some(self))
    }

    fn fold_with<F: Folder<Self::Item>>(self, mut folder: F) -> F {
        let me = this_thread();
        if self.holder.load(Ordering::Relaxed) == me {
            // This thread is inside `next` of this very iterator: leave the rest to the
            // piece that holds the lock.
            return folder;
        }
        while !folder.full() {
            crate::par::at_piece_boundary();
            let item = {
                let mut guard = self.iter.lock();
                if guard.is_none() {
                    return folder;
                }
                self.holder.store(me, Ordering::Relaxed);
                // A `next` that panics leaves the iterator out (`None`), so that the other
                // pieces stop pulling from it; the panic reaches the caller through its piece.
                let taken = TakeOnUnwind(&mut *guard);
                let next = taken.0.as_mut().and_then(Iterator::next);
                std::mem::forget(taken);
                self.holder.store(0, Ordering::Relaxed);
                if next.is_none() {
                    *guard = None;
                }
                next
            };
            match item {
                Some(item) => folder = folder.consume(item),
                None => return folder,
            }
        }
        folder
    }
}

/// Empties the iterator's slot if dropped, which only unwinding does (a `next` that
/// returns forgets it).
struct TakeOnUnwind<'a, I>(&'a mut Option<I>);

impl<I> Drop for TakeOnUnwind<'_, I> {
    fn drop(&mut self) {
        *self.0 = None;
    }
}
