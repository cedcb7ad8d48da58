//! `step_by`: every `step`-th item (the producer splits at `index × step`).

use std::iter;

use super::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::step_by`].
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Debug, Clone)]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    #[track_caller]
    pub(super) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "step must not be zero");
        StepBy { base, step }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
    type Item = I::Item;

    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct StepByCallback<CB> {
            callback: CB,
            step: usize,
            base_len: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for StepByCallback<CB> {
            type Output = CB::Output;

            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(StepByProducer {
                    base,
                    step: self.step,
                    base_len: self.base_len,
                })
            }
        }

        let base_len = self.base.len();
        self.base.with_producer(StepByCallback {
            callback,
            step: self.step,
            base_len,
        })
    }
}

/// Every `step`-th of the `base_len` items of `base`, from its first.
struct StepByProducer<P> {
    base: P,
    step: usize,
    base_len: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = iter::StepBy<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().step_by(self.step)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.step).min(self.base_len);
        let (left, right) = self.base.split_at(at);
        (
            StepByProducer {
                base: left,
                step: self.step,
                base_len: at,
            },
            StepByProducer {
                base: right,
                step: self.step,
                base_len: self.base_len - at,
            },
        )
    }

    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.step)
    }

    fn max_len(&self) -> usize {
        self.base.max_len() / self.step
    }
}
