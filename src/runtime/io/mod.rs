//! The IO driver (`poller.rs`: the mio poller, the registered sources' slab, the eventfd
//! waker) and the readiness word of each source with its waiters (`scheduled_io.rs`). It
//! knows no timer and no executor: the driver stack (`runtime/driver/`) turns it.

pub(crate) mod poller;
pub(crate) mod scheduled_io;
