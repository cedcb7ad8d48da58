//! White-box tests of the blocking pool (`runtime/scheduler/blocking/`).

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crate::Executor;

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn grows_on_demand_then_idle_threads_exit() {
    let ex = Executor::builder()
        .worker_threads(1)
        .max_blocking_threads(64)
        .thread_keep_alive(Duration::from_millis(100))
        .build()
        .unwrap();
    let handle = ex.handle();
    let pool = &handle.state().blocking;
    let barrier = Arc::new(Barrier::new(9));
    let jobs: Vec<_> = (0..8)
        .map(|_| {
            let barrier = Arc::clone(&barrier);
            ex.spawn_blocking(move || {
                barrier.wait();
            })
        })
        .collect();
    // All eight must run at once to pass the barrier with us.
    barrier.wait();
    assert_eq!(pool.threads(), 8);
    for job in jobs {
        ex.block_on(job).unwrap();
    }
    wait_until("idle threads exit", || pool.threads() == 0);
    // The pool starts threads again after shrinking to zero.
    assert_eq!(ex.block_on(ex.spawn_blocking(|| 5)).unwrap(), 5);
}

#[test]
fn respects_the_thread_limit() {
    let ex = Executor::builder()
        .worker_threads(1)
        .max_blocking_threads(2)
        .build()
        .unwrap();
    let handle = ex.handle();
    let pool = &handle.state().blocking;
    let running = Arc::new(crate::util::sync::AtomicUsize::new(0));
    let peak = Arc::new(crate::util::sync::AtomicUsize::new(0));
    let jobs: Vec<_> = (0..16)
        .map(|i| {
            let (running, peak) = (Arc::clone(&running), Arc::clone(&peak));
            ex.spawn_blocking(move || {
                use crate::util::sync::Ordering::SeqCst;
                let now = running.fetch_add(1, SeqCst) + 1;
                peak.fetch_max(now, SeqCst);
                std::thread::sleep(Duration::from_millis(2));
                running.fetch_sub(1, SeqCst);
                i
            })
        })
        .collect();
    for (i, job) in jobs.into_iter().enumerate() {
        assert_eq!(ex.block_on(job).unwrap(), i);
    }
    assert!(pool.threads() <= 2);
    assert!(peak.load(crate::util::sync::Ordering::SeqCst) <= 2);
}

/// A gate that blocking jobs wait on until the test opens it.
#[derive(Clone, Default)]
struct JobGate(Arc<(crate::util::sync::Mutex<bool>, crate::util::sync::Condvar)>);

impl JobGate {
    fn wait(&self) {
        let (open, cv) = &*self.0;
        let mut open = open.lock();
        while !*open {
            open = cv.wait(open);
        }
    }

    fn open(&self) {
        let (open, cv) = &*self.0;
        *open.lock() = true;
        cv.notify_all();
    }
}

#[test]
fn shutdown_cancels_queued_jobs_and_lets_running_ones_finish() {
    let ex = Executor::builder()
        .worker_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let handle = ex.handle();
    let gate = JobGate::default();
    let started = Arc::new(Barrier::new(2));
    let running = {
        let (gate, started) = (gate.clone(), Arc::clone(&started));
        ex.spawn_blocking(move || {
            started.wait();
            gate.wait();
            "ran"
        })
    };
    started.wait();
    // The only thread is busy: this one waits in the queue.
    let ran_queued = Arc::new(crate::util::sync::AtomicBool::new(false));
    let queued = {
        let ran_queued = Arc::clone(&ran_queued);
        ex.spawn_blocking(move || ran_queued.store(true, crate::util::sync::Ordering::SeqCst))
    };
    drop(ex);
    let err = futures::executor::block_on(queued).unwrap_err();
    assert!(err.is_cancelled());
    gate.open();
    assert_eq!(futures::executor::block_on(running).unwrap(), "ran");
    assert!(!ran_queued.load(crate::util::sync::Ordering::SeqCst));
    wait_until("the thread exits", || {
        handle.state().blocking.threads() == 0
    });
    // The clock, which the handle keeps beyond the executor, counts no job as busy:
    // the cancelled one ended too.
    #[cfg(feature = "test-util")]
    assert!(handle.state().driver.clock().activity().is_idle());
}

#[test]
fn abort_cancels_a_job_that_has_not_started() {
    let ex = Executor::builder()
        .worker_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let gate = JobGate::default();
    let busy = {
        let gate = gate.clone();
        ex.spawn_blocking(move || gate.wait())
    };
    let queued = ex.spawn_blocking(|| panic!("an aborted job must not run"));
    queued.abort();
    gate.open();
    ex.block_on(busy).unwrap();
    assert!(ex.block_on(queued).unwrap_err().is_cancelled());
}

#[test]
fn reuses_an_idle_thread() {
    let ex = Executor::builder().worker_threads(1).build().unwrap();
    let handle = ex.handle();
    let pool = &handle.state().blocking;
    for i in 0..20 {
        assert_eq!(ex.block_on(ex.spawn_blocking(move || i)).unwrap(), i);
        // Let the thread go back to waiting before the next job.
        wait_until("the thread idles", || pool.idle() == 1);
    }
    assert_eq!(pool.threads(), 1);
}
