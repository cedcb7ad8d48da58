//! A lock held across a `join` is never taken again by the same thread through work it had
//! no part in: a thread waiting in a `join` runs only pieces of what it waits for, never an
//! unrelated task (rayon#592, rayon#1205 deadlock there).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::{executor, watchdog};

/// Sums `lo..hi` by halving, with `join` at each level.
pub(crate) fn sum(lo: u64, hi: u64) -> u64 {
    if hi - lo <= 64 {
        return (lo..hi).sum();
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = filch::par::join(|| sum(lo, mid), || sum(mid, hi));
    a + b
}

/// A task holds a `std::sync::Mutex` across a `join` recursion while 100 other tasks lock
/// it: the holder's thread never runs one of them while it waits, so all complete.
#[test]
fn a_task_holding_a_mutex_across_join_completes_while_100_tasks_lock_it() {
    for workers in [1, 2, 4] {
        watchdog(
            60,
            &format!("mutex across join, {workers} workers"),
            move || {
                let ex = executor(workers);
                let lock = Arc::new(Mutex::new(0u64));
                let done = Arc::new(AtomicUsize::new(0));
                let holder = {
                    let lock = Arc::clone(&lock);
                    ex.spawn(async move {
                        let mut guard = lock.lock().unwrap();
                        for _ in 0..20 {
                            *guard += sum(0, 1 << 16);
                        }
                        *guard
                    })
                };
                let lockers: Vec<_> = (0..100)
                    .map(|_| {
                        let lock = Arc::clone(&lock);
                        let done = Arc::clone(&done);
                        ex.spawn(async move {
                            *lock.lock().unwrap() += 1;
                            done.fetch_add(1, Ordering::SeqCst);
                        })
                    })
                    .collect();
                let held = ex.block_on(holder).unwrap();
                assert!(held >= 20 * ((1u64 << 16) * ((1 << 16) - 1) / 2));
                for task in lockers {
                    ex.block_on(task).unwrap();
                }
                assert_eq!(done.load(Ordering::SeqCst), 100);
            },
        );
    }
}

/// rayon#592's shape: each piece of an outer recursion takes a lock and runs an inner `join`
/// recursion while holding it. A thread waiting in the inner one never runs another outer
/// piece (which would lock again, on the same thread: a deadlock), on 1, 2 and 4 workers.
#[test]
fn nested_joins_under_a_lock_never_lock_again_on_the_same_thread() {
    fn outer(lock: &Mutex<u64>, lo: u64, hi: u64) {
        if hi - lo == 1 {
            let mut guard = lock.lock().unwrap();
            *guard += sum(0, 1 << 12);
            return;
        }
        let mid = lo + (hi - lo) / 2;
        filch::par::join(|| outer(lock, lo, mid), || outer(lock, mid, hi));
    }
    for workers in [1, 2, 4] {
        watchdog(60, &format!("rayon#592, {workers} workers"), move || {
            let ex = executor(workers);
            let lock = Mutex::new(0);
            ex.install(|| outer(&lock, 0, 64));
            assert_eq!(
                *lock.lock().unwrap(),
                64 * ((1u64 << 12) * ((1 << 12) - 1) / 2)
            );
        });
    }
}

/// A fire-and-forget `spawn_broadcast` reaches a worker that holds a lock across a `join`
/// whose other half a thief runs for a while: the worker waits ticks with nothing of its own
/// to run, yet runs the part only after its `join` returned (nobody waits for that part, so
/// the wait's late mail, `runtime/scheduler/forkjoin/wait.rs`, leaves it): no part runs
/// inside the holder's locked section, where taking the lock would deadlock.
#[test]
fn a_spawned_broadcast_part_waits_for_the_join_that_holds_a_lock() {
    thread_local! {
        /// Whether this thread is inside the holder's locked section.
        static HOLDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    watchdog(60, "spawned broadcast across a held lock", || {
        let pool = Arc::new(
            filch::par::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap(),
        );
        let lock = Arc::new(Mutex::new(()));
        let stolen = Arc::new(AtomicUsize::new(0));
        let posted = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        let holder = {
            let (pool, lock) = (Arc::clone(&pool), Arc::clone(&lock));
            let (stolen, posted) = (Arc::clone(&stolen), Arc::clone(&posted));
            std::thread::spawn(move || {
                pool.install(|| {
                    let held = lock.lock().unwrap();
                    HOLDING.with(|h| h.set(true));
                    filch::par::join(
                        // Until the other half has started on the other worker.
                        || {
                            while stolen.load(Ordering::SeqCst) == 0 {
                                std::thread::yield_now();
                            }
                        },
                        // On the thief: until the part is posted, then ten ticks more, so
                        // that the holder waits with the part in its mailbox.
                        || {
                            stolen.store(1, Ordering::SeqCst);
                            while posted.load(Ordering::SeqCst) == 0 {
                                std::thread::yield_now();
                            }
                            std::thread::sleep(std::time::Duration::from_millis(10));
                        },
                    );
                    HOLDING.with(|h| h.set(false));
                    drop(held);
                })
            })
        };
        while stolen.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        // Each worker's part says whether it ran inside the holder's locked section (on the
        // holder's thread, in its join's wait), where taking the lock would deadlock.
        pool.spawn_broadcast(move |ctx| {
            tx.send((ctx.index(), HOLDING.with(|h| h.get()))).unwrap();
        });
        posted.store(1, Ordering::SeqCst);
        holder.join().unwrap();
        let mut parts: Vec<(usize, bool)> = rx.iter().take(2).collect();
        parts.sort();
        assert_eq!(
            parts,
            [(0, false), (1, false)],
            "a part ran on the holder's thread while its join held the lock"
        );
    });
}
