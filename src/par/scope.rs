//! [`scope`], [`in_place_scope`] and [`Scope`], and their FIFO forms [`scope_fifo`],
//! [`in_place_scope_fifo`] and [`ScopeFifo`]: closures spawned into a scope may borrow what
//! outlives it; the scope returns once they all finished. And [`spawn`] and [`spawn_fifo`],
//! rayon's fire-and-forget closures.
//!
//! On one thread, the owner of a [`Scope`] runs its closures newest first (LIFO), the owner
//! of a [`ScopeFifo`] oldest first (FIFO), as rayon's do; other workers take the oldest.
//!
//! The scope's core (its node, the spawns, the wait) is `runtime/scheduler/forkjoin/scope_core.rs`.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::executor::global::current_or_global_state;
use crate::runtime::scheduler::forkjoin::{self, Body, FjThread, Root, ScopeCore};
use crate::runtime::scheduler::state::State;

use super::broadcast::{self, BroadcastContext};

/// A closure that borrows for `'scope`: what makes [`Scope`] invariant in `'scope`, and
/// `Send + Sync`, as rayon's.
type ScopeMarker<'scope> = PhantomData<Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>>;

/// A scope, into which closures that borrow from outside it are spawned; see [`scope`].
pub struct Scope<'scope> {
    core: ScopeCore,
    _marker: ScopeMarker<'scope>,
}

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}

/// A FIFO scope, into which closures that borrow from outside it are spawned; see
/// [`scope_fifo`].
pub struct ScopeFifo<'scope> {
    core: ScopeCore,
    _marker: ScopeMarker<'scope>,
}

impl std::fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeFifo").finish_non_exhaustive()
    }
}

/// A pointer to a scope (a [`Scope`] or a [`ScopeFifo`]) that a spawned closure carries to
/// another thread.
struct ScopeRef<S>(*const S);

// SAFETY: both scopes are `Sync`; the pointer is dereferenced only while the scope waits for
// the closure that carries it (`spawn_into`).
unsafe impl<S: Sync> Send for ScopeRef<S> {}

// SAFETY: as for `Send`: the closures that share it only read the scope through it.
unsafe impl<S: Sync> Sync for ScopeRef<S> {}

/// Spawns `body` into `scope`, whose core is `core`
/// (`runtime/scheduler/forkjoin/scope_core.rs`).
fn spawn_into<'scope, S, BODY>(core: &ScopeCore, scope: &S, body: BODY)
where
    S: Sync + 'scope,
    BODY: FnOnce(&S) + Send + 'scope,
{
    let scope = ScopeRef(std::ptr::from_ref(scope));
    let job: Box<dyn FnOnce() + Send + 'scope> = Box::new(move || {
        let scope = scope;
        // SAFETY: the scope outlives the closure: `ScopeCore::complete` waits for every
        // spawned closure before the scope's frame is left.
        body(unsafe { &*scope.0 })
    });
    // SAFETY: only the lifetime changes; as above, the scope waits for the closure, so
    // nothing it borrows for `'scope` is gone while it may run.
    let job: Body = unsafe { std::mem::transmute(job) };
    core.spawn(job);
}

/// Spawns `body` into `scope` once per worker of its executor, each addressed to its worker.
fn broadcast_into<'scope, S, BODY>(core: &ScopeCore, scope: &S, body: BODY)
where
    S: Sync + 'scope,
    BODY: Fn(&S, BroadcastContext<'_>) + Send + Sync + 'scope,
{
    let scope = ScopeRef(std::ptr::from_ref(scope));
    let shared = Arc::new((scope, body));
    let n = core.num_workers();
    core.spawn_broadcast(|index| {
        let shared = Arc::clone(&shared);
        let job: Box<dyn FnOnce() + Send + 'scope> = Box::new(move || {
            let (scope, body) = &*shared;
            // SAFETY: as in `spawn_into`: the scope waits for every closure spawned into it.
            body(unsafe { &*scope.0 }, broadcast::context(index, n));
        });
        // SAFETY: only the lifetime changes, as in `spawn_into`.
        unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 'scope>, Body>(job) }
    });
}

impl<'scope> Scope<'scope> {
    /// Spawns `body` into the scope: it may run on any worker, and it finishes before the
    /// scope returns. `body` gets the scope, to spawn more.
    ///
    /// ```
    /// let mut hits = [0u32; 4];
    /// filch::par::scope(|s| {
    ///     for (i, hit) in hits.iter_mut().enumerate() {
    ///         s.spawn(move |_| *hit = i as u32 * 10);
    ///     }
    /// });
    /// assert_eq!(hits, [0, 10, 20, 30]);
    /// ```
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        spawn_into(&self.core, self, body);
    }

    /// Spawns `body` into the scope once on each worker of its executor (index `0..n` each
    /// once, on that worker's thread); each finishes before the scope returns. See
    /// [`broadcast`](crate::par::broadcast) for when a worker runs its part.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let sum = AtomicUsize::new(0);
    /// pool.scope(|s| {
    ///     s.spawn_broadcast(|_, ctx| {
    ///         sum.fetch_add(ctx.index(), Ordering::Relaxed);
    ///     });
    /// });
    /// assert_eq!(sum.into_inner(), 0 + 1 + 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        broadcast_into(&self.core, self, body);
    }
}

