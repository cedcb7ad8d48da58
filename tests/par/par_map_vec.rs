//! `par_map_vec`: each item moved into `f` exactly once, results in the order of the items;
//! on a panic, an early drop of the future or the executor's shutdown, every item and every
//! result is dropped exactly once (per-element drop counters).

use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Waker};

use crate::common::{executor, poll_to_end_catching, wait_until, watchdog};

/// Per element: how many times it was moved into `f`, and how many times the item and
/// the result made from it were dropped.
struct Ledger {
    moved: Vec<AtomicUsize>,
    items_dropped: Vec<AtomicUsize>,
    results_made: Vec<AtomicUsize>,
    results_dropped: Vec<AtomicUsize>,
}

impl Ledger {
    fn new(n: usize) -> Arc<Ledger> {
        let zeros = || (0..n).map(|_| AtomicUsize::new(0)).collect();
        Arc::new(Ledger {
            moved: zeros(),
            items_dropped: zeros(),
            results_made: zeros(),
            results_dropped: zeros(),
        })
    }

    fn items(self: &Arc<Ledger>) -> Vec<Item> {
        (0..self.moved.len())
            .map(|k| Item {
                k,
                ledger: Arc::clone(self),
            })
            .collect()
    }

    fn sum(counters: &[AtomicUsize]) -> usize {
        counters.iter().map(|c| c.load(Ordering::SeqCst)).sum()
    }

    /// Every item dropped exactly once (in `f` or by the loop), every result made dropped
    /// exactly once, no item moved twice.
    fn settled(&self) -> bool {
        let n = self.moved.len();
        Ledger::sum(&self.items_dropped) == n
            && Ledger::sum(&self.results_dropped) == Ledger::sum(&self.results_made)
    }

    fn assert_exactly_once(&self, what: &str) {
        for k in 0..self.moved.len() {
            let moved = self.moved[k].load(Ordering::SeqCst);
            let dropped = self.items_dropped[k].load(Ordering::SeqCst);
            let made = self.results_made[k].load(Ordering::SeqCst);
            let results_dropped = self.results_dropped[k].load(Ordering::SeqCst);
            assert!(moved <= 1, "{what}: item {k} moved into f {moved} times");
            assert_eq!(dropped, 1, "{what}: item {k} dropped {dropped} times");
            assert!(made <= moved, "{what}: result {k} made without its item");
            assert_eq!(
                results_dropped, made,
                "{what}: result {k} made {made} times, dropped {results_dropped} times"
            );
        }
    }
}

/// An input element: counts its drop.
struct Item {
    k: usize,
    ledger: Arc<Ledger>,
}

impl Drop for Item {
    fn drop(&mut self) {
        self.ledger.items_dropped[self.k].fetch_add(1, Ordering::SeqCst);
    }
}

/// An output element: counts its drop.
struct Output {
    k: usize,
    ledger: Arc<Ledger>,
}

impl Drop for Output {
    fn drop(&mut self) {
        self.ledger.results_dropped[self.k].fetch_add(1, Ordering::SeqCst);
    }
}

/// The `f` of these tests: records the move, drops the item, makes the result. `Output`
/// has the layout of `Item`, so the loop writes the results over the items.
fn convert(item: Item) -> Output {
    let ledger = Arc::clone(&item.ledger);
    ledger.moved[item.k].fetch_add(1, Ordering::SeqCst);
    ledger.results_made[item.k].fetch_add(1, Ordering::SeqCst);
    Output { k: item.k, ledger }
}

/// A result larger than `Item`: the loop writes the results into a new buffer.
struct Big {
    out: Output,
    _pad: [u64; 3],
}

fn convert_big(item: Item) -> Big {
    Big {
        out: convert(item),
        _pad: [0; 3],
    }
}

/// A result of either layout, and the index it was made from.
trait Made: Send + 'static {
    fn k(&self) -> usize;
}

impl Made for Output {
    fn k(&self) -> usize {
        self.k
    }
}

