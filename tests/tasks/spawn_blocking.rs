//! `spawn_blocking`: where the closure runs (a named blocking-pool thread, no worker, in
//! the owning executor's context), what its `JoinHandle` reports (output, panic,
//! cancellation after shutdown), and that blocking jobs never hold up the workers.
//!
//! Every test runs under a watchdog, so a lost wake-up or a deadlock fails instead of
//! hanging. The pool's growth limit and idle exit are also tested white-box in
//! `src/runtime/scheduler/blocking/`; here through `Builder::max_blocking_threads` and `thread_keep_alive`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Barrier, Condvar, Mutex};

use crate::common::{self, executor, named_executor, thread_name, watchdog};
use filch::Handle;

/// A gate that blocking jobs wait on until someone opens it.
#[derive(Clone, Default)]
struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    fn wait(&self) {
        let (open, cv) = &*self.0;
        let mut open = open.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
    }

    fn open(&self) {
        let (open, cv) = &*self.0;
        *open.lock().unwrap() = true;
        cv.notify_all();
    }
}

#[test]
fn runs_on_a_named_blocking_thread_that_is_no_worker() {
    watchdog(30, "blocking: named thread", || {
        let ex = named_executor(2, "sbk");
        // Eager, like `spawn`: called inside `block_on`, it picks `ex`.
        let name = ex
            .block_on(async { filch::spawn_blocking(thread_name).await })
            .unwrap();
        assert!(name.starts_with("sbk-blocking-"), "{name}");
        let n: usize = name["sbk-blocking-".len()..].parse().unwrap();
        assert!(n < 512, "{name}");
        // From a worker too, and through the handle and the executor.
        let from_task = ex.block_on(ex.spawn(async { filch::spawn_blocking(thread_name).await }));
        assert!(from_task.unwrap().unwrap().starts_with("sbk-blocking-"));
        let via_handle = ex
            .block_on(ex.handle().spawn_blocking(thread_name))
            .unwrap();
        assert!(via_handle.starts_with("sbk-blocking-"));
        let via_executor = ex.block_on(ex.spawn_blocking(thread_name)).unwrap();
        assert!(via_executor.starts_with("sbk-blocking-"));
    });
}

#[test]
fn the_owning_executor_is_current_and_block_on_is_allowed() {
    watchdog(30, "blocking: owner is current", || {
        let ex = named_executor(2, "own");
        let job = ex.spawn_blocking(|| {
            assert!(Handle::try_current().is_ok());
            assert_eq!(Handle::current().stats().workers.len(), 2);
            // `block_on` would panic on a worker; here it runs, in the owning executor's
            // context, so `spawn` inside it goes to that executor's workers.
            let worker = filch::block_on(async { filch::spawn(async { thread_name() }).await });
            let via_handle = Handle::current().spawn(async { thread_name() });
            (worker.unwrap(), filch::block_on(via_handle).unwrap())
        });
        let (a, b) = ex.block_on(job).unwrap();
        for name in [a, b] {
            assert!(
                name.starts_with("own-") && !name.contains("blocking"),
                "{name}"
            );
        }
    });
}

#[test]
fn a_panic_resolves_the_handle_to_a_panic_error() {
    watchdog(30, "blocking: panic", || {
        let ex = executor(1);
        let err = ex
            .block_on(ex.spawn_blocking(|| -> u32 { panic!("blocking boom") }))
            .unwrap_err();
        assert!(err.is_panic());
        assert!(err.to_string().contains("blocking boom"));
        assert_eq!(
            *err.into_panic().downcast::<&str>().unwrap(),
            "blocking boom"
        );
        // The pool survives the panic.
        assert_eq!(ex.block_on(ex.spawn_blocking(|| 7)).unwrap(), 7);
    });
}

#[test]
fn many_blocking_jobs_do_not_block_the_workers() {
    watchdog(60, "blocking: 64 jobs", || {
        const JOBS: usize = 64;
        let ex = executor(1);
        let gate = Gate::default();
        let all_started = Arc::new(Barrier::new(JOBS + 1));
        let jobs: Vec<_> = (0..JOBS)
            .map(|i| {
                let (gate, all_started) = (gate.clone(), Arc::clone(&all_started));
                ex.spawn_blocking(move || {
                    all_started.wait();
                    gate.wait();
                    i
                })
            })
            .collect();
        // All 64 run at the same time: the pool grew to at least 64 threads.
        all_started.wait();
        // The single worker is free: a task on it runs while every blocking job blocks,
        // and it is the one that opens the gate.
        let opener = {
            let gate = gate.clone();
            ex.spawn(async move {
                gate.open();
                thread_name()
            })
        };
        assert!(!ex.block_on(opener).unwrap().contains("blocking"));
        for (i, job) in jobs.into_iter().enumerate() {
            assert_eq!(ex.block_on(job).unwrap(), i);
        }
    });
}

#[test]
fn blocking_inside_a_task_leaves_other_tasks_running() {
    watchdog(30, "blocking: others run", || {
        let ex = executor(1);
        let ticks = Arc::new(AtomicUsize::new(0));
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let waiter = ex.spawn(async move {
            // The worker awaits; the blocking pool does the blocking receive.
            filch::spawn_blocking(move || release_rx.recv().unwrap())
                .await
                .unwrap();
        });
        let ticker = {
            let ticks = Arc::clone(&ticks);
            ex.spawn(async move {
                for _ in 0..100 {
                    ticks.fetch_add(1, Ordering::SeqCst);
                    filch::yield_now().await;
                }
            })
        };
        ex.block_on(ticker).unwrap();
        assert_eq!(ticks.load(Ordering::SeqCst), 100);
        release_tx.send(()).unwrap();
        ex.block_on(waiter).unwrap();
    });
}

