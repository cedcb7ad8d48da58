//! The thread-safety promises of the public types (`Send`, `Sync`, `Unpin`), checked at
//! compile time.

use filch::{
    net, signal, time, AbortHandle, Executor, Handle, JoinError, JoinHandle, JoinSet, Stats,
    TryCurrentError,
};

/// The thread-safety promises of the public types, checked at compile time (the test only
/// has to build).
#[test]
fn the_public_types_keep_their_thread_safety_promises() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    fn unpin<T: Unpin>() {}
    send_sync::<Handle>();
    send_sync::<Executor>();
    send_sync::<JoinError>();
    send::<JoinHandle<()>>();
    unpin::<JoinHandle<()>>();
    send_sync::<Stats>();
    send_sync::<AbortHandle>();
    send::<JoinSet<()>>();
    send_sync::<time::Sleep>();
    unpin::<time::Sleep>();
    send_sync::<time::Interval>();
    send_sync::<time::Elapsed>();
    send_sync::<time::Instant>();
    send_sync::<net::TcpListener>();
    send_sync::<net::TcpStream>();
    send_sync::<net::UdpSocket>();
    #[cfg(unix)]
    send_sync::<net::UnixStream>();
    #[cfg(unix)]
    send_sync::<net::UnixListener>();
    #[cfg(unix)]
    send_sync::<net::UnixDatagram>();
    send_sync::<net::OwnedReadHalf>();
    send_sync::<net::OwnedWriteHalf>();
    unpin::<net::OwnedReadHalf>();
    unpin::<net::OwnedWriteHalf>();
    send_sync::<net::ReadHalf<'static>>();
    send_sync::<net::WriteHalf<'static>>();
    send_sync::<net::ReuniteError>();
    #[cfg(unix)]
    send_sync::<net::unix::OwnedReadHalf>();
    #[cfg(unix)]
    send_sync::<net::unix::OwnedWriteHalf>();
    #[cfg(unix)]
    send_sync::<net::unix::ReadHalf<'static>>();
    #[cfg(unix)]
    send_sync::<net::unix::WriteHalf<'static>>();
    send_sync::<TryCurrentError>();
    #[cfg(unix)]
    send_sync::<signal::unix::Signal>();
    #[cfg(unix)]
    unpin::<signal::unix::Signal>();
    #[cfg(feature = "axum")]
    {
        send::<filch::axum::Serve>();
        send::<filch::axum::WithGracefulShutdown<std::future::Pending<()>>>();
        unpin::<filch::axum::WithGracefulShutdown<std::future::Pending<()>>>();
    }
}

/// The future of `Signal::recv` is `Send`: it can be awaited in a spawned task.
#[cfg(unix)]
#[allow(dead_code)]
fn signal_futures_are_send(signal: &mut signal::unix::Signal) {
    fn send<T: Send>(_: &T) {}
    send(&signal.recv());
    send(&signal::ctrl_c());
}
