//! A task that resolves an address in `filch::net` blocks its worker for the whole lookup
//! (std's `ToSocketAddrs` runs on the calling thread), but the work queued privately on that
//! worker does not wait for it: before the lookup the worker hands its LIFO slot's task and
//! its yielded tasks to where the other workers can take them, and wakes one (issue 10).
//!
//! Scenario, on 2 workers: task A gives the other worker time to run out of work and park,
//! then queues a task privately on its own worker, either by spawning B (which goes to the
//! LIFO slot) or, as the task P that spawned A, by yielding (P goes to the yielded list).
//! A then calls `TcpStream::connect` or `UdpSocket::send_to` with [`SlowName`], whose
//! `to_socket_addrs` blocks, as a slow DNS lookup does, until the queued task has run and
//! opened its gate, and then resolves to a socket bound on 127.0.0.1. The only worker that
//! can run the queued task is the parked one. After a generous 10 s the lookup gives up with
//! an error that names the stranded task, and the test fails with it.

mod common;

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use common::{build_executor, thread_name, watchdog};
use filch::net::{TcpStream, UdpSocket};
use filch::WakePolicy;

/// How long the lookup waits for the queued task before it reports it as stranded.
const PATIENCE: Duration = Duration::from_secs(10);

/// How long task A waits before it queues work, so that the other worker has run out of
/// work and parked (an idle worker searches for at most tens of microseconds): then only the
/// hand-off's wake-up can bring that worker to the queued task. The outcome does not depend
/// on it: a worker still searching would find the handed-off task without a wake-up.
const LET_THE_OTHER_WORKER_PARK: Duration = Duration::from_millis(50);

/// Opened once by the queued task; records the thread it ran on.
#[derive(Default)]
struct Gate {
    opened_on: Mutex<Option<String>>,
    cond: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.opened_on.lock().unwrap() = Some(thread_name());
        self.cond.notify_all();
    }

    /// The opener's thread, once the gate is open; `None` after [`PATIENCE`].
    fn wait(&self) -> Option<String> {
        let opened = self.opened_on.lock().unwrap();
        let (opened, _) = self
            .cond
            .wait_timeout_while(opened, PATIENCE, |o| o.is_none())
            .unwrap();
        opened.clone()
    }

    fn opener(&self) -> Option<String> {
        self.opened_on.lock().unwrap().clone()
    }
}

/// A name whose lookup blocks the calling thread until `gate` opens, then resolves to
/// `addr`; records the thread it was resolved on.
struct SlowName {
    gate: Arc<Gate>,
    addr: SocketAddr,
    /// What was queued, for the error message.
    queued: Queued,
    resolved_on: Arc<Mutex<Option<String>>>,
}

impl ToSocketAddrs for SlowName {
    type Iter = std::option::IntoIter<SocketAddr>;

    fn to_socket_addrs(&self) -> io::Result<Self::Iter> {
        *self.resolved_on.lock().unwrap() = Some(thread_name());
        match self.gate.wait() {
            Some(_) => Ok(Some(self.addr).into_iter()),
            None => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "{}, queued on the resolving task's worker, did not run while the lookup \
                     blocked that worker for {PATIENCE:?} although the other worker was idle: \
                     it is stranded in the worker's private queue",
                    self.queued.task()
                ),
            )),
        }
    }
}

/// How the work is queued privately on A's worker right before the lookup.
#[derive(Clone, Copy, Debug)]
enum Queued {
    /// A spawns B: B is in the LIFO slot.
    Spawned,
    /// P spawns A (into the LIFO slot, so it runs next) and yields: P is in the yielded
    /// list while A runs.
    Yielded,
}

impl Queued {
    fn task(self) -> &'static str {
        match self {
            Queued::Spawned => "task B, spawned by the resolving task (its worker's LIFO slot)",
            Queued::Yielded => "task P, which yielded (its worker's yielded list)",
        }
    }
}

/// The call that resolves the name.
#[derive(Clone, Copy, Debug)]
enum Call {
    TcpConnect,
    UdpSendTo,
}

const DATAGRAM: &[u8] = b"resolved";