#[test]
fn outside_any_executor_the_global_pool_runs_it() {
    watchdog(30, "blocking: global pool", || {
        let name = filch::block_on(filch::spawn_blocking(thread_name)).unwrap();
        assert!(name.starts_with("filch-blocking-"), "{name}");
        // Without any block_on at all.
        let job = filch::spawn_blocking(|| 40 + 2);
        assert_eq!(futures::executor::block_on(job).unwrap(), 42);
    });
}

#[test]
fn after_shutdown_jobs_are_cancelled_and_running_ones_finish() {
    watchdog(30, "blocking: after shutdown", || {
        let ex = executor(1);
        let handle = ex.handle();
        let gate = Gate::default();
        let started = Arc::new(Barrier::new(2));
        let running = {
            let (gate, started) = (gate.clone(), Arc::clone(&started));
            ex.spawn_blocking(move || {
                started.wait();
                gate.wait();
                "finished"
            })
        };
        started.wait();
        // Dropping the executor does not wait for the running job.
        drop(ex);
        let late = handle.spawn_blocking(|| panic!("must not run after shutdown"));
        assert!(futures::executor::block_on(late)
            .unwrap_err()
            .is_cancelled());
        gate.open();
        assert_eq!(futures::executor::block_on(running).unwrap(), "finished");
    });
}

#[test]
fn an_executor_dropped_on_its_own_blocking_thread_does_not_deadlock() {
    watchdog(30, "blocking: drop on own thread", || {
        let ex = executor(2);
        let handle = ex.handle();
        let task = ex.spawn(std::future::pending::<()>());
        let job = handle.spawn_blocking(move || drop(ex));
        futures::executor::block_on(job).unwrap();
        assert!(futures::executor::block_on(task)
            .unwrap_err()
            .is_cancelled());
    });
}

/// `shutdown_timeout` called inside one of the executor's own blocking jobs waits for the
/// other jobs still running, not for the one it runs in (as a shutdown on a worker does not
/// join that worker).
#[test]
fn shutdown_timeout_on_its_own_blocking_thread_does_not_wait_for_itself() {
    watchdog(60, "blocking: shutdown_timeout on own thread", || {
        let ex = executor(2);
        let handle = ex.handle();
        let gate = Gate::default();
        let other_done = Arc::new(AtomicUsize::new(0));
        let other = {
            let (gate, other_done) = (gate.clone(), Arc::clone(&other_done));
            handle.spawn_blocking(move || {
                gate.wait();
                other_done.fetch_add(1, Ordering::SeqCst);
            })
        };
        let job = handle.spawn_blocking(move || {
            // The other job finishes once this one has begun to wait.
            let opener = std::thread::spawn({
                let gate = gate.clone();
                move || {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    gate.open();
                }
            });
            ex.shutdown_timeout(std::time::Duration::from_secs(3600));
            opener.join().unwrap();
            other_done.load(Ordering::SeqCst)
        });
        assert_eq!(
            futures::executor::block_on(job).unwrap(),
            1,
            "shutdown_timeout returned before the other running job ended"
        );
        futures::executor::block_on(other).unwrap();
    });
}

/// `max_blocking_threads` caps the pool: 64 jobs that each wait a moment never run more than
/// the cap at once, the pool never grows past it, and every job runs (the extra ones wait
/// in order). tokio's 64-connections-through-spawn_blocking case grew to 107 threads.
#[test]
fn max_blocking_threads_caps_the_pool() {
    watchdog(60, "blocking cap", || {
        let ex = filch::Executor::builder()
            .worker_threads(1)
            .max_blocking_threads(3)
            .build()
            .unwrap();
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let jobs: Vec<_> = (0..64)
            .map(|i| {
                let (running, peak) = (Arc::clone(&running), Arc::clone(&peak));
                ex.spawn_blocking(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    running.fetch_sub(1, Ordering::SeqCst);
                    i
                })
            })
            .collect();
        for (i, job) in jobs.into_iter().enumerate() {
            assert_eq!(ex.block_on(job).unwrap(), i);
        }
        assert!(
            peak.load(Ordering::SeqCst) <= 3,
            "{} jobs ran at once",
            peak.load(Ordering::SeqCst)
        );
        assert!(ex.stats().blocking_threads <= 3);
        let err = filch::Executor::builder()
            .max_blocking_threads(0)
            .build()
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("max_blocking_threads(0)"), "{err}");
    });
}

/// `thread_keep_alive`: idle blocking threads exit after it.
#[test]
fn idle_blocking_threads_exit_after_the_keep_alive() {
    watchdog(60, "keep alive", || {
        let ex = filch::Executor::builder()
            .worker_threads(1)
            .thread_keep_alive(std::time::Duration::from_millis(20))
            .build()
            .unwrap();
        ex.block_on(ex.spawn_blocking(|| ())).unwrap();
        common::wait_until(10, "the idle blocking thread to exit", || {
            ex.stats().blocking_threads == 0
        });
    });
}
