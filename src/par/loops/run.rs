//! One running data-parallel loop: its shared state and the helper tasks that process it.
//!
//! A loop is an `Arc<Loop<K>>`: a [`Partition`] of the index range, the kind `K` (the
//! user's closures and the place results go, see `kinds.rs` and `owned.rs`), and the
//! completion state the awaiting future reads. One [`Helper`] task per slice is pushed to
//! the workers (helper `i` onto worker `i`'s inbox); a helper takes batches from its own
//! slice, steals when it is empty, and leaves when every slice looks empty. The helper whose
//! `complete` brings the remaining count to zero marks the loop done and wakes the awaiting
//! task. Helpers that start late find nothing and leave; the loop completes if only one
//! helper ever runs.
//!
//! **Runs and publishing.** A helper folds consecutive indices into one *run* kept in its
//! private `K::Local` (a reduce accumulator, the extent of the map results it wrote): its
//! own slice hands it adjacent batches, so a run usually spans many batches. The run is
//! published (`Kind::flush`, into the helper's slot of the kind) when the next batch is not
//! adjacent (a steal), before the helper yields, and when it leaves; the indices of the
//! batches it finished are reported to the partition (`complete`) only after that, so every
//! result is in its slot before the count can reach zero. Each published run knows the
//! first index it covers, which is how `par_reduce` combines runs in index order.
//!
//! **Looking up.** Before each item the kind checks that the tick epoch has not moved
//! (`runtime/time/tick.rs`: a relaxed load), or before each block of [`BLOCK`](tick::BLOCK) items
//! while the items are cheap (below [`SLOW_ITEM`] on average since the last look-up), so that the
//! compiler can unroll a nanosecond body as it does rayon's. When the epoch has moved
//! (every [`TICK`], or at once when a loop is stopped), the helper reads the clock, measures
//! the items' cost (blocks or one by one from then on) and reads the stop flag: after a
//! stop it skips the rest of its batch; after [`HELPER_BUDGET`] of running it publishes and
//! yields to the other tasks of its worker. So whatever the cost profile of the items, a
//! helper returns to its worker within about budget + one tick + one item (one block, if
//! the cost of an item jumped since the last look-up), and after a stop no new item starts
//! (beyond the rest of a block of cheap items).
//!
//! A helper also looks up between two batches once a tick's time has passed since its last
//! look-up, whether the epoch moved or not: the ticker is a thread, and the OS may keep it
//! waiting while the workers hold every core. (A batch takes about [`BATCH_TIME`], so the
//! clock is read at most once per that.)
//!
//! **IO and timers** are the worker's: at each look-up the helper asks its worker one
//! question, whether to return now (`worker::context::should_return_now`). The worker takes
//! a paced turn of its driver on the helper's behalf (the driver's one pacing rule) and
//! says yes if that turn woke a task or tasks wait in its inbox or the injector (woken by
//! another thread, say); the helper then yields at once, and the tasks the turn woke wait
//! in this worker's inbox, so they run right after the item that was running. So while
//! every worker runs a loop, an IO event or a timer is seen within about a tick plus one
//! item of being due, and the task it wakes runs on the first worker whose item ends after
//! that.
//!
//! Stops: a panic in a user closure, the awaiting future being dropped, or a helper being
//! dropped unfinished (the executor shut down) stop the partition: no new batch is handed
//! out, each helper skips the rest of its batch before its next item (or block), the
//! bodies already running return, and the last one to return marks the loop done. The
//! awaiting future then gets the first panic (to resume), or a cancellation if the
//! executor shut down under the loop.
//!
//! Invariants:
//! - a helper holds at most one batch (`held`), possibly across a yield; once every index
//!   of it ran or was skipped after a stop, its length moves to `finished`, which is
//!   completed right after the next flush; a helper dropped unfinished flushes and completes
//!   `finished` and its held batch in its `Drop`, so the count still reaches zero;
//! - results (map slots, reduce runs) are written and published before the `complete` call
//!   that covers them, and read only after the loop is done: `complete` is an AcqRel
//!   decrement, so the done flag (Release/Acquire) carries every write to the reader;
//! - `done` is set exactly once, by the caller that observed the count reach zero;
//! - the output is taken at most once, and only if no failure was recorded.

use std::future::Future;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::task::AtomicWaker;

use super::batch::BatchSize;
use super::steal_range::Partition;
use crate::runtime::scheduler::state::State;
use crate::runtime::scheduler::worker::context;
use crate::runtime::task::Payload;
#[cfg(doc)]
use crate::runtime::time::tick::TICK;
use crate::runtime::time::tick::{self, Active, Watch};
use crate::util::sync::{AtomicBool, Mutex, Ordering};

