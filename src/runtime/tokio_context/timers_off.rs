//! tokio's timers under filch's paused clock (features `test-util` and `tokio-context`).
//!
//! tokio's timers run on tokio's clock, which filch's pause does not stop, and filch's
//! auto-advance cannot see their deadlines (tokio tells no one its next one), so a tokio
//! timer under a paused filch clock would wait in real time, or for ever. Two clocks that
//! each jump on their own would wake timers out of order. So tokio's timers do not follow
//! the paused clock; the first one panics, with a message that says what to use instead:
//!
//! - Each poll of an executor's tasks (blocking jobs included) and of its `block_on`s'
//!   futures is a [`TimersOffPoll`]: while the executor's clock is paused, from the poll's start or
//!   from a `time::pause` inside it ([`paused_now`]) until its end or a `time::resume` inside
//!   it ([`resumed_now`]), the thread is inside the context of the *timerless runtime*:
//!   tokio's multi-thread runtime with its IO driver and no time driver, one per process,
//!   one worker, threads `filch-tokio-paused-{n}`, started by the first such poll. tokio IO
//!   keeps working there; a tokio timer made there panics with tokio's message ("timers are
//!   disabled").
//! - filch gives that panic its own message, [`TIMER_UNDER_PAUSE`], where it surfaces: as
//!   the panic of a task's poll ([`TimersOffPoll::explain`]) or of a `block_on`'s future
//!   ([`TimersOffFuture`]), also when it comes from unwrapping the `JoinError` of a `tokio::spawn`ed
//!   task whose tokio timer panicked, if the clock was paused during that poll.
//! - What `tokio::spawn` starts from such a poll runs on the timerless runtime's thread,
//!   outside every filch executor: a filch timer made there would belong to the global
//!   executor and wait in real time, so filch refuses it ([`on_side_thread`], checked where
//!   `filch::time` makes a timer) with [`FILCH_TIMER_ON_SIDE`], unless the executor it would
//!   go to has a paused clock itself (a `#[filch::main(start_paused = true)]` program's).
//!
//! The scope's state is thread-local ([`SCOPE`]): a scope saves the one of the poll around it
//! (a `block_on` inside a blocking job) and gives it back when it ends, and its guard of the
//! timerless context is dropped before any guard entered around the poll, as tokio asks.
//!
//! Not covered: `tokio::time::Instant::now()` reads the real clock (it is no timer and
//! cannot panic); a tokio timer made before the pause runs in real time.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

/// filch's message for a tokio timer made under a paused clock.
pub(crate) const TIMER_UNDER_PAUSE: &str = "filch: a tokio timer (tokio::time::sleep, timeout, \
    interval, or one inside a tokio-bound crate) was made while its executor's clock is paused \
    (filch::time::pause, or start_paused = true). tokio's timers run on tokio's clock, which \
    filch's pause does not stop and whose deadlines filch's auto-advance cannot see, so it \
    would wait in real time: filch turns tokio's timers off while the clock is paused. Use \
    filch::time::{sleep, timeout, interval, Instant} instead, which follow the paused clock, or \
    test what needs tokio's timers on an executor whose clock runs";

/// filch's message for a filch timer made in a task that `tokio::spawn` started under a
/// paused clock.
pub(crate) const FILCH_TIMER_ON_SIDE: &str = "filch: a filch timer was made in a task that \
    tokio::spawn started while its executor's clock was paused: tokio runs that task on a \
    runtime of its own, outside the executor, so the timer would belong to the global executor \
    and wait in real time. Spawn the task with filch::spawn instead: it then runs on the paused \
    executor, and its filch::time timers follow the paused clock";

/// What tokio's panic for a timer without a time driver says.
const TOKIO_SAYS: &str = "timers are disabled";

/// The state of the poll in flight on this thread (module docs).
#[derive(Default)]
struct ScopeState {
    /// Inside a poll of a task or of a `block_on`'s future.
    in_poll: bool,
    /// The thread is inside the timerless runtime's context until this is dropped.
    timerless: Option<tokio::runtime::EnterGuard<'static>>,
    /// The clock was paused at some point of the poll.
    paused_seen: bool,
}

thread_local! {
    /// Set on the timerless runtime's threads.
    static ON_SIDE: Cell<bool> = const { Cell::new(false) };
    /// The poll in flight on this thread.
    static SCOPE: RefCell<ScopeState> = RefCell::new(ScopeState::default());
}

