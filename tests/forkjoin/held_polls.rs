//! One pool under real use: whatever a task's poll does, once it has held its worker for a
//! tick that worker's other duties go on (its stand-in takes its place,
//! `runtime/scheduler/standin/`). Every worker is held by a poll of one kind (a CPU loop, a
//! blocking call, back-to-back parallel iterators of 10 to 1,024 items, `join`s,
//! `block_in_place`) that goes on until a timer has fired and a TCP echo has come back, so if
//! neither were served the polls would never end and the watchdog fails the test: the check
//! is of order, not of timing. The same holds for a task that the stand-in polls and that
//! calls fork-join itself, with a `Mutex` held across its `join`.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use filch::par::prelude::*;
use futures::{AsyncReadExt, AsyncWriteExt};

use crate::common::{executor, watchdog};
use crate::lock_across_join::sum;

/// What a holding poll does until `stop` is set.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Spins on the CPU.
    Cpu,
    /// Blocks in the kernel, a millisecond at a time.
    Blocking,
    /// Parallel iterators of this many items, back to back.
    ParIter(u64),
    /// `join` recursions, back to back.
    Joins,
    /// `block_in_place` around a blocking loop.
    BlockInPlace,
}

/// A few microseconds of work.
fn work(i: u64) -> u64 {
    let mut x = i;
    for k in 0..200u64 {
        x = x.wrapping_mul(31).wrapping_add(k);
    }
    std::hint::black_box(x)
}

fn joins(depth: u32) -> u64 {
    if depth == 0 {
        return work(u64::from(depth));
    }
    let (a, b) = filch::par::join(|| joins(depth - 1), || joins(depth - 1));
    a.wrapping_add(b)
}

/// The body of a holding poll: runs `kind` until `stop` is set.
fn hold(kind: Kind, stop: &AtomicBool) -> u64 {
    let mut acc = 0u64;
    while !stop.load(Ordering::Relaxed) {
        acc = acc.wrapping_add(match kind {
            Kind::Cpu => work(acc),
            Kind::Blocking => {
                std::thread::sleep(Duration::from_millis(1));
                1
            }
            Kind::ParIter(n) => (0..n)
                .into_par_iter()
                .map(work)
                .reduce(|| 0, u64::wrapping_add),
            Kind::Joins => joins(6),
            Kind::BlockInPlace => filch::task::block_in_place(|| {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                1
            }),
        });
    }
    acc
}

/// Spawns `workers` tasks on `ex` that each hold their worker with polls of `kind` until
/// `stop` is set, and returns their handles once all have started.
fn spawn_holders(
    ex: &filch::Executor,
    workers: usize,
    kind: Kind,
    stop: &Arc<AtomicBool>,
) -> Vec<filch::JoinHandle<u64>> {
    let started = Arc::new(AtomicUsize::new(0));
    let holders = (0..workers)
        .map(|_| {
            let (stop, started) = (Arc::clone(stop), Arc::clone(&started));
            ex.spawn(async move {
                started.fetch_add(1, Ordering::SeqCst);
                hold(kind, &stop)
            })
        })
        .collect();
    while started.load(Ordering::SeqCst) < workers {
        std::thread::yield_now();
    }
    holders
}

/// A 10 ms timer and a TCP echo, from tasks of `ex` (the caller is no worker).
pub(crate) fn timer_and_echo(ex: &filch::Executor) {
    let served = ex.block_on(async {
        let timer = filch::spawn(async {
            filch::time::sleep(Duration::from_millis(10)).await;
        });
        let listener = filch::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let echo = filch::spawn(async move {
            let (mut conn, _) = listener.accept().await.unwrap();
            let mut buf = [0; 4];
            conn.read_exact(&mut buf).await.unwrap();
            conn.write_all(&buf).await.unwrap();
        });
        let mut client = filch::net::TcpStream::connect(addr).await.unwrap();
        client.write_all(b"ping").await.unwrap();
        let mut back = [0; 4];
        client.read_exact(&mut back).await.unwrap();
        timer.await.unwrap();
        echo.await.unwrap();
        back
    });
    assert_eq!(&served, b"ping");
}

/// Holds every worker of an executor of `workers` with polls of `kind`, then has a timer and
/// an echo served.
fn check(kind: Kind, workers: usize) {
    let ex = executor(workers);
    let stop = Arc::new(AtomicBool::new(false));
    let holders = spawn_holders(&ex, workers, kind, &stop);
    timer_and_echo(&ex);
    stop.store(true, Ordering::Relaxed);
    for holder in holders {
        ex.block_on(holder).unwrap();
    }
}