/// How long a helper runs before it yields to the other tasks of its worker. It notices the
/// end of its budget at the next tick, so it runs up to this plus a tick plus one item (or
/// one [`BLOCK`](tick::BLOCK) of items, if the cost of an item jumped from below
/// [`SLOW_ITEM`] since the last look-up).
pub(crate) const HELPER_BUDGET: Duration = Duration::from_millis(2);

/// Items that took at least this long on average since the last look-up are checked for
/// one by one; cheaper ones in blocks of [`BLOCK`](tick::BLOCK) (a few microseconds a
/// block at most), which only loops of nanosecond items need.
const SLOW_ITEM: Duration = Duration::from_micros(1);

/// What a loop does with each index, where its results go, and what it gives back.
pub(crate) trait Kind: Send + Sync + 'static {
    type Output: Send + 'static;

    /// A helper's private state between items: the run of consecutive indices it is
    /// filling. Kept across yields; published by [`flush`](Kind::flush).
    type Local: Send + Default;

    /// Runs the indices of `part` in order, as long as the tick epoch is still
    /// `watch.epoch` (checked before each item or block, [`tick::fold_while`]), extending the
    /// run in `local`, which is empty or ends where `part` starts. Returns the first index
    /// not run (`part.end` if all ran). Panics of user closures propagate; `local` then
    /// still describes what was done.
    fn run_part(&self, local: &mut Self::Local, part: Range<usize>, watch: Watch) -> usize;

    /// Called when `run_part` unwound from a panic of a user closure, before the run is
    /// published, to record what only the kind knows about the item that panicked.
    fn unwound(&self, _local: &mut Self::Local) {}

    /// Publishes the run in `local` into helper `helper`'s slot and empties `local`.
    fn flush(&self, helper: usize, local: &mut Self::Local);

    /// The result. Called at most once: after the loop finished with every index run, or,
    /// for an empty range, on a kind whose loop never started.
    fn take_output(&self) -> Self::Output;
}

/// The state of one loop. The awaiting future sees it as an `Arc<dyn Outcome<_>>`, while
/// the helpers keep the concrete type (and so an inlined body).
pub(crate) struct Loop<K> {
    partition: Partition,
    waker: AtomicWaker,
    /// Set (Release) by the caller that saw the remaining count reach zero; read (Acquire)
    /// by the awaiting future.
    done: AtomicBool,
    /// The first panic of a user closure, or the executor's shutdown, if either stopped
    /// the loop.
    failure: Mutex<Option<Failure>>,
    /// Set when the awaiting future took the outcome (value or failure); a later poll of
    /// the loop is refused (the stage of the future enforces the same).
    taken: AtomicBool,
    kind: K,
}

/// Why a loop did not complete with a value.
pub(crate) enum Failure {
    /// A user closure panicked: the first payload.
    Panic(Payload),
    /// The executor dropped a helper before the loop finished (it shut down).
    Cancelled,
}

impl Failure {
    /// Resumes the panic, or panics with a message for a cancellation.
    pub(crate) fn resume(self) -> ! {
        match self {
            Failure::Panic(payload) => std::panic::resume_unwind(payload),
            Failure::Cancelled => panic!(
                "filch: the executor running this data-parallel loop shut down before the \
                 loop finished"
            ),
        }
    }
}

/// The awaiting future's view of a loop: its outcome, whatever its kind.
pub(crate) trait Outcome<O>: Send + Sync {
    /// Polls for completion: the output, or why there is none. Call again only after
    /// `Pending`.
    fn poll_done(&self, cx: &mut Context<'_>) -> Poll<Result<O, Failure>>;

    /// Stops handing out indices (the awaiting future was dropped).
    fn stop(&self);
}

impl<K: Kind> Loop<K> {
    pub(crate) fn new(range: Range<usize>, helpers: usize, kind: K) -> Loop<K> {
        Loop {
            partition: Partition::new(range, helpers),
            waker: AtomicWaker::new(),
            done: AtomicBool::new(false),
            failure: Mutex::new(None),
            taken: AtomicBool::new(false),
            kind,
        }
    }

    /// Spawns one helper task per slice, helper `i` onto worker `i % workers`.
    ///
    /// # Panics
    ///
    /// If the tick thread cannot be started (before any helper is spawned).
    pub(crate) fn start(self: &Arc<Self>, shared: &Arc<State>) {
        tick::ensure_started();
        let workers = shared.num_workers();
        for index in 0..self.partition.workers() {
            let helper = Helper::new(Arc::clone(self), index);
            drop(crate::runtime::scheduler::spawner::spawn_on_worker(
                shared,
                index % workers,
                helper,
            ));
        }
    }

