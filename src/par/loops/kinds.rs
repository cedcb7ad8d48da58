//! The loops over an index range: for-each ([`ForEach`], `par_range`), map ([`Map`],
//! `par_map`) and reduce ([`Reduce`], `par_reduce`), as [`Kind`]s run by `run.rs`.
//!
//! Each kind's `run_part` is the hot loop ([`tick::fold_while`]): one call of the user's
//! closure per index, and before each item (or each block of cheap items) one relaxed load
//! of the tick epoch, nothing else. What a
//! helper did is kept in its `Local` run and published into the helper's slot (a mutex no
//! other helper touches while the loop runs) only when the run ends.
//!
//! Invariants:
//! - [`Map`]: element `k` of the buffer is written at most once, by the helper that ran
//!   index `start + k`; the written elements are exactly the published runs of the
//!   helpers' slots, which `Drop` drops if the output was never taken;
//! - [`Reduce`]: each published partial is the fold of one run of consecutive indices,
//!   started from `identity()`, and carries the run's first index; the output combines
//!   them sorted by that index, so `reduce` sees them in index order.

use std::ops::Range;

use crossbeam_utils::CachePadded;

use super::run::Kind;
use crate::runtime::time::tick::{self, Watch};
use crate::util::sync::{AtomicBool, Mutex, Ordering};

/// `par_range`: calls the body on each index.
pub(crate) struct ForEach<F> {
    pub(crate) body: F,
}

impl<F: Fn(usize) + Send + Sync + 'static> Kind for ForEach<F> {
    type Output = ();
    type Local = ();

    #[inline]
    fn run_part(&self, _local: &mut (), part: Range<usize>, watch: Watch) -> usize {
        tick::fold_while(part, watch, (), |(), i| (self.body)(i)).1
    }

    fn flush(&self, _helper: usize, _local: &mut ()) {}

    fn take_output(&self) {}
}

/// Per helper, what it published, in order: a mutex on its own cache line that only that
/// helper locks while the loop runs (once per run), and `take_output` or `Drop` after.
pub(crate) type Slots<X> = Box<[CachePadded<Mutex<Vec<X>>>]>;

/// Empty slots for `helpers` helpers.
pub(crate) fn slots<X>(helpers: usize) -> Slots<X> {
    (0..helpers)
        .map(|_| CachePadded::new(Mutex::new(Vec::new())))
        .collect()
}

/// Appends `run` to `list`, merged with the last run if adjacent.
pub(crate) fn push_run(list: &Mutex<Vec<Range<usize>>>, run: Range<usize>) {
    if run.is_empty() {
        return;
    }
    let mut list = list.lock();
    match list.last_mut() {
        Some(last) if last.end == run.start => last.end = run.end,
        _ => list.push(run),
    }
}

/// `par_map`: writes `f(i)` into element `i - start` of a vector allocated up front.
pub(crate) struct Map<T, F> {
    f: F,
    start: usize,
    len: usize,
    /// The buffer of a `Vec<T>` with capacity `len` (and length 0 until `take_output`).
    /// Element `k` is written once, by the helper that ran index `start + k`.
    ptr: *mut T,
    capacity: usize,
    /// Per helper: the index ranges whose elements it wrote. Needed only to drop the
    /// written values of a loop that was stopped.
    written: Slots<Range<usize>>,
    /// Set when `take_output` turned the buffer into the output vector.
    taken: AtomicBool,
}

// SAFETY: the buffer is written through shared references, each element by exactly one
// thread (every index is handed out at most once, so `run_part` writes element `k` at most
// once), and read only by `take_output` or `Drop`, after the loop is done (every write
// happens before, see run.rs's invariants) or when no helper is left. `T: Send` lets the
// values cross from the writing threads to the reader; the raw pointer is the only reason
// the auto traits are missing.
unsafe impl<T: Send, F: Send> Send for Map<T, F> {}
// SAFETY: as above: shared access never touches one element from two threads at once.
unsafe impl<T: Send, F: Sync> Sync for Map<T, F> {}

impl<T, F> Map<T, F> {
    pub(crate) fn new(f: F, range: Range<usize>, helpers: usize) -> Map<T, F> {
        let len = range.end.saturating_sub(range.start);
        let mut buffer = std::mem::ManuallyDrop::new(Vec::<T>::with_capacity(len));
        Map {
            f,
            start: range.start,
            len,
            ptr: buffer.as_mut_ptr(),
            capacity: buffer.capacity(),
            written: slots(helpers),
            taken: AtomicBool::new(false),
        }
    }
}

impl<T: Send + 'static, F: Fn(usize) -> T + Send + Sync + 'static> Kind for Map<T, F> {
    type Output = Vec<T>;
    /// The indices written since the last flush.
    type Local = Option<Range<usize>>;

