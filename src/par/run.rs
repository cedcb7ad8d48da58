//! One running data-parallel loop: its shared state, the helper tasks that process it,
//! and the three kinds of loop body (for-each, map, reduce).
//!
//! A loop is an `Arc<Loop<K>>`: a [`Partition`] of the index range, the kind `K` (the
//! user's closures and the place results go), and the completion state the awaiting future
//! reads. One [`Helper`] task per slice is pushed to the workers (helper `i` onto worker
//! `i`'s inbox); a helper takes batches from its own slice, steals when it is empty, and
//! leaves when every slice looks empty. The helper whose `complete` brings the remaining
//! count to zero marks the loop done and wakes the awaiting task. Helpers that start late
//! find nothing and leave; the loop completes if only one helper ever runs.
//!
//! Stops: a panic in a user closure, the awaiting future being dropped, or a helper being
//! dropped unfinished (the executor shut down) stop the partition: no new batch is handed
//! out, each helper skips the rest of its batch at its next probe, the bodies already
//! running return, and the last one to return marks the loop done. The awaiting future then resumes the first panic,
//! or panics with a message if the executor shut down under the loop.
//!
//! Invariants:
//! - a helper holds at most one batch (`held`), possibly across a yield; it completes the
//!   batch once every index of it ran or was skipped after a stop, and if the helper is
//!   dropped unfinished its `Drop` completes the batch, so the count still reaches zero;
//! - a helper probes (reads the clock and the stop flag) every `probe_interval` indices,
//!   an interval it adapts so that probes come about every [`PROBE_SPACING`]: a stop is
//!   noticed within about that long (or one index, for slower bodies), and the helper yields
//!   to its worker's other tasks after [`HELPER_BUDGET`];
//! - results (map slots, reduce partials) are written before the `complete` call that
//!   covers them, and read only after the loop is done: `complete` is an AcqRel decrement,
//!   so the done flag (Release/Acquire) carries every write to the reader;
//! - `done` is set exactly once, by the caller that observed the count reach zero.

use std::any::Any;
use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use futures::task::AtomicWaker;

use super::steal_range::Partition;
use crate::state::State;
use crate::sync::{AtomicBool, Ordering};

/// How long a helper runs before it yields to the other tasks of its worker.
pub(crate) const HELPER_BUDGET: Duration = Duration::from_millis(2);

/// The time a helper aims to leave between two probes (a look at the clock and at the stop
/// flag). The number of indices between probes adapts to the measured cost of an index, so
/// a stop or the end of the budget is noticed within about this long whatever the body
/// costs, while a nanosecond body reads the clock only once every few thousand indices.
const PROBE_SPACING: Duration = Duration::from_micros(50);

/// The most indices between two probes.
const MAX_PROBE_INTERVAL: usize = 1 << 16;

type Payload = Box<dyn Any + Send + 'static>;

/// What a loop does with each batch, and what it gives back.
pub(crate) trait Kind: Send + Sync + 'static {
    type Output: Send + 'static;

    /// The output of a loop over an empty range.
    fn empty_output(&self) -> Self::Output;

    /// Runs every index of `part` (a piece of a batch) for helper `helper`. Panics
    /// propagate (the helper catches them). No stop checks: the helper makes them between
    /// pieces, so the loop here stays free of atomics.
    fn run_part(&self, helper: usize, part: Range<usize>);

    /// The result, once every index ran. Called at most once, after `done`.
    fn take_output(&self) -> Self::Output;
}

/// The state of one loop. `K` is last so that `Arc<Loop<K>>` coerces to
/// `Arc<Loop<dyn Kind<Output = _>>>` for the awaiting future, while the helpers keep the
/// concrete type (and so an inlined body).
pub(crate) struct Loop<K: ?Sized> {
    partition: Partition,
    waker: AtomicWaker,
    /// Set (Release) by the caller that saw the remaining count reach zero; read (Acquire)
    /// by the awaiting future.
    done: AtomicBool,
    /// The first panic of a user closure, or the executor's shutdown, if either stopped
    /// the loop.
    failure: Mutex<Option<Failure>>,
    kind: K,
}

