//! The parallel stable sort (`par_sort*`): a merge sort whose two halves are sorted in
//! parallel through [`join`], then merged in parallel.
//!
//! The slice is halved, the halves sorted as the two halves of a `join` while longer than
//! [`SORT_LEN`] elements (else one after the other), down to pieces of at most 16 elements,
//! which are sorted by insertion; two sorted halves are merged into a buffer as long as the
//! slice, or back. Halves alternate between the slice and the buffer (a piece whose result
//! belongs in the buffer has its halves sorted into the slice, and the other way round), so
//! each level moves every element once.
//!
//! A merge splits too: the middle element of the longer input is looked up (binary search)
//! in the shorter one, which cuts both inputs, and the output, into two independent merges
//! run through `join`. Merges of at most [`MERGE_LEN`] elements run on one thread, from 256
//! elements on as four interleaved merges (cut the same way), whose waits on memory
//! overlap. A slice that is already sorted, or strictly descending (then reversed), is
//! recognised in one pass; so are, at each parallel merge, two halves already in order or
//! in reverse order.
//!
//! A comparison that is no total order leaves the elements in some order, and never makes
//! the sort panic (std's sorts may).
//!
//! Stability: a merge takes from the right input only an element strictly less than the left
//! one, and the split of a merge keeps every element of the right input equal to the left
//! one's middle after it.
//!
//! **Invariant:** every element of the slice is, at every instant, in exactly one of the slice
//! and the buffer (the buffer's `Vec` has length 0, so it never drops one). Each call has one
//! place where its elements end, on return and on unwind alike: when a comparison panics, the
//! call whose comparison it was moves what it holds there (a merge: the rest of both inputs,
//! in any order), and each caller, knowing which of its two halves started, moves them to its
//! own; the outermost call's place is the slice. So the slice ends a permutation of its input,
//! with nothing dropped twice or lost, and the copy of an element that stays is the one that
//! was compared last (comparisons that update an element through interior mutability are
//! observed in the result).

use std::cmp::Ordering;
use std::ptr;
use std::slice;

use super::insertion::insertion_sort;
use crate::par::join;
use crate::util::sync::{AtomicBool, Ordering as MemoryOrdering};

/// Pieces of at most this many elements are sorted sequentially.
pub(crate) const SORT_LEN: usize = 4096;

/// Pieces of at most this many elements are sorted by insertion.
const INSERTION_LEN: usize = 16;

/// Merges of at most this many elements run sequentially.
pub(crate) const MERGE_LEN: usize = 8192;

/// Sorts `v` by `compare`, in parallel, keeping equal elements in their order.
pub(crate) fn par_mergesort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    // Elements of a zero-sized type are all alike: any order is sorted.
    if size_of::<T>() == 0 {
        return;
    }
    if v.len() <= INSERTION_LEN {
        insertion_sort(v, &|a: &T, b: &T| compare(a, b) == Ordering::Less);
        return;
    }
    if presorted(v, compare) {
        return;
    }
    let mut buf: Vec<T> = Vec::with_capacity(v.len());
    let home = Stretch {
        ptr: v.as_mut_ptr(),
        len: v.len(),
    };
    let spare = Stretch {
        ptr: buf.as_mut_ptr(),
        len: v.len(),
    };
    // SAFETY: `home` is `v`, borrowed mutably for the call, and `v` is not used while the
    // sort runs; `spare` is the buffer's capacity, as long as `v`, disjoint from it, and
    // the buffer (length 0) is neither used nor dropped before the sort ends. The sort's
    // place is `home`, on return and on unwind (module docs).
    unsafe { sort_into(home, spare, false, compare) };
    drop(buf);
}

/// Whether `v` (at least 2 long) is sorted, after reversing it if it was strictly
/// descending (strictly, so that reversing keeps equal elements in order).
fn presorted<T, F>(v: &mut [T], compare: &F) -> bool
where
    F: Fn(&T, &T) -> Ordering,
{
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    if is_less(&v[1], &v[0]) {
        if v.windows(2).skip(1).all(|w| is_less(&w[1], &w[0])) {
            v.reverse();
            return true;
        }
        false
    } else {
        v.windows(2).skip(1).all(|w| !is_less(&w[1], &w[0]))
    }
}

