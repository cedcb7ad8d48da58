//! `par_for_each_mut`: `f` sees each element exactly once, in place, and the same `Vec` (the
//! same allocation) comes back; on a panic, an early drop of the future or the executor's
//! shutdown, every element is dropped exactly once (per-element drop counters).

use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Waker};

use crate::common::{executor, poll_to_end_catching, wait_until, watchdog};

/// An element that counts its visits and its drop.
struct Elem {
    k: usize,
    visits: u32,
    drops: Arc<Vec<AtomicUsize>>,
}

impl Drop for Elem {
    fn drop(&mut self) {
        self.drops[self.k].fetch_add(1, Ordering::SeqCst);
    }
}

fn elems(n: usize) -> (Vec<Elem>, Arc<Vec<AtomicUsize>>) {
    let drops: Arc<Vec<AtomicUsize>> = Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect());
    let v = (0..n)
        .map(|k| Elem {
            k,
            visits: 0,
            drops: Arc::clone(&drops),
        })
        .collect();
    (v, drops)
}

fn all_dropped_once(drops: &[AtomicUsize]) -> bool {
    drops.iter().all(|d| d.load(Ordering::SeqCst) == 1)
}

fn assert_each_dropped_once(drops: &[AtomicUsize], what: &str) {
    for (k, d) in drops.iter().enumerate() {
        let n = d.load(Ordering::SeqCst);
        assert_eq!(n, 1, "{what}: element {k} dropped {n} times");
    }
}

#[test]
fn each_element_visited_once_same_vec_back() {
    watchdog(120, "each_element_visited_once_same_vec_back", || {
        for workers in 1..=3 {
            let ex = executor(workers);
            for n in [0, 1, 2, 3, 7, 1000, 4099, 100_003] {
                let what = format!("{workers} workers, {n} elements");
                let (mut v, drops) = elems(n);
                v.reserve(17);
                let (ptr, cap) = (v.as_ptr(), v.capacity());
                let v = ex.block_on(ex.par_for_each_mut(v, |k, e: &mut Elem| {
                    assert_eq!(k, e.k, "index and element disagree");
                    e.visits += 1;
                }));
                assert_eq!((v.as_ptr(), v.capacity(), v.len()), (ptr, cap, n), "{what}");
                assert!(
                    v.iter().enumerate().all(|(k, e)| e.k == k && e.visits == 1),
                    "{what}: an element was not visited exactly once, in place"
                );
                assert!(
                    drops.iter().all(|d| d.load(Ordering::SeqCst) == 0),
                    "{what}"
                );
                drop(v);
                assert_each_dropped_once(&drops, &what);
            }
        }
    });
}

#[test]
fn empty_vec_with_capacity_comes_back() {
    let ex = executor(2);
    let v: Vec<String> = Vec::with_capacity(64);
    let (ptr, cap) = (v.as_ptr(), v.capacity());
    let back = ex.block_on(ex.par_for_each_mut(v, |_, s| s.push('x')));
    assert_eq!((back.as_ptr(), back.capacity(), back.len()), (ptr, cap, 0));
}

#[test]
fn non_sync_elements_and_free_function() {
    watchdog(60, "non_sync_elements_and_free_function", || {
        let ex = executor(2);
        // Cell is Send but not Sync: each element is touched by one thread at a time.
        let cells: Vec<Cell<usize>> = (0..5000).map(|_| Cell::new(0)).collect();
        let cells = ex.block_on(ex.par_for_each_mut(cells, |k, c| c.set(c.get() + k)));
        assert!(cells.iter().enumerate().all(|(k, c)| c.get() == k));
        let v = filch::block_on(filch::par_for_each_mut(vec![1u8, 2, 3], |_, x| *x += 1));
        assert_eq!(v, vec![2, 3, 4]);
        let task = ex.spawn(filch::par_for_each_mut(vec![String::from("a")], |k, s| {
            s.push_str(&k.to_string())
        }));
        assert_eq!(ex.block_on(task).expect("task"), vec!["a0".to_string()]);
    });
}

#[test]
fn a_panic_drops_every_element_once() {
    watchdog(120, "a_panic_drops_every_element_once", || {
        for workers in 1..=3 {
            let ex = executor(workers);
            for (n, bad) in [(1, 0), (10, 9), (5000, 2500), (100_000, 77_777)] {
                let what = format!("{workers} workers, {n} elements, panic at {bad}");
                let (v, drops) = elems(n);
                let fut = ex.par_for_each_mut(v, move |k, e| {
                    e.visits += 1;
                    if k == bad {
                        panic!("boom");
                    }
                });
                let caught =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ex.block_on(fut)));
                assert!(caught.is_err(), "{what}: the panic was not resumed");
                wait_until(30, &what, || all_dropped_once(&drops));
                assert_each_dropped_once(&drops, &what);
            }
        }
    });
}

#[test]
fn dropping_the_future_drops_every_element_once() {
    watchdog(120, "dropping_the_future_drops_every_element_once", || {
        for workers in 1..=3 {
            let ex = executor(workers);
            let n = 200_000;
            let what = format!("{workers} workers");
            let (v, drops) = elems(n);
            let visited = Arc::new(AtomicUsize::new(0));
            let seen = Arc::clone(&visited);
            let mut fut = Box::pin(ex.par_for_each_mut(v, move |_, e| {
                e.visits += 1;
                seen.fetch_add(1, Ordering::SeqCst);
                // Long enough on any build that the loop is far from its end when dropped
                // (a sum, which a release build folds away, would let it end first).
                std::thread::sleep(std::time::Duration::from_micros(20));
            }));
            let mut cx = Context::from_waker(Waker::noop());
            assert!(fut.as_mut().poll(&mut cx).is_pending(), "{what}");
            wait_until(30, "the first element", || {
                visited.load(Ordering::SeqCst) > 0
            });
            drop(fut);
            wait_until(30, &what, || all_dropped_once(&drops));
            assert_each_dropped_once(&drops, &what);
            let visited = visited.load(Ordering::SeqCst);
            assert!(visited < n, "{what}: the drop did not stop the loop");
        }
    });
}

#[test]
fn shutting_the_executor_down_drops_every_element_once() {
    watchdog(
        120,
        "shutting_the_executor_down_drops_every_element_once",
        || {
            let (v, drops) = elems(100_000);
            let ex = executor(2);
            let in_body = Arc::new(AtomicBool::new(false));
            let b = Arc::clone(&in_body);
            let mut fut = Box::pin(ex.par_for_each_mut(v, move |_, e| {
                b.store(true, Ordering::SeqCst);
                e.visits += 1;
                std::thread::sleep(std::time::Duration::from_micros(50));
            }));
            let mut cx = Context::from_waker(Waker::noop());
            assert!(fut.as_mut().poll(&mut cx).is_pending());
            wait_until(30, "elements running", || in_body.load(Ordering::SeqCst));
            drop(ex);
            let polled = poll_to_end_catching(&mut fut, &mut cx, |v| v.len());
            assert!(
                polled.is_err(),
                "completed under a shut-down executor: {polled:?}"
            );
            drop(fut);
            wait_until(30, "drops", || all_dropped_once(&drops));
            assert_each_dropped_once(&drops, "shutdown");
        },
    );
}
