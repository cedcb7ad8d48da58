//! The cooperative budget: on a single worker, a task that never returns `Pending` by
//! itself (looping on `consume_budget`, or reading a socket that is always ready) must let
//! a timer fire and another task run. Without the budget both tests hang (the watchdog
//! fails them); no timing is asserted. `JoinHandle`s and `JoinSet::join_next` spend the
//! budget, and `block_on` polls with one.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::common::{self, executor, wait_until, watchdog};
use futures::{AsyncReadExt, FutureExt};

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
        let read = Arc::new(AtomicUsize::new(0));
        let reader = {
            let (stop, read) = (Arc::clone(&stop), Arc::clone(&read));
            ex.spawn(async move {
                let mut stream = filch::net::TcpStream::connect(addr).await.unwrap();
                // Small reads, so the socket stays readable read after read.
                let mut buf = [0; 16];
                while !stop.load(Ordering::SeqCst) {
                    let n = stream.read(&mut buf).await.unwrap();
                    read.fetch_add(n, Ordering::SeqCst);
                }
            })
        };
        let timer = {
            let (stop, read) = (Arc::clone(&stop), Arc::clone(&read));
            ex.spawn(async move {
                // Once the reader is reading (however slow the machine), the timer must
                // still get its turn.
                while read.load(Ordering::SeqCst) == 0 {
                    filch::time::sleep(Duration::from_millis(1)).await;
                }
                filch::time::sleep(Duration::from_millis(5)).await;
                stop.store(true, Ordering::SeqCst);
            })
        };
        ex.block_on(timer).unwrap();
        ex.block_on(reader).unwrap();
        assert!(read.load(Ordering::SeqCst) > 0);
        writer.join().unwrap();
    });
}

/// tokio's `task_join_set::join_set_coop`: joining many finished tasks in one poll spends
/// the budget of the task (here `block_on`'s), so `join_next` returns `Pending` at least once
/// before the set is drained; nothing is lost.
#[test]
fn join_next_spends_the_budget_of_block_on() {
    watchdog(30, "join_set coop", || {
        const TASKS: usize = 1000;
        let ex = common::leak_checked(1);
        ex.block_on(async {
            let done = Arc::new(AtomicUsize::new(0));
            let mut set = filch::JoinSet::new();
            for _ in 0..TASKS {
                let done = Arc::clone(&done);
                set.spawn(async move {
                    done.fetch_add(1, Ordering::SeqCst);
                });
            }
            while done.load(Ordering::SeqCst) < TASKS {
                filch::time::sleep(Duration::from_millis(1)).await;
            }
            let (mut joined, mut coop_yields) = (0, 0);
            loop {
                match set.join_next().now_or_never() {
                    Some(Some(result)) => {
                        result.unwrap();
                        joined += 1;
                    }
                    Some(None) => break,
                    None => {
                        coop_yields += 1;
                        filch::yield_now().await;
                    }
                }
            }
            assert_eq!(joined, TASKS);
            assert!(
                coop_yields >= 1,
                "joined {TASKS} tasks without spending the budget"
            );
        });
    });
}

/// A task awaiting many finished `JoinHandle`s spends its budget on them (one unit per
/// `Ready`), on a worker as in `block_on`.
#[test]
fn join_handles_spend_the_budget_of_the_awaiting_task() {
    watchdog(30, "join handle coop", || {
        const TASKS: usize = 300;
        let ex = common::leak_checked(1);
        let handles: Vec<_> = (0..TASKS).map(|i| ex.spawn(async move { i })).collect();
        for handle in &handles {
            wait_until(10, "every task finished", || handle.is_finished());
        }
        let outcome = ex.block_on(ex.spawn(async move {
            let (mut sum, mut coop_yields) = (0, 0);
            for mut handle in handles {
                loop {
                    match (&mut handle).now_or_never() {
                        Some(result) => {
                            sum += result.unwrap();
                            break;
                        }
                        None => {
                            coop_yields += 1;
                            filch::yield_now().await;
                        }
                    }
                }
            }
            (sum, coop_yields)
        }));
        let (sum, coop_yields) = outcome.unwrap();
        assert_eq!(sum, TASKS * (TASKS - 1) / 2);
        assert!(
            coop_yields >= 1,
            "awaited {TASKS} finished handles without spending the budget"
        );
    });
}

/// `block_on` polls its future with a budget, renewed each time it is woken: a loop on
/// `consume_budget` inside it yields (and is polled again) once per budget.
#[test]
fn block_on_polls_its_future_with_a_budget() {
    struct CountPolls<F> {
        polls: usize,
        future: std::pin::Pin<Box<F>>,
    }
    impl<F: std::future::Future> std::future::Future for CountPolls<F> {
        type Output = usize;
        fn poll(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<usize> {
            self.polls += 1;
            let polls = self.polls;
            self.future.as_mut().poll(cx).map(|_| polls)
        }
    }
    watchdog(30, "block_on budget", || {
        let ex = common::leak_checked(1);
        let polls = ex.block_on(CountPolls {
            polls: 0,
            future: Box::pin(async {
                for _ in 0..1000 {
                    filch::consume_budget().await;
                }
            }),
        });
        assert!(
            polls > 1000 / 128,
            "1000 units of budget spent in {polls} poll(s) of block_on's future"
        );
    });
}

/// tokio's `rt_common::coop_consume_budget`, in `block_on`: a future looping on
/// `consume_budget` yields before it has done 1000 units in one poll.
#[test]
fn coop_consume_budget() {
    watchdog(30, "coop_consume_budget", || {
        let ex = common::leak_checked(1);
        ex.block_on(std::future::poll_fn(|cx| {
            let counter = Arc::new(AtomicUsize::new(0));
            let in_worker = Arc::clone(&counter);
            let mut worker = Box::pin(async move {
                for _ in 0..1000 {
                    in_worker.fetch_add(1, Ordering::SeqCst);
                    filch::consume_budget().await;
                }
            });
            assert!(std::future::Future::poll(worker.as_mut(), cx).is_pending());
            assert!(counter.load(Ordering::SeqCst) < 1000);
            std::task::Poll::Ready(())
        }));
    });
}

/// A loop of timeouts whose futures never spend the budget themselves (each pending at
/// once, its deadline passed) still yields to the other tasks of its worker: the timeout's
/// own deadline poll keeps its budget check unless the inner future spent the budget.
#[test]
fn a_loop_of_elapsed_timeouts_still_yields() {
    watchdog(30, "timeout loop yields", || {
        let ex = common::leak_checked(1);
        let stop = Arc::new(AtomicBool::new(false));
        let looping = {
            let stop = Arc::clone(&stop);
            ex.spawn(async move {
                let mut rounds = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    let _ =
                        filch::time::timeout(Duration::ZERO, std::future::pending::<()>()).await;
                    rounds += 1;
                }
                rounds
            })
        };
        let other = {
            let stop = Arc::clone(&stop);
            ex.spawn(async move { stop.store(true, Ordering::SeqCst) })
        };
        ex.block_on(other).unwrap();
        assert!(ex.block_on(looping).unwrap() > 0);
    });
}