/// `len` slots from `ptr`: a stretch of the slice or of the buffer, which one call holds at
/// a time.
pub(super) struct Stretch<T> {
    pub(super) ptr: *mut T,
    pub(super) len: usize,
}

impl<T> Clone for Stretch<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Stretch<T> {}

// SAFETY: a `Stretch` stands for a `&mut [T]` (or a `&mut [MaybeUninit<T>]`): the sort hands
// each run to one call at a time and splits it only into disjoint runs, so sending one to
// another thread sends the ownership of its elements, which `T: Send` allows.
unsafe impl<T: Send> Send for Stretch<T> {}

impl<T> Stretch<T> {
    /// The first `mid` slots and the rest.
    pub(super) fn split_at(self, mid: usize) -> (Stretch<T>, Stretch<T>) {
        debug_assert!(mid <= self.len);
        let rest = Stretch {
            // `wrapping_add` needs no safety argument; `mid <= len` keeps it inside the run.
            ptr: self.ptr.wrapping_add(mid),
            len: self.len - mid,
        };
        (
            Stretch {
                ptr: self.ptr,
                len: mid,
            },
            rest,
        )
    }

    /// Moves the elements of `self` to the start of `to`, unless `self` is already there.
    ///
    /// # Safety
    /// `self` holds `len` elements and `to` at least `len` slots, both held by the caller;
    /// the two are the same slots or disjoint. Afterwards `self`'s slots count as empty.
    unsafe fn move_to(self, to: Stretch<T>) {
        debug_assert!(self.len <= to.len);
        if self.ptr != to.ptr {
            // SAFETY: the caller's contract: both runs are valid for `len` elements and
            // do not overlap.
            unsafe { ptr::copy_nonoverlapping(self.ptr, to.ptr, self.len) };
        }
    }
}

/// Which of the two halves of a `join` have started (a half that never started still holds
/// its input where it was given).
pub(super) struct Started([AtomicBool; 2]);

impl Started {
    pub(super) fn new() -> Started {
        Started([AtomicBool::new(false), AtomicBool::new(false)])
    }

    pub(super) fn set(&self, half: usize) {
        // Relaxed: read only after the `join` returned or unwound, which happens after both
        // halves ended (`join`'s contract); that synchronisation orders this store first.
        self.0[half].store(true, MemoryOrdering::Relaxed);
    }

    fn get(&self, half: usize) -> bool {
        // Relaxed: pairs with `set` through the end of the `join` (see there).
        self.0[half].load(MemoryOrdering::Relaxed)
    }
}

/// Moves `from` to `to` when dropped: on return and on unwind alike.
struct MoveOnDrop<T> {
    from: Stretch<T>,
    to: Stretch<T>,
}

impl<T> Drop for MoveOnDrop<T> {
    fn drop(&mut self) {
        // SAFETY: made only where `from` holds its elements and `to` is the caller's place
        // for them (same slots or disjoint), both held by the caller until this drop.
        unsafe { self.from.move_to(self.to) };
    }
}

