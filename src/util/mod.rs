//! The leaves: helpers that know no executor, task or driver. `asym_fence.rs` is the
//! barrier pair of a handshake whose one side runs often and the other rarely; `sync.rs` is the atomics and
//! lock shim that loom replaces (every atomic that filch declares comes from it, except in
//! statics and signal-handler code); `rng.rs` the one pseudo-random generator; `run_once.rs` a closure called once through a
//! `dyn FnMut` (so that slow paths are compiled once, not per closure type); `wake_all.rs` calls
//! every waker or closure of a list even if one panics, and drops values whose destructor
//! may panic.

pub(crate) mod asym_fence;
pub(crate) mod fault;
pub(crate) mod rng;
pub(crate) mod run_once;
pub(crate) mod sync;
pub(crate) mod wake_all;
