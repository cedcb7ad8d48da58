//! Pinned tasks (`spawn_pinned`, `spawn_local`): `!Send` futures that run on one worker.
//! Every poll of a pinned future happens on the thread that created it (asserted in every
//! poll by [`OnThread`]), wakes from other threads reach it, the least loaded worker gets a
//! new one, stealing never takes one, a busy one does not starve the others of its worker,
//! abort and panics work as for any task, `spawn_local` outside a worker panics with a
//! message, and shutdown drops each pinned future exactly once on its own worker's thread.

use std::cell::RefCell;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::thread::{self, ThreadId};
use std::time::Duration;

use futures::channel::oneshot;

use crate::common::{
    executor, executor_with, named_executor, panic_message, wait_until, watchdog, POLICIES,
};

/// Counts the polls of pinned futures that ran on a thread other than their creator's.
static FOREIGN_POLLS: AtomicUsize = AtomicUsize::new(0);

/// Wraps a future and checks, in every poll, that it runs on the thread that made it.
struct OnThread<F> {
    home: ThreadId,
    inner: Pin<Box<F>>,
}

impl<F: Future> OnThread<F> {
    /// Made inside the pinned task's closure (or a `spawn_local` caller): on its worker.
    fn new(inner: F) -> OnThread<F> {
        OnThread {
            home: thread::current().id(),
            inner: Box::pin(inner),
        }
    }
}

impl<F: Future> Future for OnThread<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        if thread::current().id() != self.home {
            FOREIGN_POLLS.fetch_add(1, SeqCst);
            panic!("a pinned future polled on another thread than its creator's");
        }
        self.inner.as_mut().poll(cx)
    }
}

/// Records, when dropped, whether it was dropped on the thread that made it.
struct DropWitness {
    home: ThreadId,
    /// (drops, drops on a foreign thread), shared by every witness of a test.
    log: Arc<(AtomicUsize, AtomicUsize)>,
    /// Keeps the witness `!Send`, as the futures it stands for.
    _not_send: Rc<()>,
}

impl DropWitness {
    fn new(log: &Arc<(AtomicUsize, AtomicUsize)>) -> DropWitness {
        DropWitness {
            home: thread::current().id(),
            log: Arc::clone(log),
            _not_send: Rc::new(()),
        }
    }
}

impl Drop for DropWitness {
    fn drop(&mut self) {
        self.log.0.fetch_add(1, SeqCst);
        if thread::current().id() != self.home {
            self.log.1.fetch_add(1, SeqCst);
        }
    }
}

/// 10,000 pinned tasks, each sharing an `Rc<RefCell<_>>` with a `spawn_local` child, woken
/// by std threads through channels: all complete, and no poll runs on another thread.
#[test]
fn ten_thousand_pinned_tasks_woken_from_other_threads_stay_on_their_worker() {
    const TASKS: usize = 10_000;
    const FEEDERS: usize = 4;
    watchdog(120, "ten_thousand_pinned_tasks", || {
        for workers in [1, 2] {
            let ex = executor(workers);
            let mut senders: Vec<Vec<oneshot::Sender<u64>>> =
                (0..FEEDERS).map(|_| Vec::new()).collect();
            let mut handles = Vec::with_capacity(TASKS);
            for i in 0..TASKS {
                let (tx, rx) = oneshot::channel::<u64>();
                senders[i % FEEDERS].push(tx);
                handles.push(ex.spawn_pinned(move || {
                    OnThread::new(async move {
                        let shared = Rc::new(RefCell::new(0u64));
                        let child = filch::spawn_local(OnThread::new({
                            let shared = Rc::clone(&shared);
                            async move {
                                filch::yield_now().await;
                                *shared.borrow_mut() += 1;
                            }
                        }));
                        let value = rx.await.expect("the feeder dropped its sender");
                        child.await.unwrap();
                        *shared.borrow_mut() += value;
                        shared.take()
                    })
                }));
            }
            let feeders: Vec<_> = senders
                .into_iter()
                .map(|txs| {
                    thread::spawn(move || {
                        for tx in txs {
                            tx.send(2).unwrap();
                        }
                    })
                })
                .collect();
            for feeder in feeders {
                feeder.join().unwrap();
            }
            for handle in handles {
                assert_eq!(ex.block_on(handle).unwrap(), 3, "{workers} workers");
            }
            assert_eq!(FOREIGN_POLLS.load(SeqCst), 0, "{workers} workers");
            wait_until(10, "every pinned task to be dropped", || {
                ex.stats().alive_tasks == 0
            });
        }
    });
}

