//! Faults around filch's IO: a peer that resets mid-write fails that connection only; a
//! listener out of descriptors (a child process with a low `RLIMIT_NOFILE`) reports, backs
//! off instead of spinning, and serves again once descriptors free up; 10k connections
//! opened and closed leak no descriptor, no task, no driver registration and no timer; IO objects and timers of a shut-down executor
//! error and panic clearly instead of hanging; an IO object made on one executor works
//! when polled from a plain thread or from another executor.

use std::io::{Read, Write};
use std::net::Shutdown;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{
    self, assert_child_passes, executor, is_child, panic_message, wait_until, watchdog,
};
use filch::net::{TcpListener, TcpStream};
use futures::{AsyncReadExt, AsyncWriteExt};

/// Open descriptors of this process.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Makes `stream` send a reset when closed (SO_LINGER with a zero timeout).
fn set_linger_zero(stream: &std::net::TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket descriptor and a pointer to a `linger` of the size we pass.
    let rc = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0, "setsockopt(SO_LINGER)");
}

#[test]
fn a_peer_reset_mid_write_fails_that_connection_only() {
    watchdog(60, "reset", || {
        let ex = executor(2);
        let listener = ex.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let server = ex.spawn(async move {
            // Connection 1: written to until the peer resets it.
            let (mut doomed, _) = listener.accept().await.unwrap();
            // Connection 2: a small echo, served after 1 failed.
            let (mut fine, _) = listener.accept().await.unwrap();
            let chunk = vec![9u8; 64 * 1024];
            let err = loop {
                if let Err(e) = doomed.write_all(&chunk).await {
                    break e;
                }
            };
            let mut buf = [0; 5];
            fine.read_exact(&mut buf).await.unwrap();
            fine.write_all(&buf).await.unwrap();
            err
        });
        let doomed = std::net::TcpStream::connect(addr).unwrap();
        let mut fine = std::net::TcpStream::connect(addr).unwrap();
        // Read a little, so the server is mid-write, then reset.
        let mut some = [0; 1024];
        (&doomed).read_exact(&mut some).unwrap();
        set_linger_zero(&doomed);
        drop(doomed);
        fine.write_all(b"hello").unwrap();
        let mut back = [0; 5];
        fine.read_exact(&mut back).unwrap();
        assert_eq!(&back, b"hello");
        let err = ex.block_on(server).unwrap();
        assert!(
            matches!(
                err.kind(),
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
            ),
            "{err:?}"
        );
    });
}

/// Runs in a child process: the other tests of this binary open and close descriptors
/// concurrently, which would blur the count.
#[test]
fn ten_thousand_connections_opened_and_closed_leak_no_descriptor() {
    assert_child_passes(
        module_path!(),
        "ten_thousand_child",
        &[],
        "10k scenario passed",
    );
}