impl Made for Big {
    fn k(&self) -> usize {
        self.out.k
    }
}

/// Runs `test` with results written over the items and into a new buffer.
macro_rules! both_layouts {
    ($test:ident) => {
        $test("in place", convert);
        $test("new buffer", convert_big);
    };
}

fn each_item_moved_once_with<R: Made>(layout: &str, f: fn(Item) -> R) {
    for workers in 1..=3 {
        let ex = executor(workers);
        for n in [0, 1, 2, 3, 7, 1000, 4099, 100_003] {
            let what = format!("{layout}, {workers} workers, {n} items");
            let ledger = Ledger::new(n);
            let results = ex.block_on(ex.par_map_vec(ledger.items(), f));
            assert_eq!(results.len(), n, "{what}");
            assert!(
                results.iter().enumerate().all(|(k, r)| r.k() == k),
                "{what}: results out of order"
            );
            assert!(
                ledger.moved.iter().all(|m| m.load(Ordering::SeqCst) == 1),
                "{what}: an item was not moved exactly once"
            );
            drop(results);
            ledger.assert_exactly_once(&what);
        }
    }
}

#[test]
fn each_item_moved_once_results_in_order() {
    watchdog(120, "each_item_moved_once_results_in_order", || {
        both_layouts!(each_item_moved_once_with);
    });
}

#[test]
fn results_of_the_same_layout_reuse_the_allocation() {
    let ex = executor(2);
    let v: Vec<u64> = (0..10_000).collect();
    let (ptr, cap) = (v.as_ptr() as usize, v.capacity());
    let out = ex.block_on(ex.par_map_vec(v, |x| -(x as i64)));
    assert_eq!((out.as_ptr() as usize, out.capacity()), (ptr, cap));
    assert!(out.iter().enumerate().all(|(i, &x)| x == -(i as i64)));
    // Another layout cannot reuse it.
    let v: Vec<u32> = (0..10_000).collect();
    let out = ex.block_on(ex.par_map_vec(v, u64::from));
    assert!(out.iter().enumerate().all(|(i, &x)| x == i as u64));
}

#[test]
fn strings_and_zero_sized_and_non_sync_items() {
    watchdog(60, "strings_and_zero_sized_and_non_sync_items", || {
        let ex = executor(2);
        let words: Vec<String> = (0..5000).map(|i| format!("w{i}")).collect();
        let expected: Vec<usize> = words.iter().map(String::len).collect();
        assert_eq!(ex.block_on(ex.par_map_vec(words, |w| w.len())), expected);

        let units = vec![(); 10_000];
        let out = ex.block_on(ex.par_map_vec(units, |()| 7u8));
        assert_eq!(out, vec![7u8; 10_000]);
        let zs = ex.block_on(ex.par_map_vec(vec![1u32; 3000], |_| ()));
        assert_eq!(zs.len(), 3000);

        // Cell is Send but not Sync: each item goes to one thread only.
        let cells: Vec<Cell<u64>> = (0..3000).map(Cell::new).collect();
        let out = ex.block_on(ex.par_map_vec(cells, |c| {
            c.set(c.get() * 2);
            c.get()
        }));
        assert!(out.iter().enumerate().all(|(i, &v)| v == 2 * i as u64));

        // The free function, in block_on and in a spawned task.
        let v = filch::block_on(filch::par_map_vec(vec![1, 2, 3], |x: i32| x * 10));
        assert_eq!(v, vec![10, 20, 30]);
        let task = ex.spawn(filch::par_map_vec(vec![4, 5], |x: i32| -x));
        assert_eq!(ex.block_on(task).expect("task"), vec![-4, -5]);
    });
}