/// Dropping the executor while pinned tasks wait (on channels, some of them woken from
/// another thread while the executor shuts down; `spawn_local` children; tasks not yet
/// started) drops each future exactly once, on the worker thread that made it.
#[test]
fn dropping_the_executor_drops_each_pinned_future_on_its_own_worker() {
    watchdog(60, "pinned_drop_at_shutdown", || {
        for workers in [1, 2, 3] {
            for round in 0..20 {
                let ex = named_executor(workers, "pinned");
                let log = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
                let made = Arc::new(AtomicUsize::new(0));
                let names = Arc::new(Mutex::new(Vec::new()));
                let mut senders = Vec::new();
                let mut handles = Vec::new();
                const TASKS: usize = 40;
                for _ in 0..TASKS {
                    let (tx, mut rx) = futures::channel::mpsc::unbounded::<()>();
                    senders.push(tx);
                    let (log, made, names) =
                        (Arc::clone(&log), Arc::clone(&made), Arc::clone(&names));
                    handles.push(ex.spawn_pinned(move || {
                        let witness = DropWitness::new(&log);
                        names
                            .lock()
                            .unwrap()
                            .push(thread::current().name().unwrap_or("").to_owned());
                        made.fetch_add(1, SeqCst);
                        async move {
                            let _witness = witness;
                            let child_witness = DropWitness::new(&log);
                            made.fetch_add(1, SeqCst);
                            let _child = filch::spawn_local(async move {
                                let _witness = child_witness;
                                std::future::pending::<()>().await;
                            });
                            use futures::StreamExt;
                            while rx.next().await.is_some() {}
                            std::future::pending::<()>().await;
                        }
                    }));
                }
                // Half the rounds drop the executor before every task started.
                if round % 2 == 0 {
                    wait_until(10, "every pinned task to start", || {
                        made.load(SeqCst) == 2 * TASKS
                    });
                }
                // Wakes from another thread race with the shutdown.
                let stop = Arc::new(AtomicBool::new(false));
                let waker_thread = {
                    let stop = Arc::clone(&stop);
                    thread::spawn(move || {
                        while !stop.load(SeqCst) {
                            for tx in &senders {
                                let _ = tx.unbounded_send(());
                            }
                            thread::yield_now();
                        }
                    })
                };
                drop(ex);
                stop.store(true, SeqCst);
                waker_thread.join().unwrap();
                let made = made.load(SeqCst);
                assert_eq!(
                    log.0.load(SeqCst),
                    made,
                    "{workers} workers: drops != futures made"
                );
                assert_eq!(
                    log.1.load(SeqCst),
                    0,
                    "{workers} workers: dropped on a foreign thread"
                );
                for name in names.lock().unwrap().iter() {
                    assert!(name.starts_with("pinned"), "created on {name:?}, no worker");
                }
                for handle in handles {
                    assert!(handle.is_finished());
                }
            }
        }
    });
}