#[test]
#[ignore = "run by ten_thousand_connections_opened_and_closed_leak_no_descriptor in a child process"]
fn ten_thousand_child() {
    if !is_child() {
        return;
    }
    watchdog(110, "10k connections", || {
        let ex = executor(2);
        let listener = ex.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let served = Arc::new(AtomicUsize::new(0));
        let s = Arc::clone(&served);
        drop(ex.spawn(async move {
            loop {
                let (mut conn, _) = listener.accept().await.unwrap();
                let s = Arc::clone(&s);
                drop(filch::spawn(async move {
                    let mut byte = [0; 1];
                    // Under a timeout, so that each connection also makes (and drops) a
                    // timer of the driver.
                    filch::time::timeout(Duration::from_secs(60), conn.read_exact(&mut byte))
                        .await
                        .expect("the client sends its byte at once")
                        .unwrap();
                    conn.write_all(&byte).await.unwrap();
                    // Wait for the client's close before closing ours, so that the
                    // client side holds the TIME_WAIT, not the listener's port.
                    let _ = conn.read(&mut byte).await;
                    s.fetch_add(1, Ordering::SeqCst);
                }));
            }
        }));
        // Warm up (lazily made descriptors: the global executor, test harness pipes).
        let one_round = |i: u32| {
            ex.block_on(async move {
                let mut c = TcpStream::connect(addr).await.unwrap();
                c.write_all(&[i as u8]).await.unwrap();
                let mut b = [0; 1];
                c.read_exact(&mut b).await.unwrap();
                assert_eq!(b[0], i as u8);
            })
        };
        one_round(0);
        wait_until(30, "the warm-up connection's close", || {
            served.load(Ordering::SeqCst) == 1
        });
        let before = open_fds();
        // What the executor holds between connections: the accept task (and its listener).
        let held = |stats: filch::Stats| (stats.alive_tasks, stats.io_sources, stats.timers);
        wait_until(
            30,
            "the warm-up connection's task to be dropped (a timer or waker left behind keeps it)",
            || ex.stats().alive_tasks == 1,
        );
        let baseline = held(ex.stats());
        assert_eq!(
            baseline,
            (1, 1, 0),
            "(alive tasks, IO sources, timers) before the loop: the accept task and its \
             listener only"
        );
        for i in 1..=10_000u32 {
            one_round(i);
        }
        wait_until(60, "every server task to see its client's close", || {
            served.load(Ordering::SeqCst) == 10_001
        });
        wait_until(30, "the descriptor count to settle", || {
            open_fds() <= before
        });
        assert_eq!(open_fds(), before, "descriptors leaked");
        let settle_by = std::time::Instant::now() + Duration::from_secs(30);
        while held(ex.stats()) != baseline && std::time::Instant::now() < settle_by {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(
            held(ex.stats()),
            baseline,
            "(alive tasks, IO sources, timers) 30 s after 10k connections closed: leaked"
        );
    });
    println!("10k scenario passed");
}

/// The parent of the descriptor-exhaustion scenario: runs it in a child, where the low
/// limit cannot disturb other tests.
#[test]
fn a_listener_out_of_descriptors_backs_off_and_serves_again() {
    assert_child_passes(
        module_path!(),
        "emfile_child",
        &[],
        "emfile scenario passed",
    );
}

#[test]
#[ignore = "run by a_listener_out_of_descriptors_backs_off_and_serves_again in a child process"]
fn emfile_child() {
    if !is_child() {
        return;
    }
    const CLIENTS: usize = 30;
    let ex = executor(1);
    let listener = ex.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    // The clients connect first: the kernel completes their handshakes into the backlog.
    let clients: Vec<std::net::TcpStream> = (0..CLIENTS)
        .map(|_| std::net::TcpStream::connect(addr).unwrap())
        .collect();
    // Now leave room for five accepted sockets only.
    let limit = (open_fds() + 5) as libc::rlim_t;
    let rl = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit.max(4096),
    };
    // SAFETY: a valid pointer to an `rlimit`.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &rl) }, 0);
    let held = Arc::new(Mutex::new(Vec::new()));
    let accepted = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(AtomicBool::new(false));
    {
        let (held, accepted, errors, release) = (
            Arc::clone(&held),
            Arc::clone(&accepted),
            Arc::clone(&errors),
            Arc::clone(&release),
        );
        drop(ex.spawn(async move {
            // An accept loop that logs and retries, as servers do.
            loop {
                match listener.accept().await {
                    Ok((conn, _)) => {
                        accepted.fetch_add(1, Ordering::SeqCst);
                        if !release.load(Ordering::SeqCst) {
                            held.lock().unwrap().push(conn);
                        }
                    }
                    Err(e) => {
                        assert_eq!(e.raw_os_error(), Some(libc::EMFILE), "{e}");
                        errors.fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
        }));
    }
    wait_until(30, "accept to run out of descriptors", || {
        errors.load(Ordering::SeqCst) > 0
    });
    let accepted_while_full = accepted.load(Ordering::SeqCst);
    assert!(accepted_while_full < CLIENTS);
    // Out of descriptors, the loop must back off: a spinning accept fails ~1e5-1e6 times a
    // second; with the back-off it is a few dozen. Generous bound, no timing precision.
    let errors_before = errors.load(Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(500));
    let errors_in_half_a_second = errors.load(Ordering::SeqCst) - errors_before;
    assert!(
        errors_in_half_a_second < 1000,
        "accept spun: {errors_in_half_a_second} EMFILE errors in 0.5 s"
    );
    // Free the descriptors: every waiting client is accepted.
    release.store(true, Ordering::SeqCst);
    held.lock().unwrap().clear();
    wait_until(30, "the listener to serve again", || {
        accepted.load(Ordering::SeqCst) == CLIENTS
    });
    drop(clients);
    println!("emfile scenario passed ({errors_in_half_a_second} errors in 0.5 s while full)");
}

#[test]
fn io_objects_of_a_shut_down_executor_return_an_error() {
    watchdog(60, "io after shutdown", || {
        let ex = executor(1);
        let (listener, stream, peer) = ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let stream = TcpStream::connect(addr).await.unwrap();
            let (peer, _) = listener.accept().await.unwrap();
            (listener, stream, peer)
        });
        // A plain thread waits on a read when the executor goes away: it gets an error.
        let waiting = std::thread::spawn(move || {
            let mut stream = stream;
            let mut buf = [0; 8];
            futures::executor::block_on(stream.read(&mut buf))
        });
        std::thread::sleep(Duration::from_millis(20));
        drop(ex);
        let err = waiting.join().unwrap().unwrap_err();
        assert!(err.to_string().contains("shut down"), "{err}");
        let err = futures::executor::block_on(listener.accept()).unwrap_err();
        assert!(err.to_string().contains("shut down"), "{err}");
        drop(peer);
    });
}

#[test]
fn timers_of_a_shut_down_executor_panic_with_a_clear_message() {
    watchdog(60, "timer after shutdown", || {
        let ex = executor(1);
        let pending = ex
            .block_on(async { Some(filch::time::sleep(Duration::from_secs(3600))) })
            .unwrap();
        let waiting = std::thread::spawn(move || futures::executor::block_on(pending));
        let fresh = ex
            .block_on(async { Some(filch::time::sleep(Duration::from_secs(3600))) })
            .unwrap();
        std::thread::sleep(Duration::from_millis(20));
        drop(ex);
        // The waiting thread is woken by the shutdown, and its poll panics.
        let payload = waiting.join().unwrap_err();
        assert!(
            panic_message(&*payload).contains("shut down"),
            "{}",
            panic_message(&*payload)
        );
        let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            futures::executor::block_on(fresh)
        }))
        .unwrap_err();
        assert!(panic_message(&*payload).contains("shut down"));
    });
}

