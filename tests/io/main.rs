//! filch's IO driver, one module per scenario: TCP, UDP and Unix sockets, address
//! resolution, faults (resets, descriptor exhaustion, leaks, shut-down executors), and signals.

#[path = "../common/mod.rs"]
mod common;

mod io_faults;
mod net_resolve;
mod net_tcp;
mod net_tcp_split;
mod net_udp_try_poll;
mod net_udp_unix;
#[cfg(unix)]
mod net_uds_datagram;
#[cfg(unix)]
mod net_uds_stream;
mod signals;
