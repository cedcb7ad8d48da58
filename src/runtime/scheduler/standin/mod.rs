//! Stand-ins: a thread that takes the place of a worker whose poll holds it, as Go's
//! runtime hands a processor to another thread when its thread is stuck in a system call,
//! and tokio's `block_in_place` hands its worker's core to another thread.
//!
//! filch's promise is one pool: whatever a task's poll does (a CPU loop, a blocking system
//! call, a `join`, a parallel iterator of any length, many short calls back to back,
//! `block_in_place`), its worker's other duties go on once the poll has held it for about a
//! tick. The parts:
//! - `hold.rs`: each worker's *hold word*, which says which poll runs there and whether it
//!   is held, and the epoch ticker's scan of it every tick: a poll the ticker sees at two
//!   ticks in a row (1-2 ms old) is *held*, and its worker's stand-in takes its place;
//!   `task::block_in_place` declares its poll held at once; `hand_over.rs`, the ticker's scan
//!   (the executor's tick hook) and what a claim and a held poll's end do;
//! - `slots.rs`: each worker's stand-in slot and its phases (dormant, active, releasing), the
//!   stand-in's booking as the worker in the notifier, and the hand-off of a slot to a new
//!   server;
//! - `serve.rs`: the stand-in thread's body: it polls the tasks that other threads can reach
//!   (the worker's inbox, the injector, every deque and inbox), found by the worker loop's
//!   own search (`worker/search.rs`), turns the driver, and parks as the worker.
//!
//! A held poll ends with its worker's stand-in released (`Hold::end` tells the worker), so
//! that the worker and its stand-in never both sleep as the worker. While its poll is held,
//! the tasks the worker wakes or spawns go to the injector, and at the first such wake its
//! LIFO slot and deferred list move onto its deque (`worker/schedule.rs`); those two are
//! private to the worker's thread, so a task that the holding poll itself woke into the LIFO
//! slot before the hand-over, or that yielded on that worker before the poll began, waits
//! until the poll wakes or spawns a task, calls into fork-join, or returns.
//!
//! A stand-in polls tasks; a task it polls may call `block_in_place`, `join`, `scope` or a
//! parallel iterator: the stand-in then hands its slot to a new server first (`serve.rs`,
//! `hand_off_while`), so the slot stays served while that call blocks the stand-in's thread;
//! so does a poll of the stand-in that holds it for a tick (the ticker hands the slot on),
//! and a stand-in that takes a whole call from the board while every worker is in a poll
//! that is no fork-join work (`serve.rs`, `run_a_call`: such a call would wait for a poll
//! that blocks). The threads that poll tasks are thus at most the workers, one stand-in per
//! held worker, and one thread per such call or held poll of a stand-in while it lasts.
//!
//! **Invariants:** a slot is activated only for a held poll (the ticker's claim of the hold
//! word, or `block_in_place`'s), under the slot's lock, and released only by its worker's
//! thread at the end of that poll, under the same lock; a stand-in is booked in the notifier
//! under its worker's index only while its slot is active (`slots.rs`), and the worker books
//! itself there only outside a poll, after the release: never both at once.

pub(crate) mod hand_over;
pub(crate) mod hold;
#[cfg(all(test, loom))]
mod loom_model;
pub(crate) mod serve;
pub(crate) mod slots;

pub(crate) use slots::StandIns;