/// Sorts the elements of `home` (a stretch of the slice) with `spare` (the same stretch of
/// the buffer) as scratch; the call's place is `spare` if `into_spare`, else `home`.
///
/// # Safety
/// `home` holds `len` elements and `spare` `len` empty slots, disjoint, both held by this
/// call. On return and on unwind the elements are in the call's place (module docs).
unsafe fn sort_into<T, F>(home: Stretch<T>, spare: Stretch<T>, into_spare: bool, compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let place = if into_spare { spare } else { home };
    if home.len <= INSERTION_LEN {
        let _to_place = MoveOnDrop {
            from: home,
            to: place,
        };
        let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
        // SAFETY: `home` holds `len` initialised elements, held by this call alone; the
        // insertion sort leaves them a permutation even if `compare` panics.
        insertion_sort(
            unsafe { slice::from_raw_parts_mut(home.ptr, home.len) },
            &is_less,
        );
        return;
    }
    // The halves' place: the other of the slice and the buffer.
    let halves_place = if into_spare { home } else { spare };
    let mid = home.len / 2;
    let (home_l, home_r) = home.split_at(mid);
    let (spare_l, spare_r) = spare.split_at(mid);
    let started = Started::new();
    let on_unwind = HalvesToPlace {
        halves: [
            (home_l, halves_place.split_at(mid).0),
            (home_r, halves_place.split_at(mid).1),
        ],
        place: [place.split_at(mid).0, place.split_at(mid).1],
        started: &started,
    };
    let started = &started;
    let left = move || {
        started.set(0);
        // SAFETY: the left halves of `home` and `spare`, held by this half alone.
        unsafe { sort_into(home_l, spare_l, !into_spare, compare) }
    };
    let right = move || {
        started.set(1);
        // SAFETY: as above, the right halves.
        unsafe { sort_into(home_r, spare_r, !into_spare, compare) }
    };
    if home.len > SORT_LEN {
        join(left, right);
    } else {
        left();
        right();
    }
    on_unwind.disarm();
    let (halves_l, halves_r) = halves_place.split_at(mid);
    // SAFETY: both halves are sorted in `halves_place`, and `place` is disjoint from it; the
    // merge leaves every element in `place`, on return and on unwind.
    unsafe { par_merge(halves_l, halves_r, place, compare) };
}

/// On unwind out of a `join` of two sorts: moves each half's elements to the caller's place,
/// from where they are (the half's place if it started, else where its input was).
pub(super) struct HalvesToPlace<'a, T> {
    /// Each half's input and its place.
    pub(super) halves: [(Stretch<T>, Stretch<T>); 2],
    /// Where each half's elements go.
    pub(super) place: [Stretch<T>; 2],
    pub(super) started: &'a Started,
}

impl<T> HalvesToPlace<'_, T> {
    fn disarm(self) {
        std::mem::forget(self);
    }
}

impl<T> Drop for HalvesToPlace<'_, T> {
    fn drop(&mut self) {
        for half in 0..2 {
            let (input, its_place) = self.halves[half];
            let at = if self.started.get(half) {
                its_place
            } else {
                input
            };
            // SAFETY: the `join` has ended, so this call holds every run again; `at` holds
            // the half's elements (the sorts' contract), and it and `place` are the same
            // slots or disjoint.
            unsafe { at.move_to(self.place[half]) };
        }
    }
}

/// Merges the sorted runs `left` and `right` into `dest` (`left.len + right.len` slots,
/// disjoint from both), in parallel, stably (`left`'s elements first among equals).
///
/// # Safety
/// The caller holds all three runs; on return and on unwind every element of `left` and
/// `right` is in `dest`, and their slots count as empty.
unsafe fn par_merge<T, F>(left: Stretch<T>, right: Stretch<T>, dest: Stretch<T>, compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    if left.len + right.len <= MERGE_LEN || left.len == 0 || right.len == 0 {
        // SAFETY: the caller's contract, passed on.
        unsafe { merge(left, right, dest, &is_less) };
        return;
    }
    let (dest_l, dest_r) = dest.split_at(left.len);
    let (dest_rl, dest_rr) = dest.split_at(right.len);
    let in_order = MoveOnDrop {
        from: left,
        to: dest_l,
    };
    let in_order_too = MoveOnDrop {
        from: right,
        to: dest_r,
    };
    // SAFETY: `left` holds its sorted elements (`len >= 1`), held by this call alone.
    let (l_first, l_last) = unsafe { (&*left.ptr, &*left.ptr.add(left.len - 1)) };
    // SAFETY: as above, for `right`.
    let (r_first, r_last) = unsafe { (&*right.ptr, &*right.ptr.add(right.len - 1)) };
    if !is_less(r_first, l_last) {
        // Already in order: the guards move both inputs.
        return;
    }
    if is_less(r_last, l_first) {
        // Every element of `right` goes first.
        std::mem::forget((in_order, in_order_too));
        // SAFETY: `dest` is disjoint from both inputs and `left.len + right.len` long.
        unsafe {
            right.move_to(dest_rl);
            left.move_to(dest_rr);
        }
        return;
    }
    let (cut_l, cut_r) = split_for_merge(left, right, &is_less);
    // From here a panic leaves the inputs to the halves' guard.
    std::mem::forget((in_order, in_order_too));
    let (left_a, left_b) = left.split_at(cut_l);
    let (right_a, right_b) = right.split_at(cut_r);
    let (dest_a, dest_b) = dest.split_at(cut_l + cut_r);
    let started = Started::new();
    let on_unwind = MergesToDest {
        merges: [(left_a, right_a, dest_a), (left_b, right_b, dest_b)],
        started: &started,
    };
    let started = &started;
    join(
        move || {
            started.set(0);
            // SAFETY: the first parts of both inputs and of `dest`, held by this half alone.
            unsafe { par_merge(left_a, right_a, dest_a, compare) }
        },
        move || {
            started.set(1);
            // SAFETY: as above, the second parts.
            unsafe { par_merge(left_b, right_b, dest_b, compare) }
        },
    );
    on_unwind.disarm();
}

