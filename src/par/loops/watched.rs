//! [`watched`]: the adaptor that makes a parallel iterator keep the awaited loops' promises
//! item by item, inside the bridge's chunks.
//!
//! The bridge (`par/iter/plumbing/bridge.rs`) looks up between chunks: it checks whether its
//! call is cancelled, publishes work for idle workers, and stops after a panic. A chunk aims at
//! `CHUNK_TARGET` (`plumbing/splitter.rs`) of work as last timed, so when the items'
//! cost jumps (a million 1 ns items, then 1 ms ones) a chunk can run for seconds. The loops
//! promise more: no item starts once the loop is stopped (its future dropped, a panic, the
//! executor shut down), and the worker's tasks, IO and timers are served within a few
//! milliseconds (its stand-in, `runtime/scheduler/standin/`, takes its place once the
//! loop's poll has held it for a tick, seen by the epoch ticker). So a watched iterator's pieces fold their
//! chunks in blocks of [`BLOCK`] items, and between two blocks make one relaxed load of the
//! epoch (`runtime/time/epoch.rs`): when it moved (every tick, and at once when
//! a call is cancelled, an executor shuts down or a piece of a bridged call unwinds) they
//! *look up*:
//! - the fork-join heartbeat check ([`at_piece_boundary`]): it publishes the oldest frame for
//!   idle workers, has the worker's stand-in take its place once the work has gone on for a
//!   tick, and unwinds (with the private `Cancelled` payload) if the call was cancelled or the
//!   executor shut down;
//! - the call's stop flag (the bridge's `CallStop`, the call's one, which the bridge hands to
//!   the fold through `Producer::fold_with_stop`), set when one of its pieces unwinds (a
//!   panic of a closure): the fold then takes no more items (those left are dropped with its iterator, which drops
//!   what it owns), and the piece ends with what it made.
//!
//! A watched fold takes its items from its piece's sequential iterator four to a block,
//! each block through the folder's own `consume_iter`: the check costs a quarter of what it
//! would per item, and the folder's loop keeps its state in registers, so a nanosecond body
//! stays close to a plain fold (`docs/par.md` has the measurements). So after a
//! stop at most the rest of a block runs (three items), and a worker looks up within a tick
//! plus a block of items however their cost changes.
//!
//! A watched call also asks, when it starts, that its first piece split at once and offer
//! half of its work ([`offer_half_at_once`]): a loop spreads over the workers from its start,
//! whatever they were doing at that moment.
//!
//! **Invariant:** once a call's stop flag is set, no watched fold of that call starts a
//! block after its next look-up; a watched fold looks up at most one tick plus [`BLOCK`]
//! items after the epoch moved. The flag is set (Relaxed) before the epoch is bumped
//! (Release), and read after the epoch is read with `epoch::now` (Acquire), so a fold that
//! sees the bump sees the flag.

use crate::par::iter::plumbing::{
    bridge, CallStop, Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer,
};
use crate::par::iter::{IndexedParallelIterator, ParallelIterator};
use crate::par::{at_piece_boundary, offer_half_at_once};
use crate::runtime::time::epoch;

/// Items folded between two looks at the epoch.
pub(crate) const BLOCK: usize = 4;

/// `base`, its pieces watched (module docs). Use it as the outermost indexed adaptor (any
/// consumer adaptor may follow): the watch is in its producer's fold.
pub(crate) fn watched<I: IndexedParallelIterator>(base: I) -> Watched<I> {
    Watched { base }
}

/// The iterator of [`watched`].
pub(crate) struct Watched<I> {
    base: I,
}

impl<I: IndexedParallelIterator> ParallelIterator for Watched<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Watched<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct WatchedCallback<CB> {
            callback: CB,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for WatchedCallback<CB> {
            type Output = CB::Output;

            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(WatchedProducer { base })
            }
        }

        // A loop spreads at once: its first piece offers half of its work before its first
        // chunk, whatever the other workers are doing now (a worker about to sleep would
        // otherwise get a share only at a later heartbeat of a thread that may be inside a
        // long item).
        offer_half_at_once();
        self.base.with_producer(WatchedCallback { callback })
    }
}

/// The producer of a [`Watched`]: the base's, its folds watched when the bridge folds them
/// ([`Producer::fold_with_stop`]).
struct WatchedProducer<P> {
    base: P,
}

impl<P: Producer> Producer for WatchedProducer<P> {
    type Item = P::Item;
    /// Iterated on its own (by an adaptor above), a piece is not watched.
    type IntoIter = P::IntoIter;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (
            WatchedProducer { base: left },
            WatchedProducer { base: right },
        )
    }

    /// Folded outside a bridged call (no stop flag to look at), a piece is not watched.
    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }

    /// Folds the base's items in blocks of [`BLOCK`] taken from its iterator, looking at
    /// the epoch between two blocks (module docs). Once stopped, the items left
    /// are dropped with the iterator, unfolded (a drain drops the items it still owns).
    fn fold_with_stop<F: Folder<P::Item>>(self, mut folder: F, stop: &CallStop) -> F {
        // The epoch first, then the flag (module invariant).
        let mut seen = epoch::now();
        if stop.is_set() {
            return folder;
        }
        let mut items = self.base.into_iter();
        loop {
            if items.len() < BLOCK {
                // The last block.
                folder = folder.consume_iter(items);
                break;
            }
            // Through `consume_iter`: a folder's own loop keeps its state in registers,
            // where one `consume` at a time may keep it in memory (in the return slot),
            // which a store and a load per item then chain.
            folder = folder.consume_iter(items.by_ref().take(BLOCK));
            if folder.full() {
                break;
            }
            if epoch::moved(seen) {
                seen = epoch::now();
                if look_up(stop) {
                    // The items left are dropped with `items`.
                    break;
                }
            }
        }
        folder
    }
}

/// A look-up (module docs): the heartbeat check, which unwinds if the call was cancelled or
/// the executor shut down, then the stop flag; whether to stop.
#[cold]
#[inline(never)]
fn look_up(stop: &CallStop) -> bool {
    at_piece_boundary();
    stop.is_set()
}