fn check_all_sizes(kind: Kind) {
    for workers in [1, 2, 4] {
        watchdog(
            60,
            &format!("{kind:?} holds {workers} workers"),
            move || check(kind, workers),
        );
    }
}

#[test]
fn a_cpu_loop_in_a_poll_leaves_timers_and_io_served() {
    check_all_sizes(Kind::Cpu);
}

#[test]
fn a_blocking_call_in_a_poll_leaves_timers_and_io_served() {
    check_all_sizes(Kind::Blocking);
}

#[test]
fn short_par_iters_back_to_back_leave_timers_and_io_served() {
    for n in [10, 100, 1024] {
        check_all_sizes(Kind::ParIter(n));
    }
}

#[test]
fn joins_back_to_back_leave_timers_and_io_served() {
    check_all_sizes(Kind::Joins);
}

#[test]
fn block_in_place_leaves_timers_and_io_served() {
    check_all_sizes(Kind::BlockInPlace);
}

/// Every worker is held by a CPU loop; a task the stand-ins then poll calls `kind`'s
/// fork-join work until a timer fired: the stand-in hands its slot on and runs the call, so
/// the timer is served meanwhile.
fn check_standin_forkjoin(kind: Kind, workers: usize) {
    let ex = executor(workers);
    let stop = Arc::new(AtomicBool::new(false));
    let holders = spawn_holders(&ex, workers, Kind::Cpu, &stop);
    // Polled by a stand-in: every worker is held.
    let fired = Arc::new(AtomicBool::new(false));
    let forker = {
        let fired = Arc::clone(&fired);
        ex.spawn(async move { hold(kind, &fired) })
    };
    ex.block_on(async {
        filch::time::sleep(Duration::from_millis(10)).await;
    });
    fired.store(true, Ordering::Relaxed);
    ex.block_on(forker).unwrap();
    stop.store(true, Ordering::Relaxed);
    for holder in holders {
        ex.block_on(holder).unwrap();
    }
}

#[test]
fn a_task_polled_by_a_stand_in_may_join_and_iterate_in_parallel() {
    for kind in [Kind::Joins, Kind::ParIter(1024), Kind::BlockInPlace] {
        for workers in [1, 2, 4] {
            watchdog(
                60,
                &format!("{kind:?} on a stand-in, {workers} workers"),
                move || check_standin_forkjoin(kind, workers),
            );
        }
    }
}

/// rayon#592 on the stand-in path: every worker is held by a CPU loop, so the stand-ins poll a
/// task that holds a `std::sync::Mutex` across a `join` recursion and 20 tasks that lock it;
/// all complete (the CPU loops stop only then).
#[test]
fn a_mutex_held_across_join_on_a_stand_in_does_not_deadlock() {
    for workers in [1, 2, 4] {
        watchdog(
            60,
            &format!("mutex on a stand-in, {workers} workers"),
            move || {
                let ex = executor(workers);
                let stop = Arc::new(AtomicBool::new(false));
                let holders = spawn_holders(&ex, workers, Kind::Cpu, &stop);
                let lock = Arc::new(Mutex::new(0u64));
                let done = Arc::new(AtomicU64::new(0));
                let joiner = {
                    let lock = Arc::clone(&lock);
                    ex.spawn(async move {
                        let mut guard = lock.lock().unwrap();
                        for _ in 0..5 {
                            *guard += sum(0, 1 << 14);
                        }
                    })
                };
                let lockers: Vec<_> = (0..20)
                    .map(|_| {
                        let (lock, done) = (Arc::clone(&lock), Arc::clone(&done));
                        ex.spawn(async move {
                            *lock.lock().unwrap() += 1;
                            done.fetch_add(1, Ordering::SeqCst);
                        })
                    })
                    .collect();
                ex.block_on(joiner).unwrap();
                for locker in lockers {
                    ex.block_on(locker).unwrap();
                }
                assert_eq!(done.load(Ordering::SeqCst), 20);
                assert_eq!(
                    *lock.lock().unwrap(),
                    5 * ((1u64 << 14) * ((1 << 14) - 1) / 2) + 20
                );
                stop.store(true, Ordering::Relaxed);
                for holder in holders {
                    ex.block_on(holder).unwrap();
                }
            },
        );
    }
}