enum Failure {
    Panic(Payload),
    Cancelled,
}

impl<K: Kind> Loop<K> {
    pub(crate) fn new(range: Range<usize>, helpers: usize, kind: K) -> Loop<K> {
        Loop {
            partition: Partition::new(range, helpers),
            waker: AtomicWaker::new(),
            done: AtomicBool::new(false),
            failure: Mutex::new(None),
            kind,
        }
    }

    /// Spawns one helper task per slice, helper `i` onto worker `i % workers`.
    pub(crate) fn start(self: &Arc<Self>, shared: &Arc<State>) {
        let workers = shared.num_workers();
        for index in 0..self.partition.workers() {
            let helper = Helper::new(Arc::clone(self), index);
            drop(crate::spawn::spawn_on_worker(
                shared,
                index % workers,
                helper,
            ));
        }
    }
}

impl<K: Kind + ?Sized> Loop<K> {
    /// Marks the loop done and wakes the awaiting task.
    fn finish(&self) {
        // Release: pairs with the Acquire load in `poll_done`.
        self.done.store(true, Ordering::Release);
        self.waker.wake();
    }

    fn fail(&self, failure: Failure) {
        let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        // The first failure wins; a later panic or a cancellation adds nothing.
        if slot.is_none() {
            *slot = Some(failure);
        }
    }

    /// Stops handing out indices (the awaiting future was dropped, a closure panicked, or
    /// the executor dropped a helper).
    pub(crate) fn stop(&self) {
        if self.partition.stop() {
            self.finish();
        }
    }

    /// Polls for completion: the output, or the first panic resumed.
    pub(crate) fn poll_done(&self, cx: &mut Context<'_>) -> Poll<K::Output> {
        self.waker.register(cx.waker());
        // Acquire: pairs with the Release store in `finish`.
        if !self.done.load(Ordering::Acquire) {
            return Poll::Pending;
        }
        let failure = self
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match failure {
            None => Poll::Ready(self.kind.take_output()),
            Some(Failure::Panic(payload)) => std::panic::resume_unwind(payload),
            Some(Failure::Cancelled) => panic!(
                "filch: the executor running this data-parallel loop shut down before the \
                 loop finished"
            ),
        }
    }
}

/// The task that processes one slice of a loop (and steals for it).
struct Helper<K: Kind> {
    lp: Arc<Loop<K>>,
    index: usize,
    rng: u64,
    /// The indices of the current batch not run yet. Kept across a yield.
    held: Range<usize>,
    /// The length of the current batch, to `complete` once `held` is empty.
    held_total: usize,
    /// Indices to run between two probes (adapted to the cost of an index).
    probe_interval: usize,
    /// Set when the helper has left the loop normally.
    finished: bool,
}

impl<K: Kind> Helper<K> {
    fn new(lp: Arc<Loop<K>>, index: usize) -> Helper<K> {
        Helper {
            lp,
            index,
            rng: 0x2545_F491_4F6C_DD1D ^ ((index as u64 + 1) << 21),
            held: 0..0,
            held_total: 0,
            probe_interval: 1,
            finished: false,
        }
    }

    /// Completes the held batch (run, or skipped after a stop). Returns whether this
    /// finished the loop.
    fn complete_held(&mut self) -> bool {
        let total = std::mem::take(&mut self.held_total);
        self.held = 0..0;
        if self.lp.partition.complete(total) {
            self.lp.finish();
            return true;
        }
        false
    }

    /// Scales the probe interval so that the next `interval` indices take about
    /// [`PROBE_SPACING`], given that the last `interval` took `elapsed`.
    fn adapt_probe_interval(&mut self, elapsed: Duration) {
        let spacing = PROBE_SPACING.as_nanos();
        let elapsed = elapsed.as_nanos().max(1);
        let current = self.probe_interval as u128;
        // Grow at most 2x, shrink at most 8x per probe: a few fast indices do not make the
        // next interval huge, and a slow stretch is reined in quickly.
        let wanted = (current * spacing / elapsed).clamp((current / 8).max(1), current * 2);
        self.probe_interval =
            usize::try_from(wanted).map_or(MAX_PROBE_INTERVAL, |w| w.min(MAX_PROBE_INTERVAL));
    }
}

