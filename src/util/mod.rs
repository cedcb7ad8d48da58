//! The leaves: helpers that know no executor, task or driver. `sync.rs` is the atomics and
//! lock shim that loom replaces (every atomic that filch declares comes from it, except in
//! statics and signal-handler code); `rng.rs` the one pseudo-random generator; `steal.rs` the retry of a steal that met
//! contention; `wake_all.rs` calls
//! every waker or closure of a list even if one panics, and drops values whose destructor
//! may panic.

pub(crate) mod fault;
pub(crate) mod rng;
pub(crate) mod steal;
pub(crate) mod sync;
pub(crate) mod wake_all;
