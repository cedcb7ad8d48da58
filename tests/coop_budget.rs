//! The cooperative budget: on a single worker, a task that never returns `Pending` by
//! itself (looping on `consume_budget`, or reading a socket that is always ready) must let
//! a timer fire and another task run. Without the budget both tests hang (the watchdog
//! fails them); no timing is asserted.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{executor, watchdog};
use futures::AsyncReadExt;

#[test]
fn a_task_spinning_on_consume_budget_lets_a_timer_and_another_task_run() {
    watchdog(60, "consume_budget", || {
        let ex = executor(1);
        let stop = Arc::new(AtomicBool::new(false));
        let spinner = {
            let stop = Arc::clone(&stop);
            ex.spawn(async move {
                let mut rounds = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    filch::consume_budget().await;
                    rounds += 1;
                }
                rounds
            })
        };
        let other = ex.spawn(async { 7 });
        let sleeper = {
            let stop = Arc::clone(&stop);
            ex.spawn(async move {
                filch::time::sleep(Duration::from_millis(5)).await;
                stop.store(true, Ordering::SeqCst);
            })
        };
        assert_eq!(ex.block_on(other).unwrap(), 7);
        ex.block_on(sleeper).unwrap();
        assert!(ex.block_on(spinner).unwrap() > 0);
    });
}

#[test]
fn a_task_reading_an_always_ready_socket_lets_a_timer_fire() {
    watchdog(60, "always-ready socket", || {
        let ex = executor(1);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        // A writer thread that keeps the socket readable until the test stops it.
        let writer = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                use std::io::Write;
                let (mut conn, _) = listener.accept().unwrap();
                let chunk = [1u8; 64 * 1024];
                while !stop.load(Ordering::SeqCst) {
                    if conn.write_all(&chunk).is_err() {
                        break;
                    }
                }
            })
        };
        let reader = {
            let stop = Arc::clone(&stop);
            ex.spawn(async move {
                let mut stream = filch::net::TcpStream::connect(addr).await.unwrap();
                // Small reads, so the socket stays readable read after read.
                let mut buf = [0; 16];
                let mut total = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    total += stream.read(&mut buf).await.unwrap() as u64;
                }
                total
            })
        };
        let timer = {
            let stop = Arc::clone(&stop);
            ex.spawn(async move {
                filch::time::sleep(Duration::from_millis(5)).await;
                stop.store(true, Ordering::SeqCst);
            })
        };
        ex.block_on(timer).unwrap();
        assert!(ex.block_on(reader).unwrap() > 0);
        writer.join().unwrap();
    });
}
