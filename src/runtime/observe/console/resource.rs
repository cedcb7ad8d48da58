//! [`Resource`]: something tasks wait on, as console-subscriber sees it: a `runtime.resource`
//! span (its `concrete_type`, `kind` and, where known, location) with one
//! `runtime.resource.async_op` span made inside it (its `source`), and, for each poll, a
//! `runtime::resource::poll_op` event (`op_name`, `is_ready`) emitted with the resource, its
//! async op and the polling task's span all entered: that is how the console ties the
//! resource to the task (console-subscriber's `on_event` wants all three on its stack).
//! Attributes (a timer's duration, a parallel call's pieces) are
//! `runtime::resource::state_update` events inside the resource span.
//!
//! Timers (`time/mod.rs`: `Sleep`, and so `interval` and `timeout`) and IO sources
//! (`runtime/driver/source.rs`: every socket of `filch::net`) are resources; so is each traced
//! parallel call (`par_call.rs`).
//!
//! **Invariant:** with no subscriber interested both spans are disabled, and every method is
//! one check of that.

use std::panic::Location;
use std::task::Poll;

use tracing::Span;

/// A resource and its one async op (module docs).
pub(crate) struct Resource {
    resource: Span,
    op: Span,
}

impl Resource {
    /// A resource of type `concrete_type` and kind `kind` (`timer` is the console's own; any
    /// other is shown as written), made at `at` where that is known, whose polls are the
    /// async op `source`.
    pub(crate) fn new(
        concrete_type: &'static str,
        kind: &'static str,
        source: &'static str,
        at: Option<&'static Location<'static>>,
    ) -> Resource {
        let resource = match at {
            Some(at) => tracing::trace_span!(
                target: "runtime::resource",
                parent: None,
                "runtime.resource",
                concrete_type = concrete_type,
                kind = kind,
                loc.file = at.file(),
                loc.line = at.line(),
                loc.col = at.column(),
            ),
            None => tracing::trace_span!(
                target: "runtime::resource",
                parent: None,
                "runtime.resource",
                concrete_type = concrete_type,
                kind = kind,
            ),
        };
        if resource.is_disabled() {
            return Resource::none();
        }
        // Made inside the resource span: console-subscriber takes the resource of an async
        // op from the spans entered when the op's span is made.
        let op = resource.in_scope(|| {
            tracing::trace_span!(
                target: "runtime::resource::async_op",
                "runtime.resource.async_op",
                source = source,
            )
        });
        Resource { resource, op }
    }

    /// No resource.
    pub(crate) fn none() -> Resource {
        Resource {
            resource: Span::none(),
            op: Span::none(),
        }
    }

    /// Whether a subscriber sees this resource.
    #[inline]
    pub(crate) fn is_traced(&self) -> bool {
        !self.resource.is_disabled()
    }

    /// Runs `poll`, a poll of the resource named `op_name`, inside the resource and its async
    /// op, and reports it with its readiness.
    #[inline]
    pub(crate) fn poll_op<T>(
        &self,
        op_name: &'static str,
        poll: impl FnOnce() -> Poll<T>,
    ) -> Poll<T> {
        if !self.is_traced() {
            return poll();
        }
        let _resource = self.resource.enter();
        let _op = self.op.enter();
        let polled = poll();
        tracing::trace!(
            target: "runtime::resource::poll_op",
            op_name = op_name,
            is_ready = polled.is_ready(),
        );
        polled
    }

    /// Sets the resource's `duration` attribute (a timer's), in milliseconds.
    pub(crate) fn set_duration_ms(&self, ms: u64) {
        if self.is_traced() {
            self.resource.in_scope(|| {
                tracing::trace!(
                    target: "runtime::resource::state_update",
                    duration = ms,
                    duration.unit = "ms",
                    duration.op = "override",
                );
            });
        }
    }

    /// Sets the resource's `pieces_taken` attribute (a parallel call's pieces that threads
    /// took from the board).
    pub(crate) fn set_pieces_taken(&self, pieces: u64) {
        if self.is_traced() {
            self.resource.in_scope(|| {
                tracing::trace!(
                    target: "runtime::resource::state_update",
                    pieces_taken = pieces,
                    pieces_taken.op = "override",
                );
            });
        }
    }
}