/// Where to cut the sorted runs `left` and `right` (both non-empty) into two merges: the
/// middle element of the longer run, and in the other the first element that goes after it
/// (the right run's elements equal to a left one go after it).
fn split_for_merge<T>(
    left: Stretch<T>,
    right: Stretch<T>,
    is_less: &impl Fn(&T, &T) -> bool,
) -> (usize, usize) {
    // SAFETY: both runs hold initialised elements that the caller holds alone.
    let (l, r) = unsafe {
        (
            slice::from_raw_parts(left.ptr, left.len),
            slice::from_raw_parts(right.ptr, right.len),
        )
    };
    if l.len() >= r.len() {
        let cut_l = l.len() / 2;
        (cut_l, r.partition_point(|x| is_less(x, &l[cut_l])))
    } else {
        let cut_r = r.len() / 2;
        (l.partition_point(|x| !is_less(&r[cut_r], x)), cut_r)
    }
}

/// On unwind out of a `join` of two merges: moves the inputs of a merge that never started
/// into its part of `dest` (a merge that started has moved its own).
pub(super) struct MergesToDest<'a, T> {
    /// Each merge's two inputs and its output.
    pub(super) merges: [(Stretch<T>, Stretch<T>, Stretch<T>); 2],
    pub(super) started: &'a Started,
}

impl<T> MergesToDest<'_, T> {
    fn disarm(self) {
        std::mem::forget(self);
    }
}

impl<T> Drop for MergesToDest<'_, T> {
    fn drop(&mut self) {
        for half in 0..2 {
            if !self.started.get(half) {
                let (left, right, dest) = self.merges[half];
                let (dest_l, dest_r) = dest.split_at(left.len);
                // SAFETY: the `join` has ended, so this call holds every run again; a
                // merge that never started still has its inputs, and its part of `dest`
                // is disjoint from them and as long as both.
                unsafe {
                    left.move_to(dest_l);
                    right.move_to(dest_r);
                }
            }
        }
    }
}

/// Merges `left` and `right` into `dest` sequentially. From [`INTERLEAVE_LEN`] elements
/// on, the merge is cut in four (as [`par_merge`] cuts it in two) and the four merges
/// advance in turns, one element each: a merge step must compare before it knows which
/// element to load next, so a merge alone waits on every load (a string's bytes, say), and
/// independent merges overlap their waits.
///
/// # Safety
/// As [`par_merge`].
unsafe fn merge<T>(
    left: Stretch<T>,
    right: Stretch<T>,
    dest: Stretch<T>,
    is_less: &impl Fn(&T, &T) -> bool,
) {
    let whole = Merging::new(left, right, dest);
    if left.len + right.len < INTERLEAVE_LEN {
        // SAFETY: the caller's contract, passed on.
        unsafe { whole.run(is_less) };
        return;
    }
    // A panic in a cut drops the merges not yet cut too: each moves its inputs.
    let (a, b) = whole.cut(is_less);
    let (a1, a2) = a.cut(is_less);
    let (b1, b2) = b.cut(is_less);
    let mut merges = [a1, a2, b1, b2];
    // SAFETY: each `step` runs only while both inputs of its merge are non-empty; `run`
    // goes on with each merge's cursors.
    unsafe {
        while merges.iter().all(Merging::both_left) {
            for m in &mut merges {
                m.step(is_less);
            }
        }
        for m in merges {
            m.run(is_less);
        }
    }
}