impl<K: Kind> Future for Helper<K> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        let started = Instant::now();
        let mut last_probe = started;
        let mut until_probe = this.probe_interval;
        loop {
            if this.held.is_empty() {
                match this.lp.partition.next_batch(this.index, &mut this.rng) {
                    Some(batch) => {
                        this.held_total = batch.len();
                        this.held = batch;
                    }
                    None => break,
                }
            }
            // Run up to the next probe, or to the end of the batch.
            let take = this.held.len().min(until_probe);
            let part = this.held.start..this.held.start + take;
            this.held.start = part.end;
            until_probe -= take;
            let lp = &*this.lp;
            let index = this.index;
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| lp.kind.run_part(index, part))) {
                lp.fail(Failure::Panic(payload));
                // Cannot reach zero: the held batch is counted until `complete_held`.
                lp.stop();
                this.held.start = this.held.end;
            }
            if this.held.is_empty() && this.complete_held() {
                break;
            }
            if until_probe == 0 {
                let now = Instant::now();
                this.adapt_probe_interval(now - last_probe);
                last_probe = now;
                until_probe = this.probe_interval;
                if this.lp.partition.is_stopped() {
                    // Skip the rest of the held batch: no new index starts after a stop.
                    if this.held_total > 0 && this.complete_held() {
                        break;
                    }
                    continue;
                }
                if now - started >= HELPER_BUDGET {
                    // Let the other tasks of this worker run; the loop goes on when this
                    // helper is polled again (meanwhile others may steal from its slice).
                    crate::yield_now::wake_to_yield(cx);
                    return Poll::Pending;
                }
            }
        }
        this.finished = true;
        Poll::Ready(())
    }
}

impl<K: Kind> Drop for Helper<K> {
    fn drop(&mut self) {
        if !self.finished {
            // Dropped before it left the loop: the executor shut down (or the task was
            // cancelled). Stop the loop, and give back the batch it held (none of it will
            // run now), so that the count can still reach zero.
            self.lp.fail(Failure::Cancelled);
            self.lp.stop();
            if self.held_total > 0 {
                self.complete_held();
            }
        }
    }
}

/// `par_range`: calls the body on each index.
pub(crate) struct ForEach<F> {
    pub(crate) body: F,
}

impl<F: Fn(usize) + Send + Sync + 'static> Kind for ForEach<F> {
    type Output = ();

    fn run_part(&self, _helper: usize, part: Range<usize>) {
        part.for_each(&self.body);
    }

    fn take_output(&self) {}

    fn empty_output(&self) {}
}

/// The index ranges one helper wrote, in the order it wrote them.
type WrittenRanges = Mutex<Vec<Range<usize>>>;

/// `par_map`: writes `f(i)` into element `i - start` of a vector allocated up front.
pub(crate) struct Map<T, F> {
    f: F,
    start: usize,
    len: usize,
    /// The buffer of a `Vec<T>` with capacity `len` (and length 0 until `take_output`).
    /// Element `k` is written once, by the helper that ran index `start + k`.
    ptr: *mut T,
    capacity: usize,
    /// Per helper: the index ranges whose elements it wrote, merged when adjacent. Needed
    /// only to drop the written values of a loop that was stopped.
    written: Box<[CachePadded<WrittenRanges>]>,
    /// Set when `take_output` turned the buffer into the output vector.
    taken: AtomicBool,
}

// SAFETY: the buffer is written through shared references, each element by exactly one
// thread (every index is handed out at most once, so `run_part` writes element `k` at most
// once), and read only by `take_output` or `Drop`, after the loop is done (every write
// happens before, see the module invariants) or when no helper is left. `T: Send` lets the
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
            written: (0..helpers)
                .map(|_| CachePadded::new(Mutex::new(Vec::new())))
                .collect(),
            taken: AtomicBool::new(false),
        }
    }
}