    /// Marks the loop done and wakes the awaiting task.
    fn finish(&self) {
        // Release: pairs with the Acquire load in `poll_done`.
        self.done.store(true, Ordering::Release);
        self.waker.wake();
    }

    fn fail(&self, failure: Failure) {
        let mut slot = self.failure.lock();
        // The first failure wins; a later panic or a cancellation adds nothing.
        if slot.is_none() {
            *slot = Some(failure);
        }
    }

    /// Stops handing out indices and makes every running helper look up before its next
    /// item (the awaiting future was dropped, a closure panicked, or the executor dropped a
    /// helper).
    fn stop_loop(&self) {
        let finished = self.partition.stop();
        // After the stop flag is set: a helper that sees the bump sees the flag (tick.rs).
        tick::bump();
        if finished {
            self.finish();
        }
    }
}

impl<K: Kind> Outcome<K::Output> for Loop<K> {
    fn poll_done(&self, cx: &mut Context<'_>) -> Poll<Result<K::Output, Failure>> {
        self.waker.register(cx.waker());
        // Acquire: pairs with the Release store in `finish`.
        if !self.done.load(Ordering::Acquire) {
            return Poll::Pending;
        }
        // Relaxed: only the awaiting future reads and writes it, from `&self` calls that
        // its `&mut` borrow orders.
        if self.taken.swap(true, Ordering::Relaxed) {
            panic!("filch: a data-parallel loop's outcome was taken twice");
        }
        let failure = self.failure.lock().take();
        Poll::Ready(match failure {
            None => Ok(self.kind.take_output()),
            Some(failure) => Err(failure),
        })
    }

    fn stop(&self) {
        self.stop_loop();
    }
}

/// The task that processes one slice of a loop (and steals for it).
struct Helper<K: Kind> {
    lp: Arc<Loop<K>>,
    index: usize,
    rng: u64,
    /// The indices of the current batch not run yet. Kept across a yield.
    held: Range<usize>,
    /// The length of the current batch, to count as finished once `held` is empty.
    held_total: usize,
    /// The run of consecutive indices not published yet.
    local: K::Local,
    /// Where the run in `local` ends (the next index that would extend it).
    run_end: Option<usize>,
    /// Indices of finished batches not reported to the partition yet: reported by
    /// `publish`, after the flush that publishes their results.
    finished: usize,
    /// Whether items ran cheaply at the last look-up: they then run in blocks between
    /// checks of the epoch.
    blocks: bool,
    /// How many indices to claim at a time from the own slice (`batch.rs`), told the
    /// items' cost at each look-up.
    batch: BatchSize,
    /// Set when the helper has left the loop normally.
    left: bool,
}

impl<K: Kind> Helper<K> {
    fn new(lp: Arc<Loop<K>>, index: usize) -> Helper<K> {
        Helper {
            lp,
            index,
            rng: 0x2545_F491_4F6C_DD1D ^ ((index as u64 + 1) << 21),
            held: 0..0,
            held_total: 0,
            local: K::Local::default(),
            run_end: None,
            finished: 0,
            blocks: true,
            batch: BatchSize::default(),
            left: false,
        }
    }

    /// Counts the held batch (run, or skipped after a stop) as finished.
    fn finish_held(&mut self) {
        self.finished += std::mem::take(&mut self.held_total);
        self.held = 0..0;
    }

    /// Publishes the run, then reports the finished batches to the partition. Returns
    /// whether this finished the loop (the caller then must not touch the loop's results).
    fn publish(&mut self) -> bool {
        self.lp.kind.flush(self.index, &mut self.local);
        self.run_end = None;
        if self
            .lp
            .partition
            .complete(std::mem::take(&mut self.finished))
        {
            self.lp.finish();
            return true;
        }
        false
    }
}

// No field is pinned structurally (`poll` only needs `&mut Helper`), so a run of a `!Unpin`
// type in `local` does not make the helper `!Unpin`.
impl<K: Kind> Unpin for Helper<K> {}

impl<K: Kind> Future for Helper<K> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        let _active = Active::enter();
        let mut look = LookUps::start(this.blocks);
        loop {
            if this.held.is_empty() && !this.take_batch() {
                this.left = true;
                this.publish();
                return Poll::Ready(());
            }
            if !this.run_held(&mut look) {
                // A user closure panicked: the loop is stopped, the next batch is none.
                continue;
            }
            if this.held.is_empty() {
                this.finish_held();
                if !look.due_between_batches() {
                    continue;
                }
            }
            if this.look_up(&mut look) == Next::Yield {
                // Let the other tasks of this worker run; the loop goes on when this helper
                // is polled again (meanwhile others may steal from its slice).
                if this.publish() {
                    // Unreachable in practice (the held batch keeps the loop open).
                    this.left = true;
                    return Poll::Ready(());
                }
                crate::runtime::task::yield_now::wake_to_yield(cx);
                return Poll::Pending;
            }
        }
    }
}