    #[inline]
    fn run_part(&self, local: &mut Self::Local, part: Range<usize>, watch: Watch) -> usize {
        let run = local.get_or_insert(part.start..part.start);
        // Copied out of `self`: the compiler cannot tell that the element stores do not
        // overwrite the fields, and would reload them after each one.
        let (f, ptr, start) = (&self.f, self.ptr, self.start);
        // `run.end` follows every element written, also when `f` panics.
        tick::for_each_while(part, watch, &mut run.end, move |i| {
            let value = f(i);
            // SAFETY: `i - start < len <= capacity`, so the element is inside the buffer;
            // index `i` was handed to this helper alone, so no other thread touches it, and
            // it was never written before (see the Send/Sync impls).
            unsafe { ptr.add(i - start).write(value) };
        })
    }

    fn flush(&self, helper: usize, local: &mut Self::Local) {
        if let Some(run) = local.take() {
            push_run(&self.written[helper], run);
        }
    }

    fn take_output(&self) -> Vec<T> {
        // Relaxed: `take_output` runs once, on the awaiting thread, after `done`; the flag
        // is read again only by `Drop`, which has `&mut self`.
        self.taken.store(true, Ordering::Relaxed);
        // SAFETY: `ptr`/`capacity` come from a `Vec<T>` we never freed; the loop finished
        // without a stop, so all `len` elements were written, before `done` (run.rs's
        // invariants). `taken` hands the buffer over: `Drop` will not touch it again.
        unsafe { Vec::from_raw_parts(self.ptr, self.len, self.capacity) }
    }
}

impl<T, F> Drop for Map<T, F> {
    fn drop(&mut self) {
        // Relaxed: `&mut self` already orders it (a load rather than `get_mut`, which
        // loom's atomics lack).
        if self.taken.load(Ordering::Relaxed) {
            return;
        }
        // Not taken: the loop was stopped (or its future dropped after it finished). Drop
        // exactly the values that were written, then free the buffer.
        for written in self.written.iter_mut() {
            let ranges = std::mem::take(written.get_mut());
            for range in ranges {
                let first = range.start - self.start;
                // SAFETY: `written` lists each written element once (the runs of one
                // helper are disjoint, helpers never share an index, and every listed
                // element was written); `&mut self` means no helper is running.
                unsafe {
                    std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                        self.ptr.add(first),
                        range.len(),
                    ));
                }
            }
        }
        // SAFETY: the buffer of a `Vec<T>` we own, with no live element left in it.
        drop(unsafe { Vec::from_raw_parts(self.ptr, 0, self.capacity) });
    }
}

/// `par_reduce`: folds each run of consecutive indices from `identity()` and combines the
/// runs' partials with `reduce` in index order.
pub(crate) struct Reduce<T, I, F, R> {
    identity: I,
    fold: F,
    reduce: R,
    /// Per helper: the partials of the runs it published, each with the run's first index.
    partials: Slots<(usize, T)>,
}

impl<T, I, F, R> Reduce<T, I, F, R> {
    pub(crate) fn new(identity: I, fold: F, reduce: R, helpers: usize) -> Self {
        Reduce {
            identity,
            fold,
            reduce,
            partials: slots(helpers),
        }
    }
}

impl<T, I, F, R> Kind for Reduce<T, I, F, R>
where
    T: Send + 'static,
    I: Fn() -> T + Send + Sync + 'static,
    F: Fn(T, usize) -> T + Send + Sync + 'static,
    R: Fn(T, T) -> T + Send + Sync + 'static,
{
    type Output = T;
    /// The run's first index and its fold so far.
    type Local = Option<(usize, T)>;

    #[inline]
    fn run_part(&self, local: &mut Self::Local, part: Range<usize>, watch: Watch) -> usize {
        if part.is_empty() || tick::moved(watch.epoch) {
            // Nothing will run: start no partial.
            return part.start;
        }
        // Taken out for the fold: if `fold` panics, the partial is lost with the loop.
        let (first, acc) = local
            .take()
            .unwrap_or_else(|| (part.start, (self.identity)()));
        let (acc, end) = tick::fold_while(part, watch, acc, &self.fold);
        *local = Some((first, acc));
        end
    }

    fn flush(&self, helper: usize, local: &mut Self::Local) {
        if let Some(partial) = local.take() {
            self.partials[helper].lock().push(partial);
        }
    }

    fn take_output(&self) -> T {
        let mut all: Vec<(usize, T)> = Vec::new();
        for slot in self.partials.iter() {
            all.append(&mut slot.lock());
        }
        // Runs are disjoint, so sorting by first index puts the partials in index order. (A
        // run can be empty if a tick came between the check above and the first item; it
        // then shares its first index with the next run of the same helper, published
        // later: the stable sort keeps the two in that order.)
        all.sort_by_key(|&(first, _)| first);
        all.into_iter()
            .map(|(_, partial)| partial)
            .reduce(&self.reduce)
            .unwrap_or_else(&self.identity)
    }
}
