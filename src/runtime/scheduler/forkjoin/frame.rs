//! A join's frame as its thread's list links it ([`FrameLinks`]: `thread.rs` keeps the list,
//! `publish.rs` publishes its half, `exposed.rs` shows it to the ticker).
//!
//! **Invariant:** a frame's `lineage` points to a node that lives while the frame is linked,
//! and its `published` is set once, by the one thread that publishes it, and taken back once
//! by its join (`join_frame.rs`).

use std::cell::Cell;
use std::ptr;

use super::node::Node;

/// The links of one join's frame in its thread's list, and how to publish it.
pub(crate) struct FrameLinks {
    pub(super) older: Cell<*const FrameLinks>,
    pub(super) younger: Cell<*const FrameLinks>,
    /// Runs the frame's second half: see [`Half`](super::node::Half).
    pub(super) run: unsafe fn(*const (), bool, bool),
    /// The thread's lineage when the frame was linked (`Arc::as_ptr`, not counted: the
    /// lineage outlives the frame, module invariants), null at the top of the call.
    pub(super) lineage: Cell<*const Node>,
    /// The frame's node once it was published (from `Arc::into_raw`: one count, which the
    /// frame's join takes back), else null.
    pub(crate) published: Cell<*const Node>,
}

impl FrameLinks {
    /// The links of a frame whose half `run` runs; the frame starts with them
    /// (`#[repr(C)]`), so the links' address is the frame's.
    pub(crate) fn new(run: unsafe fn(*const (), bool, bool)) -> FrameLinks {
        FrameLinks {
            older: Cell::new(ptr::null()),
            younger: Cell::new(ptr::null()),
            run,
            lineage: Cell::new(ptr::null()),
            published: Cell::new(ptr::null()),
        }
    }
}