/// The least loaded worker gets each new pinned task: on an idle executor, eight pinned
/// tasks that stay alive spread two per worker over four workers.
#[test]
fn pinned_tasks_go_to_the_least_loaded_worker() {
    watchdog(30, "pinned_placement", || {
        let ex = named_executor(4, "spread");
        let names = Arc::new(Mutex::new(Vec::new()));
        let mut handles = Vec::new();
        for _ in 0..8 {
            let names = Arc::clone(&names);
            handles.push(ex.spawn_pinned(move || {
                names
                    .lock()
                    .unwrap()
                    .push(thread::current().name().unwrap().to_owned());
                std::future::pending::<()>()
            }));
        }
        wait_until(10, "every pinned task to start", || {
            names.lock().unwrap().len() == 8
        });
        let names = names.lock().unwrap().clone();
        let mut per_worker = std::collections::BTreeMap::new();
        for name in &names {
            *per_worker.entry(name.clone()).or_insert(0) += 1;
        }
        assert_eq!(per_worker.len(), 4, "workers used: {per_worker:?}");
        assert!(per_worker.values().all(|&n| n == 2), "{per_worker:?}");
        for handle in &handles {
            handle.abort();
        }
        for handle in handles {
            assert!(ex.block_on(handle).unwrap_err().is_cancelled());
        }
    });
}

/// Two workers, the pinned tasks' worker blocked inside a poll for a while, the other idle:
/// the pinned tasks woken meanwhile wait for their worker (the idle one searches, and
/// cannot take them), and then run there.
#[test]
fn stealing_never_takes_a_pinned_task() {
    watchdog(30, "pinned_not_stolen", || {
        for policy in POLICIES {
            let ex = executor_with(2, policy);
            let out = ex.block_on(ex.spawn_pinned(|| async {
                let home = thread::current().id();
                let mut senders = Vec::new();
                let mut children = Vec::new();
                for _ in 0..16 {
                    let (tx, rx) = oneshot::channel::<()>();
                    senders.push(tx);
                    children.push(filch::spawn_local(async move {
                        rx.await.unwrap();
                        thread::current().id()
                    }));
                }
                filch::yield_now().await;
                // Wake them from another thread while this worker is blocked.
                let feeder = thread::spawn(move || {
                    for tx in senders {
                        tx.send(()).unwrap();
                    }
                });
                feeder.join().unwrap();
                thread::sleep(Duration::from_millis(100));
                let mut ran_on = Vec::new();
                for child in children {
                    ran_on.push(child.await.unwrap());
                }
                (home, ran_on)
            }));
            let (home, ran_on) = out.unwrap();
            assert!(
                ran_on.iter().all(|&t| t == home),
                "{policy:?}: a pinned task moved"
            );
        }
    });
}

/// A pinned task that keeps its worker busy (yielding, or spending its budget) does not
/// starve the other tasks of that worker: an ordinary task from outside, a pinned task it
/// spawned, and a task woken from another thread all complete while it runs.
#[test]
fn a_busy_pinned_task_does_not_starve_its_worker() {
    watchdog(60, "busy_pinned_task", || {
        for use_budget in [false, true] {
            let ex = executor(1);
            let stop = Arc::new(AtomicBool::new(false));
            let started = Arc::new(AtomicBool::new(false));
            let busy = ex.spawn_pinned({
                let (stop, started) = (Arc::clone(&stop), Arc::clone(&started));
                move || async move {
                    let sibling = filch::spawn_local(async { 7 });
                    started.store(true, SeqCst);
                    let mut spins = 0u64;
                    while !stop.load(SeqCst) {
                        if use_budget {
                            filch::consume_budget().await;
                        } else {
                            filch::yield_now().await;
                        }
                        spins += 1;
                    }
                    (sibling.await.unwrap(), spins)
                }
            });
            wait_until(10, "the busy task to start", || started.load(SeqCst));
            let plain = ex.spawn(async { 1 });
            let (tx, rx) = oneshot::channel::<u32>();
            let woken = ex.spawn_pinned(move || async move { rx.await.unwrap() });
            thread::spawn(move || tx.send(5).unwrap()).join().unwrap();
            let mut results = Vec::new();
            for handle in [plain, woken] {
                // Awaited from this thread: the busy task never stops by itself.
                results
                    .push(futures::executor::block_on(handle).expect("a task starved behind it"));
            }
            assert_eq!(results, [1, 5]);
            stop.store(true, SeqCst);
            let (sibling, spins) = ex.block_on(busy).unwrap();
            assert_eq!(sibling, 7);
            assert!(spins > 0);
        }
    });
}