/// Task A's call: connects to, or sends [`DATAGRAM`] to, `name`.
async fn call_with(call: Call, sender: Option<UdpSocket>, name: SlowName) -> io::Result<()> {
    match call {
        Call::TcpConnect => {
            let want = name.addr;
            let stream = TcpStream::connect(name).await?;
            assert_eq!(stream.peer_addr()?, want, "connected to another address");
        }
        Call::UdpSendTo => {
            let sender = sender.expect("bound before the work was queued");
            let sent = sender.send_to(DATAGRAM, name).await?;
            assert_eq!(sent, DATAGRAM.len(), "a partial datagram");
        }
    }
    Ok(())
}

fn lookup_does_not_strand_private_work(policy: WakePolicy, queued: Queued, call: Call) {
    let what = format!("{policy:?}, {queued:?}, {call:?}");
    watchdog(60, &what.clone(), move || {
        let ex = build_executor(2, Some(policy), Some("resolve"));
        // The target: connections wait in the backlog, datagrams in the receive buffer.
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_read_timeout(Some(PATIENCE)).unwrap();
        let addr = match call {
            Call::TcpConnect => tcp.local_addr().unwrap(),
            Call::UdpSendTo => udp.local_addr().unwrap(),
        };
        let gate = Arc::new(Gate::default());
        let resolved_on = Arc::new(Mutex::new(None));
        let name = SlowName {
            gate: Arc::clone(&gate),
            addr,
            queued,
            resolved_on: Arc::clone(&resolved_on),
        };
        let opener = Arc::clone(&gate);
        let result = ex
            .block_on(ex.spawn(async move {
                thread::sleep(LET_THE_OTHER_WORKER_PARK);
                // Bound before anything is queued: `bind` resolves (a literal) too.
                let sender = match call {
                    Call::UdpSendTo => Some(UdpSocket::bind("127.0.0.1:0").await?),
                    Call::TcpConnect => None,
                };
                match queued {
                    Queued::Spawned => {
                        let b = filch::spawn(async move { opener.open() });
                        let result = call_with(call, sender, name).await;
                        b.await?;
                        result
                    }
                    Queued::Yielded => {
                        let a = filch::spawn(call_with(call, sender, name));
                        filch::yield_now().await;
                        opener.open();
                        a.await?
                    }
                }
            }))
            .expect("the scenario's task failed");
        if let Err(e) = result {
            panic!("{what}: {e}");
        }
        let resolved_on = resolved_on.lock().unwrap().clone().expect("never resolved");
        let opened_on = gate
            .opener()
            .expect("the gate is open once the lookup succeeded");
        assert_ne!(
            resolved_on, opened_on,
            "{what}: the queued task ran on the worker that was blocked in the lookup"
        );
        match call {
            Call::TcpConnect => {
                tcp.accept().expect("the connection is not in the backlog");
            }
            Call::UdpSendTo => {
                let mut buf = [0; 16];
                let (n, _) = udp
                    .recv_from(&mut buf)
                    .expect("the datagram did not arrive");
                assert_eq!(&buf[..n], DATAGRAM);
            }
        }
    });
}

#[test]
fn connect_does_not_strand_the_lifo_slot_last_worker() {
    lookup_does_not_strand_private_work(WakePolicy::LastWorker, Queued::Spawned, Call::TcpConnect);
}

#[test]
fn connect_does_not_strand_the_lifo_slot_current_worker() {
    lookup_does_not_strand_private_work(
        WakePolicy::CurrentWorker,
        Queued::Spawned,
        Call::TcpConnect,
    );
}

#[test]
fn connect_does_not_strand_yielded_tasks_last_worker() {
    lookup_does_not_strand_private_work(WakePolicy::LastWorker, Queued::Yielded, Call::TcpConnect);
}

#[test]
fn connect_does_not_strand_yielded_tasks_current_worker() {
    lookup_does_not_strand_private_work(
        WakePolicy::CurrentWorker,
        Queued::Yielded,
        Call::TcpConnect,
    );
}

#[test]
fn send_to_does_not_strand_the_lifo_slot_last_worker() {
    lookup_does_not_strand_private_work(WakePolicy::LastWorker, Queued::Spawned, Call::UdpSendTo);
}

#[test]
fn send_to_does_not_strand_the_lifo_slot_current_worker() {
    lookup_does_not_strand_private_work(
        WakePolicy::CurrentWorker,
        Queued::Spawned,
        Call::UdpSendTo,
    );
}
