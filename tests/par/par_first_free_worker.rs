//! A task woken by an IO event or a timer while every worker runs a loop runs on the first
//! worker slot that is free, not only once the worker it last ran on is: that worker may stay
//! inside an item for the item's whole cost. The other worker, which reaches the end of its
//! items, looks up, and once it has run the loop for a tick its stand-in takes its place: it
//! turns the driver, and polls the woken task wherever it waits (its own worker's inbox, the
//! injector, or the other worker's inbox).
//!
//! The loop's items wait at a gate that the test opens one item at a time, and only for the
//! worker that is not the task's last: the task's last worker stays inside its first item
//! until the test ends. If the woken task waited for its last worker, it would never run, and
//! the test fails after ten seconds with a message. The loop must also have spread to both
//! workers while one of them was inside its first item (a loop offers half of its work when
//! it starts).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::io::{ErrorKind, Read, Write};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use crate::common::{named_executor, wait_until, watchdog};

/// Holds each item until the test lets its thread pass.
#[derive(Default)]
struct Gate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    /// Items each thread may still finish.
    permits: HashMap<ThreadId, usize>,
    /// Threads inside an item now.
    inside: HashSet<ThreadId>,
    /// Every item passes (at the end of the test).
    open: bool,
}

impl Gate {
    /// The body of every item.
    fn pass(&self) {
        let me = thread::current().id();
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.inside.insert(me);
        self.changed.notify_all();
        while !st.open && st.permits.get(&me).copied().unwrap_or(0) == 0 {
            st = self.changed.wait(st).unwrap();
        }
        if !st.open {
            *st.permits.get_mut(&me).unwrap() -= 1;
        }
        st.inside.remove(&me);
    }

    /// Waits until `n` threads are inside an item, and names them.
    fn wait_inside(&self, n: usize) -> HashSet<ThreadId> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut st = self.state.lock().unwrap();
        while st.inside.len() < n {
            assert!(
                Instant::now() < deadline,
                "timed out after 10 s waiting for {n} workers inside an item"
            );
            st = self
                .changed
                .wait_timeout(st, Duration::from_millis(10))
                .unwrap()
                .0;
        }
        st.inside.clone()
    }

    fn grant(&self, thread: ThreadId) {
        *self
            .state
            .lock()
            .unwrap()
            .permits
            .entry(thread)
            .or_default() += 1;
        self.changed.notify_all();
    }

    fn open(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).open = true;
        self.changed.notify_all();
    }
}

/// Opens its gate when dropped.
struct OpenOnDrop(Arc<Gate>);

impl Drop for OpenOnDrop {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// Wraps `fut` so that `last` names the thread of its latest poll.
fn recording_thread<F: Future + Send + 'static>(
    last: Arc<Mutex<Option<ThreadId>>>,
    fut: F,
) -> impl Future<Output = F::Output> + Send + 'static {
    let mut fut = Box::pin(fut);
    std::future::poll_fn(move |cx| {
        *last.lock().unwrap() = Some(thread::current().id());
        fut.as_mut().poll(cx)
    })
}

/// Starts a gated loop on `ex` (2 workers) once the task whose polls `last` records waits,
/// calls `trigger` (the event that wakes it), then lets the other worker finish one item at
/// a time until `woken` says the task ran, for at most ten seconds. Returns `false` if the
/// task ran before both workers were inside an item (the scenario did not happen).
#[must_use]
fn runs_on_the_first_free_worker(
    ex: &filch::Executor,
    last: &Mutex<Option<ThreadId>>,
    trigger: impl FnOnce(),
    mut woken: impl FnMut() -> bool,
) -> bool {
    let gate = Arc::new(Gate::default());
    // Opens the gate also when an assertion below fails, so that the executor can drop.
    let _open = OpenOnDrop(Arc::clone(&gate));
    let body_gate = Arc::clone(&gate);
    let lp = ex.spawn(filch::par_range(0..1_000_000, move |_| body_gate.pass()));
    let inside = gate.wait_inside(2);
    let task_worker = last.lock().unwrap().expect("the task has been polled");
    assert!(
        inside.contains(&task_worker),
        "the task's last poll ran on a thread that runs no item"
    );
    let other = *inside.iter().find(|&&t| t != task_worker).unwrap();
    let happened = !woken();
    if happened {
        trigger();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut items = 0;
    while happened && !woken() {
        assert!(
            Instant::now() < deadline,
            "the woken task did not run in 10 s while its last worker stayed inside an item \
             and the other worker finished {items} items: it waits for its last worker"
        );
        gate.grant(other);
        items += 1;
    }
    gate.open();
    lp.abort();
    let _ = ex.block_on(lp);
    happened
}

#[test]
fn a_socket_event_during_a_loop_is_served_by_the_first_free_worker() {
    watchdog(60, "socket event during a gated loop", || {
        let ex = named_executor(2, "first-free");
        let listener = ex
            .block_on(filch::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let last = Arc::new(Mutex::new(None));
        drop(ex.spawn(recording_thread(Arc::clone(&last), async move {
            use futures::{AsyncReadExt, AsyncWriteExt};
            let (mut conn, _) = listener.accept().await.unwrap();
            let mut byte = [0; 1];
            while conn.read_exact(&mut byte).await.is_ok() {
                conn.write_all(&byte).await.unwrap();
            }
        })));
        let mut client = std::net::TcpStream::connect(addr).unwrap();
        // One round trip first: the task now waits in its read.
        client.write_all(b"a").unwrap();
        let mut byte = [0; 1];
        client.read_exact(&mut byte).unwrap();
        client
            .set_read_timeout(Some(Duration::from_millis(10)))
            .unwrap();
        let mut sender = client.try_clone().unwrap();
        let happened = runs_on_the_first_free_worker(
            &ex,
            &last,
            || sender.write_all(b"p").unwrap(),
            || match client.read(&mut byte) {
                Ok(1) => true,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => false,
                other => panic!("the echo failed: {other:?}"),
            },
        );
        assert!(happened, "the echo task ran before the client wrote");
    });
}

#[test]
fn a_timer_during_a_loop_is_served_by_the_first_free_worker() {
    watchdog(60, "timer during a gated loop", || {
        // The timer must not fire before both workers are inside an item; on a slow machine
        // (valgrind) that may take longer than the first sleep, so it tries longer ones.
        for sleep_ms in [300, 2_000, 10_000] {
            let ex = named_executor(2, "first-free");
            let last = Arc::new(Mutex::new(None));
            let (tx, rx) = mpsc::channel();
            let (armed_tx, armed_rx) = mpsc::channel();
            drop(ex.spawn(recording_thread(Arc::clone(&last), async move {
                let sleep = filch::time::sleep(Duration::from_millis(sleep_ms));
                armed_tx.send(()).unwrap();
                sleep.await;
                tx.send(()).unwrap();
            })));
            armed_rx.recv().unwrap();
            wait_until(10, "the timer task to wait", || {
                last.lock().unwrap().is_some()
            });
            if runs_on_the_first_free_worker(
                &ex,
                &last,
                || {},
                || rx.recv_timeout(Duration::from_millis(10)).is_ok(),
            ) {
                return;
            }
        }
        panic!("the timer fired before both workers were inside an item, even after 10 s");
    });
}
