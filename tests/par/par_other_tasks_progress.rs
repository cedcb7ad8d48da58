//! While a loop of slow items occupies every worker, the executor's other tasks still run
//! promptly: a worker that has run the loop for a tick has a stand-in thread poll its tasks
//! and turn the IO driver and the timers in its place (awaiting a loop never blocks a worker,
//! and running one for seconds must not starve the others), so a task runs, a timer fires
//! and a socket's data is delivered within a few items.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::common::{named_executor, wait_until, watchdog};

/// The most items the loop may run, per worker, between a task's spawn and its poll: a
/// worker looks up every few items, and its stand-in takes its place once it has run the
/// loop for a tick (a few of these 1 ms items), so this is generous. Counted in items rather than timed: the machines are shared
/// and a timing bound would fail under load (or pass however the scheduler behaves).
const MAX_ITEMS_PER_WORKER: usize = 50;

/// A task spawned while the loop runs is polled within a few items.
fn check(workers: usize, item: Duration, n: usize) {
    items_during(workers, item, n, |ex| {
        ex.block_on(ex.spawn(async {}))
            .expect("the probe task failed");
    });
}

#[test]
fn a_task_runs_during_a_loop_of_millisecond_items() {
    watchdog(60, "a_task_runs_during_a_loop_of_millisecond_items", || {
        check(2, Duration::from_millis(1), 3000);
    });
}

#[test]
fn a_task_runs_during_a_loop_on_one_worker() {
    watchdog(60, "a_task_runs_during_a_loop_on_one_worker", || {
        check(1, Duration::from_millis(1), 1500);
    });
}

/// What a probe measures while a loop of `item`-long items keeps every worker busy: the
/// items the loop ran between the probe's start and its end.
fn items_during(workers: usize, item: Duration, n: usize, mut probe: impl FnMut(&filch::Executor)) {
    let ex = named_executor(workers, "progress");
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    let lp = ex.spawn(filch::par_range(0..n, move |_| {
        c.fetch_add(1, Ordering::Relaxed);
        thread::sleep(item);
    }));
    wait_until(10, "the loop to start", || {
        calls.load(Ordering::Relaxed) > 0
    });
    thread::sleep(Duration::from_millis(20));
    // A first probe, not counted, makes what the probe sets up (a listener, a connection).
    probe(&ex);
    let mut waits = [0; 5];
    for wait in &mut waits {
        let before = calls.load(Ordering::SeqCst);
        probe(&ex);
        *wait = calls.load(Ordering::SeqCst) - before;
    }
    let ran = calls.load(Ordering::Relaxed);
    assert!(
        ran < n,
        "the loop ended before the probes did; make it longer (it ran all {n} items)"
    );
    // The median probe: a busy machine may preempt the probing thread itself (the test's, or
    // the client's) during one probe while the loop's sleeping items go on; an executor that
    // does not serve its other duties makes every probe wait.
    waits.sort_unstable();
    let median = waits[waits.len() / 2];
    assert!(
        median <= MAX_ITEMS_PER_WORKER * workers,
        "{workers} workers, {item:?} items: probes waited while {waits:?} items ran (loop at \
         {ran} of {n} items)"
    );
    // The probes are done: stop the loop rather than wait for its last items (a loop
    // stops when its task is aborted: `par_drop_stops.rs`).
    lp.abort();
    match ex.block_on(lp) {
        Ok(()) => panic!("the loop ended before the probes did (it ran all {n} items)"),
        Err(e) => assert!(e.is_cancelled(), "the loop's task failed: {e:?}"),
    }
}

/// A 1 ms timer set while every worker runs a loop fires within a few items.
#[test]
fn a_timer_fires_during_a_loop_of_millisecond_items() {
    watchdog(60, "timer during a loop", || {
        items_during(2, Duration::from_millis(1), 4000, |ex| {
            // Made inside the task, so that the timer is this executor's.
            ex.block_on(ex.spawn(async {
                filch::time::sleep(Duration::from_millis(1)).await;
            }))
            .unwrap();
        });
    });
}

/// A TCP echo served by a task of the executor answers a plain thread within a few items
/// while every worker runs a loop.
#[test]
fn a_socket_is_served_during_a_loop_of_millisecond_items() {
    use std::io::{Read, Write};
    watchdog(60, "socket during a loop", || {
        let mut client = None;
        items_during(2, Duration::from_millis(1), 4000, |ex| {
            let client = client.get_or_insert_with(|| {
                let listener = ex
                    .block_on(filch::net::TcpListener::bind("127.0.0.1:0"))
                    .unwrap();
                let addr = listener.local_addr().unwrap();
                drop(ex.spawn(async move {
                    use futures::{AsyncReadExt, AsyncWriteExt};
                    let (mut conn, _) = listener.accept().await.unwrap();
                    let mut byte = [0; 1];
                    while conn.read_exact(&mut byte).await.is_ok() {
                        conn.write_all(&byte).await.unwrap();
                    }
                }));
                std::net::TcpStream::connect(addr).unwrap()
            });
            client.write_all(b"p").unwrap();
            let mut byte = [0; 1];
            client.read_exact(&mut byte).unwrap();
        });
    });
}