/// The timerless runtime (module docs), started by the first call.
fn runtime() -> &'static tokio::runtime::Runtime {
    // std's `OnceLock`: a static.
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        use std::sync::atomic::{AtomicUsize, Ordering};
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name_fn(|| {
                static NEXT: AtomicUsize = AtomicUsize::new(0);
                // Relaxed: a counter for names, ordered with nothing.
                format!(
                    "filch-tokio-paused-{}",
                    NEXT.fetch_add(1, Ordering::Relaxed)
                )
            })
            .on_thread_start(|| ON_SIDE.with(|s| s.set(true)))
            .enable_io()
            .build()
            .unwrap_or_else(|e| {
                panic!("filch: cannot start the tokio runtime of a paused clock: {e}")
            })
    })
}

/// One poll (module docs): ends when dropped.
pub(crate) struct TimersOffPoll {
    /// The state of the poll around this one, given back at the end.
    outer: ScopeState,
}

impl TimersOffPoll {
    /// Begins a poll of an executor whose clock is `paused` now.
    pub(crate) fn begin(paused: bool) -> TimersOffPoll {
        let inner = ScopeState {
            in_poll: true,
            timerless: paused.then(|| runtime().handle().enter()),
            paused_seen: paused,
        };
        TimersOffPoll {
            outer: SCOPE.with(|s| s.replace(inner)),
        }
    }

    /// A panic of the poll, with filch's message if it is tokio's for a timer and the clock
    /// was paused during the poll (module docs).
    pub(crate) fn explain(&self, payload: Box<dyn Any + Send>) -> Box<dyn Any + Send> {
        match text_of(&*payload) {
            Some(text) if text.contains(TOKIO_SAYS) && paused_seen() => Box::new(explained(text)),
            _ => payload,
        }
    }
}

impl Drop for TimersOffPoll {
    fn drop(&mut self) {
        let inner = SCOPE.with(|s| s.replace(std::mem::take(&mut self.outer)));
        // The poll's own guard first: every guard entered inside the poll is gone.
        drop(inner);
    }
}

/// Whether the clock was paused during the poll in flight on this thread.
fn paused_seen() -> bool {
    SCOPE.with(|s| s.borrow().paused_seen)
}

/// `time::pause` paused the current executor's clock: the rest of the poll in flight (if
/// any) is inside the timerless context.
pub(crate) fn paused_now() {
    SCOPE.with(|s| {
        let mut scope = s.borrow_mut();
        if scope.in_poll && scope.timerless.is_none() {
            scope.timerless = Some(runtime().handle().enter());
            scope.paused_seen = true;
        }
    });
}

/// `time::resume` let the current executor's clock run: the rest of the poll in flight
/// (if any) is back in the context around it.
pub(crate) fn resumed_now() {
    let guard = SCOPE.with(|s| s.borrow_mut().timerless.take());
    drop(guard);
}

/// Whether this thread is one of the timerless runtime's (module docs).
pub(crate) fn on_side_thread() -> bool {
    ON_SIDE.with(Cell::get)
}

/// The text of a panic's payload, if it is text.
fn text_of(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// filch's message, then tokio's `text`.
fn explained(text: &str) -> String {
    format!("{TIMER_UNDER_PAUSE}\n(tokio's panic: {text})")
}

pin_project_lite::pin_project! {
    /// A `block_on`'s future, each poll a [`TimersOffPoll`] (`paused` says whether the executor's
    /// clock is paused); tokio's timer panic of a poll under the paused clock is raised again
    /// with filch's message (module docs).
    pub(crate) struct TimersOffFuture<F, P> {
        #[pin]
        future: F,
        paused: P,
    }
}

impl<F, P> TimersOffFuture<F, P> {
    pub(crate) fn new(future: F, paused: P) -> TimersOffFuture<F, P> {
        TimersOffFuture { future, paused }
    }
}

impl<F: Future, P: Fn() -> bool> Future for TimersOffFuture<F, P> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let scope = TimersOffPoll::begin((this.paused)());
        let future = this.future;
        match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => match text_of(&*payload) {
                // A new panic, so that the panic hook prints filch's message too.
                Some(text) if text.contains(TOKIO_SAYS) && paused_seen() => {
                    let message = explained(text);
                    drop(scope);
                    panic!("{message}")
                }
                _ => resume_unwind(payload),
            },
        }
    }
}
