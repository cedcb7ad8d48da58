//! The loops over owned data: [`MapVec`] (`par_map_vec`: each item moved into `f`, the
//! results in order) and [`ForEachMut`] (`par_for_each_mut`: each element changed in
//! place, the same `Vec` given back), as [`Kind`]s run by `run.rs`.
//!
//! Both take the `Vec` apart into its buffer (pointer, length, capacity) when the loop is
//! made, and index `k` of the loop's range `0..len` is element `k`.
//!
//! Invariants (exactly-once ownership):
//! - [`MapVec`]: item `k` is moved out of the input buffer at most once, by the helper
//!   that ran index `k`, just before `f` gets it (from then on `f` owns it, and drops it
//!   if it panics); result `k` is written at most once, right after `f` returns, into a
//!   new buffer or, when `U` has the layout of `T`, into slot `k` of the input's buffer
//!   (the output then reuses the input's allocation). Each
//!   helper's published runs record, per run, how far items were moved out (`moved`) and
//!   how far results were written (`written`, equal to `moved` or one less after a panic).
//!   If the output is never taken (a stop, a failure, or a future dropped after the end),
//!   `Drop` drops every result in the runs and every item outside them, each exactly once,
//!   then frees both buffers.
//! - [`ForEachMut`]: the elements never leave the buffer; `f` gets `&mut` to element `k`
//!   only from the helper that ran index `k`. The `Vec` is rebuilt from the same buffer,
//!   either as the output or, if the output is never taken, to drop it with every element.

use super::kinds::{slots, Slots};
use super::run::Kind;
use crate::runtime::time::tick::{self, Watch};
use crate::util::sync::{AtomicBool, Ordering};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Range;

/// A `Vec`'s buffer, taken apart.
struct Buffer<T> {
    ptr: *mut T,
    len: usize,
    capacity: usize,
}

impl<T> Buffer<T> {
    fn from_vec(vec: Vec<T>) -> Buffer<T> {
        let mut vec = ManuallyDrop::new(vec);
        Buffer {
            ptr: vec.as_mut_ptr(),
            len: vec.len(),
            capacity: vec.capacity(),
        }
    }

    fn with_capacity(len: usize) -> Buffer<T> {
        let mut vec = ManuallyDrop::new(Vec::with_capacity(len));
        Buffer {
            ptr: vec.as_mut_ptr(),
            len,
            capacity: vec.capacity(),
        }
    }
}

/// One published run of a [`MapVec`] helper: items `start..moved` were moved into `f`,
/// results `start..written` were written (`written <= moved`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Run {
    start: usize,
    moved: usize,
    written: usize,
}

/// `par_map_vec`: moves item `k` into `f` and writes the result into element `k` of a
/// vector allocated up front.
pub(crate) struct MapVec<T, U, F> {
    f: F,
    input: Buffer<T>,
    output: Buffer<U>,
    /// Per helper: the runs it published, in order.
    runs: Slots<Run>,
    /// Set when `take_output` turned the output buffer into the output vector (and freed
    /// the emptied input buffer).
    taken: AtomicBool,
    _owns: PhantomData<(T, U)>,
}

// SAFETY: the buffers are read (items) and written (results) through shared references,
// element `k` only by the one helper that was handed index `k` (each index is handed out at
// most once), and touched otherwise only by `take_output` or `Drop`, after the loop is done
// (every access happens before, see run.rs's invariants) or when no helper is left.
// `T: Send` and `U: Send` let items and results cross threads; the raw pointers are the
// only reason the auto traits are missing.
unsafe impl<T: Send, U: Send, F: Send> Send for MapVec<T, U, F> {}
// SAFETY: as above: shared access never touches one element from two threads at once.
unsafe impl<T: Send, U: Send, F: Sync> Sync for MapVec<T, U, F> {}

impl<T, U, F> MapVec<T, U, F> {
    /// Whether results are written over the items, in the input's allocation (as std's
    /// `into_iter().map().collect()` does): when a `U` fits exactly where a `T` was (same
    /// size and alignment, so the allocation's layout is the same for both types).
    const IN_PLACE: bool = std::mem::size_of::<T>() == std::mem::size_of::<U>()
        && std::mem::align_of::<T>() == std::mem::align_of::<U>()
        && std::mem::size_of::<T>() != 0;