/// Records the elements a batch wrote, when the batch ends (normally, by a stop, or by a
/// panic of `f`).
struct Record<'a> {
    written: &'a WrittenRanges,
    first: usize,
    next: &'a Cell<usize>,
}

impl Drop for Record<'_> {
    fn drop(&mut self) {
        let end = self.next.get();
        if end > self.first {
            let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
            match written.last_mut() {
                Some(last) if last.end == self.first => last.end = end,
                _ => written.push(self.first..end),
            }
        }
    }
}

impl<T: Send + 'static, F: Fn(usize) -> T + Send + Sync + 'static> Kind for Map<T, F> {
    type Output = Vec<T>;

    fn run_part(&self, helper: usize, part: Range<usize>) {
        let next = Cell::new(part.start);
        let _record = Record {
            written: &self.written[helper],
            first: part.start,
            next: &next,
        };
        for i in part {
            let value = (self.f)(i);
            // SAFETY: `i - start < len <= capacity`, so the element is inside the buffer;
            // index `i` was handed to this helper alone, so no other thread touches it, and
            // it was never written before (see the Send/Sync impls).
            unsafe { self.ptr.add(i - self.start).write(value) };
            next.set(i + 1);
        }
    }

    fn take_output(&self) -> Vec<T> {
        // Relaxed: `take_output` runs once, on the awaiting thread, after `done`; the flag
        // is read again only by `Drop`, which has `&mut self`.
        self.taken.store(true, Ordering::Relaxed);
        // SAFETY: `ptr`/`capacity` come from a `Vec<T>` we never freed; the loop finished
        // without a stop, so all `len` elements were written, before `done` (module
        // invariants). `taken` hands the buffer over: `Drop` will not touch it again.
        unsafe { Vec::from_raw_parts(self.ptr, self.len, self.capacity) }
    }

    fn empty_output(&self) -> Vec<T> {
        Vec::new()
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
            let ranges = std::mem::take(written.get_mut().unwrap_or_else(|e| e.into_inner()));
            for range in ranges {
                let first = range.start - self.start;
                // SAFETY: `written` lists each written element once (the ranges of one
                // helper are disjoint, helpers never share an index, and every listed
                // element was written); `&mut self` means no helper is running.
                unsafe {
                    std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                        self.ptr.add(first),
                        range.len(),
                    ))
                };
            }
        }
        // SAFETY: the buffer of a `Vec<T>` we own, with no live element left in it.
        drop(unsafe { Vec::from_raw_parts(self.ptr, 0, self.capacity) });
    }
}

/// `par_reduce`: folds each batch from `identity()` and combines partials with `reduce`.
pub(crate) struct Reduce<T, I, F, R> {
    identity: I,
    fold: F,
    reduce: R,
    /// Per helper: the combination of the partials of the batches it finished.
    partials: Box<[CachePadded<Mutex<Option<T>>>]>,
    _marker: PhantomData<fn() -> T>,
}

impl<T, I, F, R> Reduce<T, I, F, R> {
    pub(crate) fn new(identity: I, fold: F, reduce: R, helpers: usize) -> Self {
        Reduce {
            identity,
            fold,
            reduce,
            partials: (0..helpers)
                .map(|_| CachePadded::new(Mutex::new(None)))
                .collect(),
            _marker: PhantomData,
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

    fn run_part(&self, helper: usize, part: Range<usize>) {
        let acc = part.fold((self.identity)(), &self.fold);
        let mut slot = self.partials[helper]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *slot = Some(match slot.take() {
            None => acc,
            Some(before) => (self.reduce)(before, acc),
        });
    }

    fn take_output(&self) -> T {
        self.partials
            .iter()
            .filter_map(|p| p.lock().unwrap_or_else(|e| e.into_inner()).take())
            .reduce(&self.reduce)
            .unwrap_or_else(&self.identity)
    }

    fn empty_output(&self) -> T {
        (self.identity)()
    }
}
