//! Collecting into vectors: straight into the slots of the target when the length is known
//! (`consumer.rs`), else into a list of one vector per piece (`list.rs`), appended once at
//! the end, by the workers when it is big (`append.rs`).

mod append;
mod consumer;
mod list;

use std::collections::LinkedList;

use super::{IndexedParallelIterator, ParallelIterator};

use append::append_list;
pub(crate) use consumer::{CollectConsumer, CollectResult};
pub(super) use list::{ListConsumer, ListReducer, ListVecConsumer};

/// Collects the indexed `pi` into `target`, replacing its items.
pub(super) fn collect_into_vec<I, T>(pi: I, target: &mut Vec<T>)
where
    I: IndexedParallelIterator<Item = T>,
    T: Send,
{
    target.truncate(0);
    let len = pi.len();
    collect_with_consumer(target, len, |consumer| pi.drive(consumer));
}

/// Appends the `len` items of `pi` (which must report `opt_len() == Some(len)`) to `vec`.
pub(super) fn special_extend<I, T>(pi: I, len: usize, vec: &mut Vec<T>)
where
    I: ParallelIterator<Item = T>,
    T: Send,
{
    collect_with_consumer(vec, len, |consumer| pi.drive_unindexed(consumer));
}

/// Appends `len` items to `vec`, written in place by `drive` through a collect consumer;
/// panics (after dropping them) if `drive` wrote another number of items.
pub(crate) fn collect_with_consumer<T, F>(vec: &mut Vec<T>, len: usize, drive: F)
where
    T: Send,
    F: FnOnce(CollectConsumer<'_, T>) -> CollectResult<'_, T>,
{
    vec.reserve(len);
    let before = vec.len();
    let result = drive(CollectConsumer::appender(vec, len));
    let written = result.len();
    assert!(
        written == len,
        "expected {len} total writes, but got {written}"
    );
    let written = result.release();
    // SAFETY: the `written == len` items after `before` were written by the consumer, and
    // the result that owned them released them.
    unsafe { vec.set_len(before + written) };
}

/// The items of `pi` as one vector per piece, in order; a single vector when the length is
/// known.
pub(super) fn vec_list<I: ParallelIterator>(pi: I) -> LinkedList<Vec<I::Item>> {
    let mut list = LinkedList::new();
    match pi.opt_len() {
        Some(len) => {
            let mut vec = Vec::new();
            special_extend(pi, len, &mut vec);
            if !vec.is_empty() {
                list.push_back(vec);
            }
        }
        None => list = pi.drive_unindexed(ListVecConsumer),
    }
    list
}

/// Appends the items of `pi` to `vec`, in order: in place when the length is known, else
/// through a list of vectors spliced once.
pub(super) fn extend_vec<I, T>(pi: I, vec: &mut Vec<T>)
where
    I: ParallelIterator<Item = T>,
    T: Send,
{
    match pi.opt_len() {
        Some(len) => special_extend(pi, len, vec),
        None => {
            let list = pi.drive_unindexed(ListVecConsumer);
            append_list(vec, list);
        }
    }
}

/// Unzips the indexed `pi` into `left` and `right`, replacing their items.
pub(super) fn unzip_into_vecs<I, A, B>(pi: I, left: &mut Vec<A>, right: &mut Vec<B>)
where
    I: IndexedParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
{
    left.truncate(0);
    right.truncate(0);
    let len = pi.len();
    collect_with_consumer(right, len, |right_consumer| {
        let mut right_result = None;
        collect_with_consumer(left, len, |left_consumer| {
            let (l, r) = super::unzip::unzip_indexed(pi, left_consumer, right_consumer);
            right_result = Some(r);
            l
        });
        right_result.expect("the unzip produced its right half")
    });
}

#[cfg(test)]
mod tests;