#[test]
fn an_io_object_made_on_one_executor_works_from_a_plain_thread_and_another_executor() {
    watchdog(60, "cross-executor", || {
        let home = executor(1);
        let other = executor(1);
        let (listener, addr) = home.block_on(async {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let a = l.local_addr().unwrap();
            (l, a)
        });
        let client = std::thread::spawn(move || {
            let mut c = std::net::TcpStream::connect(addr).unwrap();
            c.write_all(b"abc").unwrap();
            let mut back = [0; 3];
            c.read_exact(&mut back).unwrap();
            c.shutdown(Shutdown::Both).unwrap();
            back
        });
        // Accepted by a plain thread, echoed by a task of another executor.
        let (conn, _) = futures::executor::block_on(listener.accept()).unwrap();
        other
            .block_on(other.spawn(async move {
                let mut conn = conn;
                let mut buf = [0; 3];
                conn.read_exact(&mut buf).await.unwrap();
                conn.write_all(&buf).await.unwrap();
            }))
            .unwrap();
        assert_eq!(&client.join().unwrap(), b"abc");
    });
}

/// A connected UDP socket that got an ICMP "port unreachable" reports the error once; the
/// next `recv_from` waits (it must not spin inside one poll, which would also keep a
/// `timeout` around it from ever firing).
#[test]
fn a_udp_socket_error_is_reported_once_and_later_reads_wait() {
    watchdog(30, "udp error spin", || {
        let ex = common::leak_checked(1);
        ex.block_on(async {
            // A port nobody listens on any more.
            let gone = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            let gone_addr = gone.local_addr().unwrap();
            drop(gone);
            let std_socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            std_socket.connect(gone_addr).unwrap();
            let socket = filch::net::UdpSocket::from_std(std_socket).unwrap();
            socket.send_to(b"anyone?", gone_addr).await.unwrap();
            let mut buf = [0; 16];
            let err = filch::time::timeout(Duration::from_secs(5), socket.recv_from(&mut buf))
                .await
                .expect("the ICMP error never came back")
                .unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::ConnectionRefused, "{err}");
            // Nothing else will arrive: the next receive waits, and the timeout ends it.
            let next =
                filch::time::timeout(Duration::from_millis(50), socket.recv_from(&mut buf)).await;
            assert!(next.is_err(), "a receive after the error returned {next:?}");
        });
    });
}

/// Every descriptor an executor opens (its epoll instance, its waker, its sockets) is
/// closed once it is dropped, after it served sockets, timers, JoinSets and abort handles
/// (an abort handle kept past the drop included). In a child process: other tests open
/// descriptors concurrently, which would blur the count.
#[test]
fn dropped_executors_close_every_descriptor() {
    assert_child_passes(
        module_path!(),
        "descriptors_child",
        &[],
        "descriptor scenario passed",
    );
}