/// `spawn_local` outside a task on a worker panics, with a message that says so and names
/// `spawn_pinned`: on a plain thread, in `block_on`, on the blocking pool.
#[test]
fn spawn_local_outside_a_worker_panics_with_a_message() {
    watchdog(30, "spawn_local_outside", || {
        let check = |payload: Box<dyn std::any::Any + Send>, where_: &str| {
            let message = panic_message(&*payload);
            assert!(
                message.contains("spawn_local called outside a task on a filch worker"),
                "{where_}: {message}"
            );
            assert!(message.contains("spawn_pinned"), "{where_}: {message}");
        };
        let plain = catch_unwind(|| filch::spawn_local(async {})).unwrap_err();
        check(plain, "a plain thread");
        let ex = executor(1);
        let in_block_on = catch_unwind(AssertUnwindSafe(|| {
            ex.block_on(async { drop(filch::spawn_local(async {})) })
        }))
        .unwrap_err();
        check(in_block_on, "block_on");
        let on_pool = ex
            .block_on(filch::spawn_blocking(|| {
                catch_unwind(|| {
                    drop(filch::spawn_local(async {}));
                })
                .map_err(|payload| panic_message(&*payload))
            }))
            .unwrap()
            .unwrap_err();
        assert!(on_pool.contains("spawn_pinned"), "blocking pool: {on_pool}");
    });
}

/// Abort of a pinned task that waits, and of one that has not started: cancelled, its
/// future dropped on its worker's thread before the handle resolves.
#[test]
fn abort_of_a_pinned_task_drops_it_on_its_worker() {
    watchdog(30, "abort_pinned", || {
        for workers in [1, 2] {
            let ex = executor(workers);
            let log = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
            for _ in 0..50 {
                let (started_tx, started_rx) = oneshot::channel::<()>();
                let handle = ex.spawn_pinned({
                    let log = Arc::clone(&log);
                    move || {
                        let witness = DropWitness::new(&log);
                        async move {
                            let _witness = witness;
                            started_tx.send(()).unwrap();
                            std::future::pending::<()>().await;
                        }
                    }
                });
                ex.block_on(started_rx).unwrap();
                let before = log.0.load(SeqCst);
                handle.abort();
                assert!(ex.block_on(handle).unwrap_err().is_cancelled());
                assert_eq!(
                    log.0.load(SeqCst),
                    before + 1,
                    "dropped before the handle resolved"
                );
            }
            assert_eq!(log.1.load(SeqCst), 0, "dropped on a foreign thread");
            // Aborted at once, perhaps before its closure ran (then dropped unrun).
            let handles: Vec<_> = (0..20)
                .map(|_| {
                    let h = ex.spawn_pinned(|| async {
                        let rc = Rc::new(());
                        filch::yield_now().await;
                        drop(rc);
                    });
                    h.abort();
                    h
                })
                .collect();
            for h in handles {
                match ex.block_on(h) {
                    Ok(()) => {}
                    Err(err) => assert!(err.is_cancelled(), "{err:?}"),
                }
            }
        }
    });
}

/// A panic in a pinned task (in its closure, in its poll, in its future's destructor) is
/// the task's panic `JoinError`; its worker keeps running pinned tasks.
#[test]
fn panics_of_pinned_tasks_are_join_errors() {
    struct PanicsOnDrop(#[allow(dead_code)] Rc<()>);
    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("destructor boom");
        }
    }
    watchdog(30, "pinned_panics", || {
        let ex = executor(1);
        let in_create = ex.spawn_pinned(|| -> std::future::Ready<()> { panic!("create boom") });
        let err = ex.block_on(in_create).unwrap_err();
        assert_eq!(panic_message(&*err.into_panic()), "create boom");
        let in_poll = ex.spawn_pinned(|| async {
            let _rc = Rc::new(1);
            filch::yield_now().await;
            panic!("poll boom");
        });
        let err = ex.block_on(in_poll).unwrap_err();
        assert_eq!(panic_message(&*err.into_panic()), "poll boom");
        let in_drop = ex.spawn_pinned(|| async {
            let _guard = PanicsOnDrop(Rc::new(()));
            filch::yield_now().await;
        });
        let err = ex.block_on(in_drop).unwrap_err();
        assert_eq!(panic_message(&*err.into_panic()), "destructor boom");
        let after = ex.spawn_pinned(|| async {
            let rc = Rc::new(9);
            filch::yield_now().await;
            *rc
        });
        assert_eq!(ex.block_on(after).unwrap(), 9);
    });
}

