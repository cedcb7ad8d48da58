//! `take_any`, `skip_any`, `take_any_while` and `skip_any_while`: items let through or
//! held back by a gate that all pieces share (a count, or a flag), in no particular order
//! across pieces (each piece keeps its items in order).

use crate::util::sync::{AtomicBool, AtomicUsize, Ordering};
use std::fmt;

use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::{ParallelIterator, FULL_CHECK_BATCH};

/// What decides, item by item, whether it goes on. Shared by every piece of a call; the
/// atomics are Relaxed: each is a counter or a flag of its own, and no other memory is
/// published through them.
trait Gate<T>: Sync {
    /// Whether `item` goes on.
    fn admit(&self, item: &T) -> bool;
    /// Whether no further item can go on.
    fn closed(&self) -> bool;
}

/// Lets the first `n` items through, whichever pieces they come from.
struct TakeGate(AtomicUsize);

impl<T> Gate<T> for TakeGate {
    fn admit(&self, _: &T) -> bool {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }

    fn closed(&self) -> bool {
        self.0.load(Ordering::Relaxed) == 0
    }
}

/// Holds back the first `n` items, whichever pieces they come from.
struct SkipGate(AtomicUsize);

impl<T> Gate<T> for SkipGate {
    fn admit(&self, _: &T) -> bool {
        self.0.load(Ordering::Relaxed) == 0
            || self
                .0
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_err()
    }

    fn closed(&self) -> bool {
        false
    }
}

/// Lets items through until one fails the predicate.
struct TakeWhileGate<'p, P> {
    predicate: &'p P,
    taking: AtomicBool,
}

impl<T, P: Fn(&T) -> bool + Sync> Gate<T> for TakeWhileGate<'_, P> {
    fn admit(&self, item: &T) -> bool {
        if !self.taking.load(Ordering::Relaxed) {
            return false;
        }
        if (self.predicate)(item) {
            true
        } else {
            self.taking.store(false, Ordering::Relaxed);
            false
        }
    }

    fn closed(&self) -> bool {
        !self.taking.load(Ordering::Relaxed)
    }
}

/// Holds back items until one fails the predicate.
struct SkipWhileGate<'p, P> {
    predicate: &'p P,
    skipping: AtomicBool,
}

impl<T, P: Fn(&T) -> bool + Sync> Gate<T> for SkipWhileGate<'_, P> {
    fn admit(&self, item: &T) -> bool {
        if !self.skipping.load(Ordering::Relaxed) {
            return true;
        }
        if (self.predicate)(item) {
            false
        } else {
            self.skipping.store(false, Ordering::Relaxed);
            true
        }
    }

    fn closed(&self) -> bool {
        false
    }
}

/// Defines a gated adaptor: its struct and its `ParallelIterator` impl.
macro_rules! gated {
    ($(#[$doc:meta])* $name:ident<I $(, $p:ident)?> { $($field:ident: $fty:ty),* } => $gate:expr) => {
        $(#[$doc])*
        #[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
        #[derive(Clone)]
        pub struct $name<I $(, $p)?> {
            base: I,
            $($field: $fty),*
        }

        impl<I: fmt::Debug $(, $p)?> fmt::Debug for $name<I $(, $p)?> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("base", &self.base).finish()
            }
        }

        impl<I $(, $p)?> $name<I $(, $p)?> {
            pub(super) fn new(base: I, $($field: $fty),*) -> Self {
                $name { base, $($field),* }
            }
        }

        impl<I: ParallelIterator $(, $p: Fn(&I::Item) -> bool + Sync + Send)?> ParallelIterator for $name<I $(, $p)?> {
            type Item = I::Item;

            fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
                let $name { base, $($field),* } = self;
                $(let $field = &$field;)*
                let gate = $gate;
                base.drive_unindexed(GateConsumer { base: consumer, gate: &gate })
            }
        }
    };
}

gated! {
    /// The iterator of [`ParallelIterator::take_any`].
    TakeAny<I> { count: usize } => TakeGate(AtomicUsize::new(*count))
}

gated! {
    /// The iterator of [`ParallelIterator::skip_any`].
    SkipAny<I> { count: usize } => SkipGate(AtomicUsize::new(*count))
}

gated! {
    /// The iterator of [`ParallelIterator::take_any_while`].
    TakeAnyWhile<I, P> { predicate: P } => TakeWhileGate { predicate, taking: AtomicBool::new(true) }
}

gated! {
    /// The iterator of [`ParallelIterator::skip_any_while`].
    SkipAnyWhile<I, P> { predicate: P } => SkipWhileGate { predicate, skipping: AtomicBool::new(true) }
}

/// Passes on the items its gate admits.
struct GateConsumer<'g, C, G> {
    base: C,
    gate: &'g G,
}

impl<'g, T, C: Consumer<T>, G: Gate<T>> Consumer<T> for GateConsumer<'g, C, G> {
    type Folder = GateConsumer<'g, C::Folder, G>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            GateConsumer {
                base: left,
                gate: self.gate,
            },
            GateConsumer {
                base: right,
                gate: self.gate,
            },
            reducer,
        )
    }

    fn into_folder(self) -> Self::Folder {
        GateConsumer {
            base: self.base.into_folder(),
            gate: self.gate,
        }
    }

    fn full(&self) -> bool {
        self.gate.closed() || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>, G: Gate<T>> UnindexedConsumer<T> for GateConsumer<'_, C, G> {
    fn split_off_left(&self) -> Self {
        GateConsumer {
            base: self.base.split_off_left(),
            gate: self.gate,
        }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

impl<T, F: Folder<T>, G: Gate<T>> Folder<T> for GateConsumer<'_, F, G> {
    type Result = F::Result;

    fn consume(mut self, item: T) -> Self {
        if self.gate.admit(&item) {
            self.base = self.base.consume(item);
        }
        self
    }

    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        let gate = self.gate;
        let mut iter = iter.into_iter().take_while(|_| !gate.closed());
        loop {
            let mut taken = 0;
            let batch = iter.by_ref().take(FULL_CHECK_BATCH).inspect(|_| taken += 1);
            self.base = self
                .base
                .consume_iter(batch.filter(|item| gate.admit(item)));
            if taken < FULL_CHECK_BATCH || self.base.full() {
                return self;
            }
        }
    }

    fn complete(self) -> F::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.gate.closed() || self.base.full()
    }
}