/// What a helper does after a look-up.
#[derive(PartialEq, Eq)]
enum Next {
    /// Go on running items.
    Run,
    /// Publish and yield to the other tasks of its worker.
    Yield,
}

/// The look-ups of one poll of a helper (module docs, "Looking up"): when the poll started,
/// when the last look-up was, how many items ran since, and what the kind watches.
struct LookUps {
    started: Instant,
    looked: Instant,
    ran: usize,
    watch: Watch,
}

impl LookUps {
    fn start(blocks: bool) -> LookUps {
        let now = Instant::now();
        LookUps {
            started: now,
            looked: now,
            ran: 0,
            watch: Watch {
                epoch: tick::now(),
                blocks,
            },
        }
    }

    /// Between two batches: look up if the epoch moved, or if a tick's time has passed
    /// without it moving (the ticker is a thread, which the OS may keep waiting while the
    /// workers hold every core).
    fn due_between_batches(&self) -> bool {
        tick::moved(self.watch.epoch) || self.looked.elapsed() >= tick::TICK
    }
}

impl<K: Kind> Helper<K> {
    /// Takes the next batch (from the own slice, else stolen); `false` once every slice
    /// looks empty. A batch not adjacent to the run (a steal) publishes the run first.
    fn take_batch(&mut self) -> bool {
        let Some(batch) = self
            .lp
            .partition
            .next_batch(self.index, &mut self.rng, &mut self.batch)
        else {
            return false;
        };
        if self.run_end != Some(batch.start) {
            self.lp.kind.flush(self.index, &mut self.local);
        }
        self.run_end = Some(batch.start);
        self.held_total = batch.len();
        self.held = batch;
        true
    }

    /// Runs the held batch until its end or until the epoch moves; `false` if a user
    /// closure panicked (the loop is then stopped and the batch counted as finished).
    fn run_held(&mut self, look: &mut LookUps) -> bool {
        let lp = &*self.lp;
        let (local, part) = (&mut self.local, self.held.clone());
        match catch_unwind(AssertUnwindSafe(|| {
            lp.kind.run_part(local, part, look.watch)
        })) {
            Ok(end) => {
                look.ran += end - self.held.start;
                self.held.start = end;
                self.run_end = Some(end);
                true
            }
            Err(payload) => {
                lp.kind.unwound(&mut self.local);
                lp.fail(Failure::Panic(payload));
                // Cannot finish the loop: the held batch is counted until `publish`.
                lp.stop_loop();
                self.finish_held();
                false
            }
        }
    }

    /// A look-up: reads the epoch again, asks the worker whether to return now (it takes a
    /// driver turn if one is due, and says yes if that woke a task or tasks wait for this
    /// worker), measures the items' cost, and reads the stop flag. After a stop the rest of
    /// the held batch is skipped; the helper yields if its worker said so or its budget is
    /// spent.
    fn look_up(&mut self, look: &mut LookUps) -> Next {
        // Acquire (in `now`) before reading the stop flag, see tick.rs.
        look.watch.epoch = tick::now();
        let return_now = context::should_return_now();
        let now = Instant::now();
        // Cheap items (on average since the last look-up) run in blocks; after a jump in
        // cost, the next look-up switches to one by one.
        let window = (now - look.looked).as_nanos().max(1);
        self.blocks = look.ran as u128 * SLOW_ITEM.as_nanos() > window;
        self.batch.measured(look.ran, now - look.looked);
        look.watch.blocks = self.blocks;
        (look.looked, look.ran) = (now, 0);
        if self.lp.partition.is_stopped() {
            // No new index starts after a stop.
            self.finish_held();
            return Next::Run;
        }
        if return_now || now - look.started >= HELPER_BUDGET {
            Next::Yield
        } else {
            Next::Run
        }
    }
}

impl<K: Kind> Drop for Helper<K> {
    fn drop(&mut self) {
        if !self.left {
            // Dropped before it left the loop: the executor shut down (or the task was
            // cancelled). Stop the loop, publish what was done (so the kind can drop it),
            // and give back the batch it held (none of it will run now), so that the count
            // can still reach zero.
            self.lp.fail(Failure::Cancelled);
            self.lp.stop_loop();
            self.finish_held();
            self.publish();
        }
    }
}
