//! [`scope`], [`in_place_scope`] and [`Scope`]: closures spawned into a scope may borrow
//! what outlives it; the scope returns once they all finished. And [`spawn`], rayon's
//! fire-and-forget closure.
//!
//! The scope's core (its node, the spawns, the wait) is `runtime/scheduler/forkjoin/scope_core.rs`.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::executor::global::current_or_global_state;
use crate::runtime::scheduler::forkjoin::{self, Body, FjThread, Root, ScopeCore};
use crate::runtime::scheduler::state::State;

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

/// A pointer to a scope that a spawned closure carries to another thread.
struct ScopeRef<'scope>(*const Scope<'scope>);

// SAFETY: `Scope` is `Sync`; the pointer is dereferenced only while the scope waits for the
// closure that carries it (`Scope::spawn`).
unsafe impl Send for ScopeRef<'_> {}

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
        let scope = ScopeRef(self);
        let job: Box<dyn FnOnce() + Send + 'scope> = Box::new(move || {
            let scope = scope;
            // SAFETY: the scope outlives the closure: `ScopeCore::complete` waits for every
            // spawned closure before the scope's frame is left.
            body(unsafe { &*scope.0 })
        });
        // SAFETY: only the lifetime changes; as above, the scope waits for the closure, so
        // nothing it borrows for `'scope` is gone while it may run.
        let job: Body = unsafe { std::mem::transmute(job) };
        self.core.spawn(job);
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
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    forkjoin::on_fork_join(current_or_global_state, move |t, _| {
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
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    forkjoin::in_place(move |t| match t {
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
        core: ScopeCore::open(state, t),
        _marker: PhantomData,
    };
    scope.core.complete(t, || op(&scope))
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