    pub(crate) fn new(f: F, items: Vec<T>, helpers: usize) -> MapVec<T, U, F> {
        let input = Buffer::from_vec(items);
        let output = if Self::IN_PLACE {
            Buffer {
                ptr: input.ptr.cast::<U>(),
                len: input.len,
                capacity: input.capacity,
            }
        } else {
            Buffer::with_capacity(input.len)
        };
        MapVec {
            f,
            input,
            output,
            runs: slots(helpers),
            taken: AtomicBool::new(false),
            _owns: PhantomData,
        }
    }
}

impl<T, U, F> Kind for MapVec<T, U, F>
where
    T: Send + 'static,
    U: Send + 'static,
    F: Fn(T) -> U + Send + Sync + 'static,
{
    type Output = Vec<U>;
    type Local = Option<Run>;

    #[inline]
    fn run_part(&self, local: &mut Self::Local, part: Range<usize>, watch: Watch) -> usize {
        let run = local.get_or_insert(Run {
            start: part.start,
            moved: part.start,
            written: part.start,
        });
        // `run.written` follows every result written, also when `f` panics; then item
        // `run.written` was moved into `f` (see `unwound`), otherwise every item up to it.
        // Copied out of `self`, so that the element stores do not make the compiler reload
        // them (it cannot tell they do not overlap).
        let (f, input, output) = (&self.f, self.input.ptr, self.output.ptr);
        let end = tick::for_each_while(part, watch, &mut run.written, move |k| {
            // SAFETY: `k < len`, inside the input buffer; index `k` was handed to this
            // helper alone and item `k` was never moved out before (see the Send/Sync
            // impls). From here `f` owns it (and drops it if it panics).
            let item = unsafe { input.add(k).read() };
            let result = f(item);
            // SAFETY: `k < len <= capacity` of the output buffer; element `k` is written
            // only here, by the one helper that ran index `k`.
            unsafe { output.add(k).write(result) };
        });
        run.moved = end;
        end
    }

    fn unwound(&self, local: &mut Self::Local) {
        // `f` panicked on item `written`, which it owned: that item is gone too.
        if let Some(run) = local {
            run.moved = run.written + 1;
        }
    }

    fn flush(&self, helper: usize, local: &mut Self::Local) {
        if let Some(run) = local.take() {
            if run.moved > run.start {
                self.runs[helper].lock().push(run);
            }
        }
    }

    fn take_output(&self) -> Vec<U> {
        // Relaxed: `take_output` runs once, on the awaiting thread, after `done`; the flag
        // is read again only by `Drop`, which has `&mut self`.
        self.taken.store(true, Ordering::Relaxed);
        if !Self::IN_PLACE {
            // SAFETY: the input buffer comes from a `Vec<T>` we never freed, and every item
            // was moved out (the loop finished without a stop): free it with length 0.
            drop(unsafe { Vec::from_raw_parts(self.input.ptr, 0, self.input.capacity) });
        }
        // SAFETY: the output buffer comes from a `Vec<U>` we never freed (or, in place,
        // from the input's `Vec<T>`, whose layout is that of `capacity` `U`s: same size
        // and alignment), and all `len` results were written before `done`. `taken` hands
        // the buffer(s) over.
        unsafe { Vec::from_raw_parts(self.output.ptr, self.output.len, self.output.capacity) }
    }
}