/// Merges of at least this many elements run as four interleaved merges.
const INTERLEAVE_LEN: usize = 256;

/// The cursors of a sequential merge; dropped (on return or unwind), it moves what is left
/// of both inputs to the rest of the output.
struct Merging<T> {
    left: *mut T,
    left_end: *mut T,
    right: *mut T,
    right_end: *mut T,
    out: *mut T,
}

impl<T> Merging<T> {
    /// A merge of `left` and `right` into `dest` (disjoint from both, as long as both).
    fn new(left: Stretch<T>, right: Stretch<T>, dest: Stretch<T>) -> Merging<T> {
        Merging {
            left: left.ptr,
            left_end: left.ptr.wrapping_add(left.len),
            right: right.ptr,
            right_end: right.ptr.wrapping_add(right.len),
            out: dest.ptr,
        }
    }

    /// Cuts a merge that has not started in two, as [`par_merge`] does (where one input is
    /// empty, the second merge is empty). If a comparison panics, `self`'s drop moves both
    /// inputs.
    fn cut(self, is_less: &impl Fn(&T, &T) -> bool) -> (Merging<T>, Merging<T>) {
        // SAFETY: both pointer pairs delimit one run each (`Merging::new`), not yet used.
        let (left, right) = unsafe {
            (
                Stretch {
                    ptr: self.left,
                    len: self.left_end.offset_from(self.left) as usize,
                },
                Stretch {
                    ptr: self.right,
                    len: self.right_end.offset_from(self.right) as usize,
                },
            )
        };
        let dest = Stretch {
            ptr: self.out,
            len: left.len + right.len,
        };
        let (cut_l, cut_r) = if left.len == 0 || right.len == 0 {
            (left.len, right.len)
        } else {
            split_for_merge(left, right, is_less)
        };
        std::mem::forget(self);
        let (left_a, left_b) = left.split_at(cut_l);
        let (right_a, right_b) = right.split_at(cut_r);
        let (dest_a, dest_b) = dest.split_at(cut_l + cut_r);
        (
            Merging::new(left_a, right_a, dest_a),
            Merging::new(left_b, right_b, dest_b),
        )
    }

    fn both_left(&self) -> bool {
        self.left < self.left_end && self.right < self.right_end
    }

    /// Moves the lesser head (the left one among equals) to the output.
    ///
    /// # Safety
    /// [`both_left`](Merging::both_left).
    #[inline(always)]
    unsafe fn step(&mut self, is_less: &impl Fn(&T, &T) -> bool) {
        // SAFETY: both cursors are inside their runs, which hold initialised elements;
        // `out` is the next empty slot of the output (it has room for every element not
        // yet moved). The element moves only after the comparison, so a panic leaves the
        // cursors consistent for `Merging`'s drop.
        unsafe {
            let take_right = is_less(&*self.right, &*self.left);
            let from = if take_right { self.right } else { self.left };
            ptr::copy_nonoverlapping(from, self.out, 1);
            self.out = self.out.add(1);
            self.left = self.left.add(usize::from(!take_right));
            self.right = self.right.add(usize::from(take_right));
        }
    }

    /// Runs the merge to its end (the drop moves the rest of the input that is left).
    ///
    /// # Safety
    /// The inputs and the output are those of [`merge`]'s contract, or parts of them.
    unsafe fn run(mut self, is_less: &impl Fn(&T, &T) -> bool) {
        while self.both_left() {
            // SAFETY: both inputs are non-empty.
            unsafe { self.step(is_less) };
        }
    }
}

impl<T> Drop for Merging<T> {
    fn drop(&mut self) {
        // SAFETY: `[left, left_end)` and `[right, right_end)` hold the elements not yet
        // moved, and `out` has room for all of them (one slot was used per element moved);
        // the output is disjoint from both inputs.
        unsafe {
            let left = self.left_end.offset_from(self.left) as usize;
            let right = self.right_end.offset_from(self.right) as usize;
            ptr::copy_nonoverlapping(self.left, self.out, left);
            ptr::copy_nonoverlapping(self.right, self.out.add(left), right);
        }
    }
}