#[test]
#[ignore = "run by dropped_executors_close_every_descriptor in a child process"]
fn descriptors_child() {
    if !is_child() {
        return;
    }
    watchdog(100, "descriptors", || {
        // With `tokio-context`, the first executor starts the process's tokio runtime, whose
        // descriptors are the process's for good: started before the count.
        #[cfg(feature = "tokio-context")]
        drop(executor(1));
        let before = open_fds();
        let mut kept = Vec::new();
        for _ in 0..3 {
            let ex = executor(2);
            let abort = ex.block_on(async {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let mut set = filch::JoinSet::new();
                set.spawn(async move {
                    let (mut conn, _) = listener.accept().await.unwrap();
                    let mut byte = [0; 1];
                    filch::time::timeout(Duration::from_secs(60), conn.read_exact(&mut byte))
                        .await
                        .unwrap()
                        .unwrap();
                    conn.write_all(&byte).await.unwrap();
                });
                let mut client = TcpStream::connect(addr).await.unwrap();
                client.write_all(b"x").await.unwrap();
                let mut byte = [0; 1];
                client.read_exact(&mut byte).await.unwrap();
                set.join_next().await.unwrap().unwrap();
                let udp = filch::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
                udp.send_to(b"u", udp.local_addr().unwrap()).await.unwrap();
                udp.recv_from(&mut [0; 4]).await.unwrap();
                // Tasks that wait (on a timer, on a socket) when the set and the executor go.
                set.spawn(filch::time::sleep(Duration::from_secs(3600)));
                let waiting = set.spawn(async move {
                    let _ = udp.recv_from(&mut [0; 4]).await;
                });
                filch::time::sleep(Duration::from_millis(10)).await;
                waiting
            });
            kept.push(abort);
            drop(ex);
        }
        wait_until(
            30,
            "the descriptors of the dropped executors to be closed",
            || open_fds() <= before,
        );
        assert_eq!(open_fds(), before, "descriptors left open");
        assert!(kept.iter().all(|a| a.is_finished()));
    });
    println!("descriptor scenario passed");
}

/// A connected pair of filch streams (client, accepted), made on `ex`.
fn tcp_pair(ex: &filch::Executor) -> (TcpStream, TcpStream) {
    ex.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (client, accepted) = futures::join!(TcpStream::connect(addr), listener.accept());
        (client.unwrap(), accepted.unwrap().0)
    })
}

/// One turn of the only worker delivers two sockets' events: the first socket's first
/// waiter has a panicking waker. Every other waiter of that socket and the task waiting on
/// the second socket are woken all the same (the events were taken from the OS, and do not
/// come again), and the worker lives on.
#[test]
fn a_panicking_io_waker_loses_no_other_wake_up() {
    watchdog(20, "a panicking IO waker", || {
        let ex = executor(1);
        let (a, b) = tcp_pair(&ex);
        let (c, d) = tcp_pair(&ex);
        let (a, c) = (Arc::new(a), Arc::new(c));
        let bad = Arc::new(common::PanickingWaker::default());
        let bad_waker = std::task::Waker::from(Arc::clone(&bad));
        let mut cx = std::task::Context::from_waker(&bad_waker);
        let mut bad_wait = Box::pin(a.readable());
        assert!(bad_wait.as_mut().poll(&mut cx).is_pending());
        let on_a = {
            let a = Arc::clone(&a);
            ex.spawn(async move { a.readable().await.unwrap() })
        };
        let on_c = {
            let c = Arc::clone(&c);
            ex.spawn(async move { c.readable().await.unwrap() })
        };
        // Both tasks wait (their poll is over) once a task spawned after them runs; the
        // writers' readiness is known before the worker is held up.
        ex.block_on(ex.spawn(async {})).unwrap();
        ex.block_on(async {
            b.writable().await.unwrap();
            d.writable().await.unwrap();
        });
        // The worker is busy while both bytes arrive, so that one turn delivers both.
        let gate = ex.spawn(async { std::thread::sleep(Duration::from_millis(100)) });
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(b.try_write(b"x").unwrap(), 1);
        assert_eq!(d.try_write(b"y").unwrap(), 1);
        ex.block_on(gate).unwrap();
        ex.block_on(on_a)
            .expect("the other waiter of the same socket was lost");
        ex.block_on(on_c)
            .expect("the task of the other socket was lost");
        assert_eq!(bad.calls(), 1, "the panicking waker called once");
        drop(bad_wait);
        assert_eq!(ex.block_on(ex.spawn(async { 7 })).unwrap(), 7);
    });
}
