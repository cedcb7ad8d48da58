//! `scope`, `in_place_scope` and `spawn`.
//!
//! INTERIM: a sequential stand-in with the final signatures.

use std::cell::RefCell;
use std::marker::PhantomData;

/// A scope in which closures borrowing from the caller's stack are spawned; see [`scope`].
pub struct Scope<'scope> {
    pending: RefCell<Vec<Box<dyn FnOnce(&Scope<'scope>) + Send + 'scope>>>,
    _invariant: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}

impl<'scope> Scope<'scope> {
    /// Spawns `body` into the scope: it runs before the scope returns.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.pending.borrow_mut().push(Box::new(body));
    }

    fn drain(&self) {
        loop {
            let next = self.pending.borrow_mut().pop();
            match next {
                Some(body) => body(self),
                None => return,
            }
        }
    }
}

/// Runs `op` with a [`Scope`]; returns once every closure spawned into it has finished.
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    in_place_scope(op)
}

/// As [`scope`], with `op` run on the calling thread.
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let s = Scope {
        pending: RefCell::new(Vec::new()),
        _invariant: PhantomData,
    };
    let r = op(&s);
    s.drain();
    r
}

/// Runs `f` on the current executor (else the global one), some time later.
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    drop(crate::spawn(async move { f() }));
}
