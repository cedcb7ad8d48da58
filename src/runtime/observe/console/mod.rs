//! tokio-console's view of filch (feature `console`): the `tracing` spans and events that
//! console-subscriber's layer recognises, in the vocabulary tokio emits them in, so that the
//! stock `console_subscriber::init()` and the stock `tokio-console` show a filch program.
//!
//! - `task_span.rs`: a task's `runtime.spawn` span (its id, name, kind and spawn location),
//!   entered around each of its polls;
//! - `waker.rs`: the waker a traced poll hands its future, which reports each clone, drop,
//!   wake and wake-by-ref of the task's wakers as a `runtime::waker` event;
//! - `resource.rs`: a `runtime.resource` span with one `runtime.resource.async_op` span, and
//!   the `runtime::resource::poll_op` and `runtime::resource::state_update` events of its
//!   polls (timers and IO sources are resources);
//! - `par_call.rs`: a parallel call (`par::run`, an awaited loop, a top-level `join`, `scope`
//!   or parallel iterator) as a resource and async op of the task that makes it, with its
//!   call site and the count of its pieces taken from the board.
//!
//! The names console-subscriber reads (console-subscriber 0.5, its layer and its visitors):
//! spans named `runtime.spawn`, `runtime.resource`, `runtime.resource.async_op`; events whose
//! target is `runtime::waker` (fields `op`, `task.id`: the task span's id),
//! `runtime::resource::poll_op` (`op_name`, `is_ready`) and
//! `runtime::resource::state_update` (a field with its `.op` and `.unit`); locations as
//! `loc.file`, `loc.line`, `loc.col`. Its default filter keeps spans whose names start with
//! `runtime.` and events whose targets start with `runtime`.
//!
//! **Invariants:** every span here is made at TRACE level, so with no subscriber interested
//! each costs the check of a disabled callsite and nothing is allocated; a task's span closes
//! when its future is dropped (the console then reports the task dropped); a waker event
//! names the span of the task the waker wakes.

pub(crate) mod par_call;
pub(crate) mod resource;
pub(crate) mod task_span;
pub(crate) mod waker;