impl<'scope> ScopeFifo<'scope> {
    /// Spawns `body` into the scope: it may run on any worker, and it finishes before the
    /// scope returns; on the scope's own thread the closures run oldest first. `body` gets
    /// the scope, to spawn more.
    ///
    /// ```
    /// let order = std::sync::Mutex::new(Vec::new());
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// pool.scope_fifo(|s| {
    ///     for i in 0..4 {
    ///         let order = &order;
    ///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
    /// ```
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        spawn_into(&self.core, self, body);
    }

    /// As [`Scope::spawn_broadcast`].
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = filch::par::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let runs = AtomicUsize::new(0);
    /// pool.scope_fifo(|s| {
    ///     s.spawn_broadcast(|_, _| {
    ///         runs.fetch_add(1, Ordering::Relaxed);
    ///     });
    /// });
    /// assert_eq!(runs.into_inner(), 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        broadcast_into(&self.core, self, body);
    }
}

/// Runs `op` with a [`Scope`], into which it may spawn closures that borrow from outside the
/// scope; returns `op`'s value once every spawned closure finished; rayon's `scope`.
///
/// `op` runs on a worker of the current executor (else the global one): on this thread if
/// it is one. A panic in `op` or in a spawned closure is resumed here, once they all
/// finished.
///
/// ```
/// let words = vec!["fork", "join", "scope"];
/// let mut lengths = vec![0; words.len()];
/// filch::par::scope(|s| {
///     for (word, len) in words.iter().zip(lengths.iter_mut()) {
///         s.spawn(move |_| *len = word.len());
///     }
/// });
/// assert_eq!(lengths, [4, 4, 5]);
/// ```
#[cfg_attr(feature = "console", track_caller)]
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    let site = forkjoin::Site::here("par::scope");
    forkjoin::on_fork_join(current_or_global_state, site, move |t, _| {
        run_scope(Arc::clone(&t.state), Some(t), op)
    })
}

/// As [`scope`], with `op` run on the calling thread whatever it is; rayon's
/// `in_place_scope`. Off the workers, the spawned closures run on the current executor's
/// (else the global one's) workers while this thread waits.
///
/// ```
/// let mut total = 0;
/// filch::par::in_place_scope(|s| {
///     s.spawn(|_| total += 1);
/// });
/// assert_eq!(total, 1);
/// ```
#[cfg_attr(feature = "console", track_caller)]
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let site = forkjoin::Site::here("par::in_place_scope");
    forkjoin::in_place(site, move |t| match t {
        Some(t) => run_scope(Arc::clone(&t.state), Some(t), op),
        None => run_scope(current_or_global_state(), None, op),
    })
}

/// Opens a scope on `state` and completes it with body `op` on this thread.
fn run_scope<'scope, OP, R>(state: Arc<State>, t: Option<&FjThread>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let scope = Scope {
        core: ScopeCore::open(state, t, false),
        _marker: PhantomData,
    };
    scope.core.complete(t, || op(&scope))
}

/// As [`run_scope`], a FIFO scope.
fn run_scope_fifo<'scope, OP, R>(state: Arc<State>, t: Option<&FjThread>, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let scope = ScopeFifo {
        core: ScopeCore::open(state, t, true),
        _marker: PhantomData,
    };
    scope.core.complete(t, || op(&scope))
}

/// As [`scope`], with a [`ScopeFifo`]: on the scope's own thread, its closures run oldest
/// first; rayon's `scope_fifo`.
///
/// ```
/// let mut lengths = [0; 3];
/// filch::par::scope_fifo(|s| {
///     for (len, word) in lengths.iter_mut().zip(["a", "bb", "ccc"]) {
///         s.spawn_fifo(move |_| *len = word.len());
///     }
/// });
/// assert_eq!(lengths, [1, 2, 3]);
/// ```
#[cfg_attr(feature = "console", track_caller)]
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    let site = forkjoin::Site::here("par::scope_fifo");
    forkjoin::on_fork_join(current_or_global_state, site, move |t, _| {
        run_scope_fifo(Arc::clone(&t.state), Some(t), op)
    })
}

/// As [`in_place_scope`], with a [`ScopeFifo`]; rayon's `in_place_scope_fifo`.
///
/// ```
/// let mut total = 0;
/// filch::par::in_place_scope_fifo(|s| {
///     s.spawn_fifo(|_| total += 1);
/// });
/// assert_eq!(total, 1);
/// ```
#[cfg_attr(feature = "console", track_caller)]
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let site = forkjoin::Site::here("par::in_place_scope_fifo");
    forkjoin::in_place(site, move |t| match t {
        Some(t) => run_scope_fifo(Arc::clone(&t.state), Some(t), op),
        None => run_scope_fifo(current_or_global_state(), None, op),
    })
}

/// Runs `f` on a worker of the current executor (else the global one), some time later;
/// rayon's `spawn`. A panic in `f` is caught and reported by the panic hook (rayon's would
/// abort the process); it does not reach the caller, which has gone on.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// filch::par::spawn(move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    let state = current_or_global_state();
    forkjoin::spawn_call(
        &state,
        Root::new(),
        Box::new(move |_| {
            drop(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        }),
    );
}

/// Runs `f` on a worker of the current executor (else the global one), some time later;
/// rayon's `spawn_fifo`. Closures spawned from fork-join work or from outside the workers
/// travel through the executor's injector, so on one worker they start in the order they
/// were spawned (FIFO); filch's [`spawn`] travels the same way. A panic in `f` is reported
/// by the panic hook, as [`spawn`]'s.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// filch::par::spawn_fifo(move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn_fifo<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn(f);
}