impl<T, U, F> Drop for MapVec<T, U, F> {
    fn drop(&mut self) {
        // Relaxed: `&mut self` orders it (a load rather than `get_mut`, which loom lacks).
        if self.taken.load(Ordering::Relaxed) {
            return;
        }
        let mut runs: Vec<Run> = Vec::new();
        for slot in self.runs.iter_mut() {
            runs.append(slot.get_mut());
        }
        runs.sort_unstable_by_key(|run| run.start);
        // Items in the gaps between runs were never moved out; results inside runs were
        // written. The runs are disjoint (each index ran once), so each element is dropped
        // once (in place, slot `k` holds item `k`, nothing, or result `k`, as the runs
        // say). A panic in a `Drop` of `T` or `U` is caught so the rest are still dropped
        // and the buffers freed; the first one is resumed at the end.
        let mut panic = None;
        let mut drop_range = |ptr: *mut (), range: Range<usize>, is_input: bool| {
            if range.is_empty() {
                return;
            }
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if is_input {
                    // SAFETY: items `range` are inside the input buffer and still owned by
                    // it (never moved out, never dropped: see above).
                    unsafe {
                        std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                            ptr.cast::<T>().add(range.start),
                            range.len(),
                        ));
                    }
                } else {
                    // SAFETY: results `range` were written and not dropped or taken.
                    unsafe {
                        std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                            ptr.cast::<U>().add(range.start),
                            range.len(),
                        ));
                    }
                }
            }));
            if let Err(payload) = result {
                panic.get_or_insert(payload);
            }
        };
        let (input, output) = (self.input.ptr.cast::<()>(), self.output.ptr.cast::<()>());
        let mut next = 0;
        for run in &runs {
            drop_range(input, next..run.start, true);
            drop_range(output, run.start..run.written, false);
            next = run.moved;
        }
        drop_range(input, next..self.input.len, true);
        // SAFETY: both buffers (one, in place) come from `Vec`s we own and hold no live
        // element any more.
        unsafe {
            drop(Vec::from_raw_parts(self.input.ptr, 0, self.input.capacity));
            if !Self::IN_PLACE {
                drop(Vec::from_raw_parts(
                    self.output.ptr,
                    0,
                    self.output.capacity,
                ));
            }
        }
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
    }
}

/// `par_for_each_mut`: calls `f(k, &mut items[k])` for each element, in place.
pub(crate) struct ForEachMut<T, F> {
    f: F,
    items: Buffer<T>,
    /// Set when `take_output` rebuilt the `Vec` for the caller.
    taken: AtomicBool,
    _owns: PhantomData<T>,
}

// SAFETY: element `k` is borrowed mutably only by the helper that was handed index `k`
// (each index is handed out at most once), and the buffer is touched otherwise only by
// `take_output` or `Drop`, after the loop is done (see run.rs's invariants) or when no
// helper is left. `T: Send` lets `&mut T` cross threads; the raw pointer is the only reason
// the auto traits are missing.
unsafe impl<T: Send, F: Send> Send for ForEachMut<T, F> {}
// SAFETY: as above: shared access never touches one element from two threads at once.
unsafe impl<T: Send, F: Sync> Sync for ForEachMut<T, F> {}

impl<T, F> ForEachMut<T, F> {
    pub(crate) fn new(f: F, items: Vec<T>) -> ForEachMut<T, F> {
        ForEachMut {
            f,
            items: Buffer::from_vec(items),
            taken: AtomicBool::new(false),
            _owns: PhantomData,
        }
    }
}

impl<T, F> Kind for ForEachMut<T, F>
where
    T: Send + 'static,
    F: Fn(usize, &mut T) + Send + Sync + 'static,
{
    type Output = Vec<T>;
    type Local = ();

    #[inline]
    fn run_part(&self, _local: &mut (), part: Range<usize>, watch: Watch) -> usize {
        // Copied out of `self`, so that the element stores do not make the compiler reload
        // them.
        let (f, items) = (&self.f, self.items.ptr);
        tick::fold_while(part, watch, (), move |(), k| {
            // SAFETY: `k < len`, an initialised element; index `k` was handed to this
            // helper alone, so this is the only reference to it (see the Send/Sync impls).
            f(k, unsafe { &mut *items.add(k) });
        })
        .1
    }

    fn flush(&self, _helper: usize, _local: &mut ()) {}

    fn take_output(&self) -> Vec<T> {
        // Relaxed: as in `MapVec::take_output`.
        self.taken.store(true, Ordering::Relaxed);
        // SAFETY: the parts of the caller's `Vec`, never freed; every element is still
        // initialised (`f` only had `&mut`), and the loop is done. `taken` hands it over.
        unsafe { Vec::from_raw_parts(self.items.ptr, self.items.len, self.items.capacity) }
    }
}

impl<T, F> Drop for ForEachMut<T, F> {
    fn drop(&mut self) {
        // Relaxed: `&mut self` orders it.
        if !self.taken.load(Ordering::Relaxed) {
            // SAFETY: as in `take_output`; no helper is left (`&mut self`).
            drop(unsafe {
                Vec::from_raw_parts(self.items.ptr, self.items.len, self.items.capacity)
            });
        }
    }
}
