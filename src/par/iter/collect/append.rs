//! [`append_list`]: the last step of a collect whose length was unknown (after `filter`,
//! `flat_map` …): the pieces' vectors appended to the target, in order.
//!
//! rayon appends them one after the other on the calling thread. That copy, and the first
//! touch of every page of the target (a page fault each), is the one part of such a collect
//! that does not run in parallel: over 10⁷ `u64`s it is about half of a 2-worker collect's
//! time. Here a big list (at least [`PARALLEL_APPEND_BYTES`], in more than one vector) is
//! copied by the workers instead: each vector's place in the target is known once the
//! lengths are summed, so the copies are independent, and a parallel iterator over them
//! spreads them over the workers like any other loop. A list of one vector into a target
//! that holds no allocation (a `collect`'s new `Vec`) is moved, not copied; a target with
//! capacity keeps its buffer, as `Vec::append` would.
//!
//! **Invariant:** each item is owned by exactly one vector at every moment a panic could
//! be seen. The copies are bitwise (`T: Send`: an item may move to another thread), into
//! the target's spare capacity, while the source vectors keep their lengths; only after
//! every copy returned do the sources give up their items (`set_len(0)`) and the target
//! take them (`set_len`). If the copying call unwinds (a cancelled call stops at a piece
//! boundary), the target's length is unchanged and the sources still own and drop their
//! items: nothing is dropped twice or lost.

use std::collections::LinkedList;

use super::super::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};

/// Lists of at least this many bytes, in more than one vector, are appended in parallel.
/// Below it a serial copy takes a few tens of microseconds at most, less than waking a
/// worker to share it.
pub(super) const PARALLEL_APPEND_BYTES: usize = 256 * 1024;

/// Appends every vector of `list` to `vec`, in order, reserving once (module docs).
pub(in crate::par) fn append_list<T: Send>(vec: &mut Vec<T>, mut list: LinkedList<Vec<T>>) {
    if vec.capacity() == 0 && list.len() == 1 {
        if let Some(only) = list.pop_front() {
            *vec = only;
        }
        return;
    }
    let total: usize = list.iter().map(Vec::len).sum();
    vec.reserve(total);
    if list.len() < 2 || total.saturating_mul(size_of::<T>()) < PARALLEL_APPEND_BYTES {
        for mut piece in list {
            vec.append(&mut piece);
        }
        return;
    }
    let mut pieces: Vec<Vec<T>> = list.into_iter().collect();
    let start = vec.len();
    let dst = vec.as_mut_ptr();
    let mut at = start;
    let copies: Vec<PieceCopy<T>> = pieces
        .iter()
        .map(|piece| {
            let copy = PieceCopy {
                src: piece.as_ptr(),
                dst: dst.wrapping_add(at),
                len: piece.len(),
            };
            at += piece.len();
            copy
        })
        .collect();
    copies.par_iter().with_min_len(1).for_each(|copy| {
        // SAFETY: `src` points at `len` initialised items of a vector in `pieces`, which
        // lives, unchanged, until this call returns; `dst` is `at` items into `vec`'s
        // buffer, whose capacity holds `start + total` items (reserved above), and the
        // copies' ranges `[at, at + len)` are disjoint, so each copy writes memory nobody
        // else touches. The target's length still excludes it (module invariant).
        unsafe { std::ptr::copy_nonoverlapping(copy.src, copy.dst, copy.len) };
    });
    for piece in &mut pieces {
        // SAFETY: every item of `piece` was copied into `vec` above; from here on `vec`
        // owns them, and the emptied source only frees its buffer.
        unsafe { piece.set_len(0) };
    }
    // SAFETY: the `total` items after `start` were written by the copies above, and their
    // sources gave them up (module invariant); the capacity was reserved.
    unsafe { vec.set_len(start + total) };
}

/// One vector's copy into the target: bitwise, of items that are `Send`.
struct PieceCopy<T> {
    src: *const T,
    dst: *mut T,
    len: usize,
}

// SAFETY: a `PieceCopy` moves `len` items of `T: Send` from one thread's vector to a range of the
// target that only this copy writes (`append_list`); the pointers are never used for
// anything else.
unsafe impl<T: Send> Send for PieceCopy<T> {}
// SAFETY: as for `Send`: the workers share the list of copies, and each copy is run by one
// of them only (the parallel iterator hands out each item once).
unsafe impl<T: Send> Sync for PieceCopy<T> {}