fn a_panic_drops_once_with<R: Made>(layout: &str, f: fn(Item) -> R) {
    for workers in 1..=3 {
        let ex = executor(workers);
        for (n, bad) in [(1, 0), (10, 9), (5000, 0), (5000, 2500), (100_000, 77_777)] {
            let what = format!("{layout}, {workers} workers, {n} items, panic at {bad}");
            let ledger = Ledger::new(n);
            let fut = ex.par_map_vec(ledger.items(), move |item| {
                if item.k == bad {
                    panic!("boom");
                }
                f(item)
            });
            let caught =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ex.block_on(fut)));
            assert!(caught.is_err(), "{what}: the panic was not resumed");
            // The loop's buffers go when its call is done with them.
            wait_until(30, &what, || ledger.settled());
            ledger.assert_exactly_once(&what);
            assert_eq!(
                ledger.moved[bad].load(Ordering::SeqCst),
                0,
                "{what}: the panicking f got the item but did not count it"
            );
        }
    }
}

#[test]
fn a_panic_drops_every_item_and_result_once() {
    watchdog(120, "a_panic_drops_every_item_and_result_once", || {
        both_layouts!(a_panic_drops_once_with);
    });
}

fn dropping_the_future_with<R: Made>(layout: &str, f: fn(Item) -> R) {
    for workers in 1..=3 {
        let ex = executor(workers);
        let n = 200_000;
        let what = format!("{layout}, {workers} workers");
        let ledger = Ledger::new(n);
        let started = Arc::new(AtomicBool::new(false));
        let s = Arc::clone(&started);
        let mut fut = Box::pin(ex.par_map_vec(ledger.items(), move |item| {
            s.store(true, Ordering::SeqCst);
            // Slow enough on any build that the drop lands in the middle (a sum, which a
            // release build folds away, would let the loop end first).
            std::thread::sleep(std::time::Duration::from_micros(20));
            f(item)
        }));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(fut.as_mut().poll(&mut cx).is_pending(), "{what}");
        wait_until(30, "the first item", || started.load(Ordering::SeqCst));
        drop(fut);
        wait_until(30, &what, || ledger.settled());
        ledger.assert_exactly_once(&what);
        let moved = Ledger::sum(&ledger.moved);
        assert!(
            moved < n,
            "{what}: the drop did not stop the loop ({moved} moved)"
        );
    }
}

#[test]
fn dropping_the_future_drops_every_item_and_result_once() {
    watchdog(
        120,
        "dropping_the_future_drops_every_item_and_result_once",
        || {
            both_layouts!(dropping_the_future_with);
        },
    );
}

#[test]
fn a_never_polled_loop_drops_its_items() {
    let ledger = Ledger::new(100);
    let ex = executor(2);
    drop(ex.par_map_vec(ledger.items(), convert));
    assert_eq!(Ledger::sum(&ledger.moved), 0);
    ledger.assert_exactly_once("never polled");
}

fn shutting_down_with<R: Made>(layout: &str, f: fn(Item) -> R) {
    let ledger = Ledger::new(100_000);
    let ex = executor(2);
    let in_body = Arc::new(AtomicUsize::new(0));
    let b = Arc::clone(&in_body);
    let mut fut = Box::pin(ex.par_map_vec(ledger.items(), move |item| {
        b.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_micros(50));
        f(item)
    }));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(fut.as_mut().poll(&mut cx).is_pending());
    wait_until(30, "items running", || in_body.load(Ordering::SeqCst) > 10);
    drop(ex);
    // The shutdown stopped the call at its next block of items: the future panics with a
    // message.
    let polled = poll_to_end_catching(&mut fut, &mut cx, |v| v.len());
    assert!(
        polled.is_err(),
        "{layout}: completed under a shut-down executor"
    );
    drop(fut);
    wait_until(30, "drops", || ledger.settled());
    ledger.assert_exactly_once(&format!("{layout}, shutdown"));
}

#[test]
fn shutting_the_executor_down_drops_every_item_and_result_once() {
    watchdog(
        120,
        "shutting_the_executor_down_drops_every_item_and_result_once",
        || {
            both_layouts!(shutting_down_with);
        },
    );
}
