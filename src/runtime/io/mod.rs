//! The IO driver (`driver.rs`: the mio poller, the registered sources' slab, the eventfd
//! waker) and the readiness word of each source with its waiters (`scheduled_io.rs`). It
//! knows no timer and no executor: the driver stack (`runtime/driver/`) turns it.

pub(crate) mod driver;
pub(crate) mod scheduled_io;
