//! A thread that waits for a node (a join's stolen half, a scope, a call into another
//! executor) runs only pieces that descend from it: never a piece of a join it is itself
//! inside, which would run that join's second half while its first half still runs below it
//! on the same stack (holding a lock, say: rayon#592).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use filch::par::{join, scope};

use crate::common::{executor, watchdog};

/// On one worker: the outer join's first half holds a lock and opens a scope; inside one of
/// the scope's closures a heartbeat passes and a nested join publishes the thread's oldest
/// unpublished frame, the outer join's. The scope's owner, waiting for its other closure,
/// must not take that frame's half: it is not the scope's work, and it takes the lock.
#[test]
fn a_waiting_thread_never_runs_the_half_of_a_join_it_is_inside() {
    watchdog(
        60,
        "a_waiting_thread_never_runs_the_half_of_a_join_it_is_inside",
        || {
            let ex = executor(1);
            for _ in 0..20 {
                let lock = Mutex::new(0);
                let holder = Mutex::new(None);
                ex.install(|| {
                    // Takes this tick's first-call heartbeat, so that the next join's frame is
                    // (almost always) left unpublished by its own check.
                    join(|| (), || ());
                    join(
                        || {
                            let mut held = lock.lock().unwrap();
                            *holder.lock().unwrap() = Some(std::thread::current().id());
                            scope(|s| {
                                // Still waiting when the frame is published: the scope's
                                // owner looks for more of its work then.
                                s.spawn(|_| ());
                                // Runs first (newest first on one worker).
                                s.spawn(|_| {
                                    // A few ticks of the epoch ticker pass, then a nested join
                                    // looks at them.
                                    let start = Instant::now();
                                    while start.elapsed() < Duration::from_millis(3) {
                                        std::hint::spin_loop();
                                    }
                                    join(|| (), || ());
                                });
                            });
                            *held += 1;
                        },
                        || {
                            // Another thread may take this half while the first runs (a
                            // stand-in that ran the whole call leaves the worker free to):
                            // it then waits for the lock. The thread that holds it must not.
                            let mut held = match lock.try_lock() {
                                Ok(held) => held,
                                Err(_) => {
                                    assert_ne!(
                                        *holder.lock().unwrap(),
                                        Some(std::thread::current().id()),
                                        "the second half ran on the thread whose first half \
                                         held the lock"
                                    );
                                    lock.lock().unwrap()
                                }
                            };
                            *held += 1;
                        },
                    );
                });
                assert_eq!(lock.into_inner().unwrap(), 2);
            }
        },
    );
}