/// Pinned spawns racing with the executor's drop, from other threads, some landing after
/// their worker exited: each closure is run (on a worker) or dropped unrun (anywhere: it
/// is `Send`), exactly once, and every handle resolves.
#[test]
fn pinned_spawns_racing_with_shutdown_are_run_or_dropped_once() {
    /// Counts its drops; `Send`, as a `spawn_pinned` closure is.
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, SeqCst);
        }
    }
    watchdog(60, "pinned_spawns_racing_with_shutdown", || {
        for workers in [1, 2] {
            for _ in 0..20 {
                let ex = executor(workers);
                let handle = ex.handle();
                let made = Arc::new(AtomicUsize::new(0));
                let dropped = Arc::new(AtomicUsize::new(0));
                let spawners: Vec<_> = (0..2)
                    .map(|_| {
                        let (handle, made, dropped) =
                            (handle.clone(), Arc::clone(&made), Arc::clone(&dropped));
                        thread::spawn(move || {
                            let mut handles = Vec::new();
                            for _ in 0..200 {
                                made.fetch_add(1, SeqCst);
                                let counted = Counted(Arc::clone(&dropped));
                                handles.push(handle.spawn_pinned(move || {
                                    let rc = Rc::new(counted);
                                    async move {
                                        filch::yield_now().await;
                                        drop(rc);
                                    }
                                }));
                            }
                            handles
                        })
                    })
                    .collect();
                thread::yield_now();
                drop(ex);
                for spawner in spawners {
                    for h in spawner.join().unwrap() {
                        match futures::executor::block_on(h) {
                            Ok(()) => {}
                            Err(err) => assert!(err.is_cancelled(), "{err:?}"),
                        }
                    }
                }
                assert_eq!(dropped.load(SeqCst), made.load(SeqCst), "{workers} workers");
            }
        }
    });
}

/// The executor dropped inside one of its pinned tasks: the worker running it cannot be
/// joined, and drops its own pinned tasks once that poll returns; every pinned future is
/// still dropped exactly once, each on its own worker's thread.
#[test]
fn dropping_the_executor_inside_a_pinned_task_drops_each_on_its_worker() {
    watchdog(60, "drop_inside_pinned_task", || {
        for workers in [1, 2, 3] {
            let ex = executor(workers);
            let handle = ex.handle();
            let log = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
            let made = Arc::new(AtomicUsize::new(0));
            const WAITING: usize = 12;
            for _ in 0..WAITING {
                let (log, made) = (Arc::clone(&log), Arc::clone(&made));
                drop(handle.spawn_pinned(move || {
                    let witness = DropWitness::new(&log);
                    made.fetch_add(1, SeqCst);
                    async move {
                        let _witness = witness;
                        std::future::pending::<()>().await;
                    }
                }));
            }
            wait_until(10, "the waiting tasks to start", || {
                made.load(SeqCst) == WAITING
            });
            let slot = Arc::new(Mutex::new(Some(ex)));
            let killer = handle.spawn_pinned({
                let log = Arc::clone(&log);
                move || {
                    let witness = DropWitness::new(&log);
                    async move {
                        let _witness = witness;
                        let ex = slot.lock().unwrap().take().unwrap();
                        drop(ex);
                    }
                }
            });
            wait_until(10, "the executor to be dropped from its task", || {
                killer.is_finished()
            });
            wait_until(10, "every pinned future to be dropped", || {
                log.0.load(SeqCst) == WAITING + 1
            });
            assert_eq!(
                log.1.load(SeqCst),
                0,
                "{workers} workers: dropped on a foreign thread"
            );
        }
    });
}
