//! rayon-core's own tests of `scope` (rayon-core 1.13.0, `src/scope/test.rs`), ported to
//! `filch::par`. rayon's "no pool" is filch's global executor (the tests run on a thread
//! outside every executor); rayon's `ThreadPool` is filch's. The order tests hold on a 1-worker executor, where filch runs a scope's spawns in
//! rayon's LIFO order (API.md).
//!
//! Adapted: rayon's seeded `XorShiftRng` is a SplitMix sequence (`common::mix`); each test
//! runs under the watchdog; the panic tests also count the drops of what the closures own.
//! The `scope_fifo` tests are ported as they are, but `mixed_fifo_order`,
//! `mixed_lifo_fifo_order` and `mixed_fifo_lifo_order`, which assert filch's order: rayon
//! runs a FIFO scope's closures through per-scope queues that its deque points into, so its
//! inner scope's wait runs closure 0, which the outer scope spawned before the inner one
//! opened; filch's waiting thread runs only what descends from the scope it waits for
//! (`runtime/scheduler/forkjoin/wait.rs`), so closure 0 runs in the outer scope's wait, and the
//! inner scope's wait runs what was spawned inside it in its own order (newest first in a
//! `scope`, oldest first in a `scope_fifo`). The `spawn_broadcast` tests also assert that
//! each worker's part ran once.

use std::iter::once;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::vec;

use filch::par::{scope, scope_fifo, Scope, ScopeFifo, ThreadPoolBuilder};

use crate::common::{mix, panic_message, watchdog, Tally};

// origin: rayon-core src/scope/test.rs::scope_empty
#[test]
fn scope_empty() {
    watchdog(60, "scope_empty", || {
        scope(|_| {});
    });
}

// origin: rayon-core src/scope/test.rs::scope_result
#[test]
fn scope_result() {
    watchdog(60, "scope_result", || {
        let x = scope(|_| 22);
        assert_eq!(x, 22);
    });
}

// origin: rayon-core src/scope/test.rs::scope_two
#[test]
fn scope_two() {
    watchdog(60, "scope_two", || {
        let counter = &AtomicUsize::new(0);
        scope(|s| {
            s.spawn(move |_| {
                counter.fetch_add(1, Ordering::SeqCst);
            });
            s.spawn(move |_| {
                counter.fetch_add(10, Ordering::SeqCst);
            });
        });

        let v = counter.load(Ordering::SeqCst);
        assert_eq!(v, 11);
    });
}

// origin: rayon-core src/scope/test.rs::scope_divide_and_conquer
#[test]
fn scope_divide_and_conquer() {
    watchdog(60, "scope_divide_and_conquer", || {
        let counter_p = &AtomicUsize::new(0);
        scope(|s| s.spawn(move |s| divide_and_conquer(s, counter_p, 1024)));

        let counter_s = &AtomicUsize::new(0);
        divide_and_conquer_seq(counter_s, 1024);

        let p = counter_p.load(Ordering::SeqCst);
        let s = counter_s.load(Ordering::SeqCst);
        assert_eq!(p, s);
    });
}

fn divide_and_conquer<'scope>(scope: &Scope<'scope>, counter: &'scope AtomicUsize, size: usize) {
    if size > 1 {
        scope.spawn(move |scope| divide_and_conquer(scope, counter, size / 2));
        scope.spawn(move |scope| divide_and_conquer(scope, counter, size / 2));
    } else {
        // count the leaves
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

fn divide_and_conquer_seq(counter: &AtomicUsize, size: usize) {
    if size > 1 {
        divide_and_conquer_seq(counter, size / 2);
        divide_and_conquer_seq(counter, size / 2);
    } else {
        // count the leaves
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

struct Tree<T: Send> {
    value: T,
    children: Vec<Tree<T>>,
}

impl<T: Send> Tree<T> {
    fn iter(&self) -> vec::IntoIter<&T> {
        once(&self.value)
            .chain(self.children.iter().flat_map(Tree::iter))
            .collect::<Vec<_>>() // seems like it shouldn't be needed... but prevents overflow
            .into_iter()
    }

    fn update<OP>(&mut self, op: OP)
    where
        OP: Fn(&mut T) + Sync,
        T: Send,
    {
        scope(|s| self.update_in_scope(&op, s));
    }

    fn update_in_scope<'scope, OP>(&'scope mut self, op: &'scope OP, scope: &Scope<'scope>)
    where
        OP: Fn(&mut T) + Sync,
    {
        let Tree {
            ref mut value,
            ref mut children,
        } = *self;
        scope.spawn(move |scope| {
            for child in children {
                scope.spawn(move |scope| child.update_in_scope(op, scope));
            }
        });

        op(value);
    }
}

/// A pseudo-random sequence, the same on every run (rayon's seeded `XorShiftRng`).
struct Seeded(u64);

impl Seeded {
    /// A value in `0..n`.
    fn below(&mut self, n: u32) -> u32 {
        self.0 += 1;
        (mix(self.0) % u64::from(n)) as u32
    }
}

fn random_tree(depth: usize) -> Tree<u32> {
    assert!(depth > 0);
    random_tree1(depth, &mut Seeded(0))
}

fn random_tree1(depth: usize, rng: &mut Seeded) -> Tree<u32> {
    let children = if depth == 0 {
        vec![]
    } else {
        (0..rng.below(4)) // somewhere between 0 and 3 children at each level
            .map(|_| random_tree1(depth - 1, rng))
            .collect()
    };

    Tree {
        value: rng.below(1_000_000),
        children,
    }
}

// origin: rayon-core src/scope/test.rs::update_tree
#[test]
fn update_tree() {
    watchdog(60, "update_tree", || {
        let mut tree: Tree<u32> = random_tree(10);
        let values: Vec<u32> = tree.iter().cloned().collect();
        tree.update(|v| *v += 1);
        let new_values: Vec<u32> = tree.iter().cloned().collect();
        assert_eq!(values.len(), new_values.len());
        for (&i, &j) in values.iter().zip(&new_values) {
            assert_eq!(i + 1, j);
        }
    });
}

/// Check that if you have a chain of scoped tasks where T0 spawns T1
/// spawns T2 and so forth down to Tn, the stack space should not grow
/// linearly with N. We test this by some unsafe hackery and
/// permitting an approx 10% change with a 10x input change.
// origin: rayon-core src/scope/test.rs::linear_stack_growth
#[test]
fn linear_stack_growth() {
    watchdog(60, "linear_stack_growth", || {
        let builder = ThreadPoolBuilder::new().num_threads(1);
        let pool = builder.build().unwrap();
        pool.install(|| {
            let mut max_diff = Mutex::new(0);
            let bottom_of_stack = 0;
            scope(|s| the_final_countdown(s, &bottom_of_stack, &max_diff, 5));
            let diff_when_5 = *max_diff.get_mut().unwrap() as f64;

            scope(|s| the_final_countdown(s, &bottom_of_stack, &max_diff, 500));
            let diff_when_500 = *max_diff.get_mut().unwrap() as f64;

            let ratio = diff_when_5 / diff_when_500;
            assert!(
                ratio > 0.9 && ratio < 1.1,
                "stack usage ratio out of bounds: {ratio}"
            );
        });
    });
}

fn the_final_countdown<'scope>(
    s: &Scope<'scope>,
    bottom_of_stack: &'scope i32,
    max: &'scope Mutex<usize>,
    n: usize,
) {
    let top_of_stack = 0;
    let p = bottom_of_stack as *const i32 as usize;
    let q = &top_of_stack as *const i32 as usize;
    let diff = p.abs_diff(q);

    let mut data = max.lock().unwrap();
    *data = Ord::max(diff, *data);

    if n > 0 {
        s.spawn(move |s| the_final_countdown(s, bottom_of_stack, max, n - 1));
    }
}

// origin: rayon-core src/scope/test.rs::panic_propagate_scope
#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_scope() {
    watchdog(60, "panic_propagate_scope", || {
        scope(|_| panic!("Hello, world!"));
    });
}

// origin: rayon-core src/scope/test.rs::panic_propagate_spawn
#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_spawn() {
    watchdog(60, "panic_propagate_spawn", || {
        scope(|s| s.spawn(|_| panic!("Hello, world!")));
    });
}

// origin: rayon-core src/scope/test.rs::panic_propagate_nested_spawn
#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_nested_spawn() {
    watchdog(60, "panic_propagate_nested_spawn", || {
        scope(|s| s.spawn(|s| s.spawn(|s| s.spawn(|_| panic!("Hello, world!")))));
    });
}

// origin: rayon-core src/scope/test.rs::panic_propagate_nested_scope_spawn
#[test]
#[should_panic(expected = "Hello, world!")]
fn panic_propagate_nested_scope_spawn() {
    watchdog(60, "panic_propagate_nested_scope_spawn", || {
        scope(|s| s.spawn(|_| scope(|s| s.spawn(|_| panic!("Hello, world!")))));
    });
}

/// Asserts that `result` is the unwind of `panic!("Hello, world!")`.
fn assert_hello_panic(result: std::thread::Result<()>, what: &str) {
    match result {
        Ok(_) => panic!("failed to propagate panic"),
        Err(payload) => assert_eq!(panic_message(&*payload), "Hello, world!", "{what}"),
    }
}

// origin: rayon-core src/scope/test.rs::panic_propagate_still_execute_1
#[test]
fn panic_propagate_still_execute_1() {
    watchdog(60, "panic_propagate_still_execute_1", || {
        let tally = Tally::new();
        let (a_owns, b_owns) = (tally.probe(), tally.probe());
        let mut x = false;
        let result = catch_unwind(AssertUnwindSafe(|| {
            scope(|s| {
                s.spawn(move |_| {
                    let _owned = a_owns;
                    panic!("Hello, world!")
                }); // job A
                s.spawn(|_| {
                    let _owned = b_owns;
                    x = true
                }); // job B, should still execute even though A panics
            });
        }));
        assert_hello_panic(result, "panic_propagate_still_execute_1");
        assert!(x, "job b failed to execute");
        tally.assert_all_dropped_once("panic_propagate_still_execute_1");
    });
}

// origin: rayon-core src/scope/test.rs::panic_propagate_still_execute_2
#[test]
fn panic_propagate_still_execute_2() {
    watchdog(60, "panic_propagate_still_execute_2", || {
        let tally = Tally::new();
        let (a_owns, b_owns) = (tally.probe(), tally.probe());
        let mut x = false;
        let result = catch_unwind(AssertUnwindSafe(|| {
            scope(|s| {
                s.spawn(|_| {
                    let _owned = b_owns;
                    x = true
                }); // job B, should still execute even though A panics
                s.spawn(move |_| {
                    let _owned = a_owns;
                    panic!("Hello, world!")
                }); // job A
            });
        }));
        assert_hello_panic(result, "panic_propagate_still_execute_2");
        assert!(x, "job b failed to execute");
        tally.assert_all_dropped_once("panic_propagate_still_execute_2");
    });
}

// origin: rayon-core src/scope/test.rs::panic_propagate_still_execute_3
#[test]
fn panic_propagate_still_execute_3() {
    watchdog(60, "panic_propagate_still_execute_3", || {
        let tally = Tally::new();
        let (body_owns, spawn_owns) = (tally.probe(), tally.probe());
        let mut x = false;
        let result = catch_unwind(AssertUnwindSafe(|| {
            scope(|s| {
                let _owned = body_owns;
                s.spawn(|_| {
                    let _owned = spawn_owns;
                    x = true
                }); // spawned job should still execute despite later panic
                panic!("Hello, world!");
            });
        }));
        assert_hello_panic(result, "panic_propagate_still_execute_3");
        assert!(x, "panic after spawn, spawn failed to execute");
        tally.assert_all_dropped_once("panic_propagate_still_execute_3");
    });
}

// origin: rayon-core src/scope/test.rs::panic_propagate_still_execute_4
#[test]
fn panic_propagate_still_execute_4() {
    watchdog(60, "panic_propagate_still_execute_4", || {
        let tally = Tally::new();
        let spawn_owns = tally.probe();
        let mut x = false;
        let result = catch_unwind(AssertUnwindSafe(|| {
            scope(|s| {
                s.spawn(move |_| {
                    let _owned = spawn_owns;
                    panic!("Hello, world!")
                });
                x = true;
            });
        }));
        assert_hello_panic(result, "panic_propagate_still_execute_4");
        assert!(x, "panic in spawn tainted scope");
        tally.assert_all_dropped_once("panic_propagate_still_execute_4");
    });
}

/// rayon's `test_order!(scope => spawn)`: on a 1-worker pool, 10 spawns that each spawn 10.
fn test_order() -> Vec<i32> {
    let builder = ThreadPoolBuilder::new().num_threads(1);
    let pool = builder.build().unwrap();
    pool.install(|| {
        let vec = Mutex::new(vec![]);
        scope(|scope| {
            let vec = &vec;
            for i in 0..10 {
                scope.spawn(move |scope| {
                    for j in 0..10 {
                        scope.spawn(move |_| {
                            vec.lock().unwrap().push(i * 10 + j);
                        });
                    }
                });
            }
        });
        vec.into_inner().unwrap()
    })
}

// origin: rayon-core src/scope/test.rs::lifo_order
#[test]
fn lifo_order() {
    watchdog(60, "lifo_order", || {
        // In the absence of stealing, `scope()` runs its `spawn()` jobs in LIFO order.
        let vec = test_order();
        let expected: Vec<i32> = (0..100).rev().collect(); // LIFO -> reversed
        assert_eq!(vec, expected);
    });
}

/// rayon's `test_nested_order!(scope => spawn, scope => spawn)`: on a 1-worker pool, 10
/// spawns that each open a scope and spawn 10 into it.
fn test_nested_order() -> Vec<i32> {
    let builder = ThreadPoolBuilder::new().num_threads(1);
    let pool = builder.build().unwrap();
    pool.install(|| {
        let vec = Mutex::new(vec![]);
        scope(|scope| {
            let vec = &vec;
            for i in 0..10 {
                scope.spawn(move |_| {
                    filch::par::scope(|scope| {
                        for j in 0..10 {
                            scope.spawn(move |_| {
                                vec.lock().unwrap().push(i * 10 + j);
                            });
                        }
                    });
                });
            }
        });
        vec.into_inner().unwrap()
    })
}

// origin: rayon-core src/scope/test.rs::nested_lifo_order
#[test]
fn nested_lifo_order() {
    watchdog(60, "nested_lifo_order", || {
        // In the absence of stealing, `scope()` runs its `spawn()` jobs in LIFO order.
        let vec = test_nested_order();
        let expected: Vec<i32> = (0..100).rev().collect(); // LIFO -> reversed
        assert_eq!(vec, expected);
    });
}

/// rayon's `spawn_push!`.
fn spawn_push<'scope>(scope: &Scope<'scope>, vec: &'scope Mutex<Vec<i32>>, i: i32) {
    scope.spawn(move |_| vec.lock().unwrap().push(i));
}

/// rayon's `test_mixed_order!(scope => spawn, scope => spawn)`: spawns pushing a series of
/// numbers, interleaved such that negative values are using an inner scope.
fn test_mixed_order() -> Vec<i32> {
    let builder = ThreadPoolBuilder::new().num_threads(1);
    let pool = builder.build().unwrap();
    pool.install(|| {
        let vec = Mutex::new(vec![]);
        scope(|outer_scope| {
            let vec = &vec;
            spawn_push(outer_scope, vec, 0);
            scope(|inner_scope| {
                spawn_push(inner_scope, vec, -1);
                spawn_push(outer_scope, vec, 1);
                spawn_push(inner_scope, vec, -2);
                spawn_push(outer_scope, vec, 2);
                spawn_push(inner_scope, vec, -3);
            });
            spawn_push(outer_scope, vec, 3);
        });
        vec.into_inner().unwrap()
    })
}

// origin: rayon-core src/scope/test.rs::mixed_lifo_order
#[test]
fn mixed_lifo_order() {
    watchdog(60, "mixed_lifo_order", || {
        // NB: the end of the inner scope makes us execute some of the outer scope
        // before they've all been spawned, so they're not perfectly LIFO.
        let vec = test_mixed_order();
        let expected = vec![-3, 2, -2, 1, -1, 3, 0];
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/scope/test.rs::static_scope
#[test]
fn static_scope() {
    watchdog(60, "static_scope", || {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);

        let mut range = 0..100;
        let sum: usize = range.clone().sum();
        let iter = &mut range;

        COUNTER.store(0, Ordering::Relaxed);
        scope(|s: &Scope<'static>| {
            // While we're allowed the locally borrowed iterator,
            // the spawns must be static.
            for i in iter {
                s.spawn(move |_| {
                    COUNTER.fetch_add(i, Ordering::Relaxed);
                });
            }
        });

        assert_eq!(COUNTER.load(Ordering::Relaxed), sum);
    });
}

// origin: rayon-core src/scope/test.rs::mixed_lifetime_scope
#[test]
fn mixed_lifetime_scope() {
    watchdog(60, "mixed_lifetime_scope", || {
        fn increment<'slice, 'counter>(counters: &'slice [&'counter AtomicUsize]) {
            scope(move |s: &Scope<'counter>| {
                // We can borrow 'slice here, but the spawns can only borrow 'counter.
                for &c in counters {
                    s.spawn(move |_| {
                        c.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }

        let counter = AtomicUsize::new(0);
        increment(&[&counter; 100]);
        assert_eq!(counter.into_inner(), 100);
    });
}

/// rayon's `test_order!(scope_fifo => spawn_fifo)`: on a 1-worker pool, 10 spawns that each
/// spawn 10.
fn test_order_fifo() -> Vec<i32> {
    let builder = ThreadPoolBuilder::new().num_threads(1);
    let pool = builder.build().unwrap();
    pool.install(|| {
        let vec = Mutex::new(vec![]);
        scope_fifo(|scope| {
            let vec = &vec;
            for i in 0..10 {
                scope.spawn_fifo(move |scope| {
                    for j in 0..10 {
                        scope.spawn_fifo(move |_| {
                            vec.lock().unwrap().push(i * 10 + j);
                        });
                    }
                });
            }
        });
        vec.into_inner().unwrap()
    })
}

// origin: rayon-core src/scope/test.rs::fifo_order
#[test]
fn fifo_order() {
    watchdog(60, "fifo_order", || {
        // In the absence of stealing, `scope_fifo()` runs its `spawn_fifo()` jobs in FIFO order.
        let vec = test_order_fifo();
        let expected: Vec<i32> = (0..100).collect(); // FIFO -> natural order
        assert_eq!(vec, expected);
    });
}

/// rayon's `test_nested_order!`, the outer and inner scopes each a LIFO (`false`) or FIFO
/// (`true`) one: on a 1-worker pool, 10 spawns that each open a scope and spawn 10 into it.
fn test_nested_order_of(outer_fifo: bool, inner_fifo: bool) -> Vec<i32> {
    let builder = ThreadPoolBuilder::new().num_threads(1);
    let pool = builder.build().unwrap();
    pool.install(|| {
        let vec = Mutex::new(vec![]);
        let vec = &vec;
        let inner = move |i: i32| {
            if inner_fifo {
                scope_fifo(|scope| {
                    for j in 0..10 {
                        scope.spawn_fifo(move |_| vec.lock().unwrap().push(i * 10 + j));
                    }
                });
            } else {
                scope(|scope| {
                    for j in 0..10 {
                        scope.spawn(move |_| vec.lock().unwrap().push(i * 10 + j));
                    }
                });
            }
        };
        if outer_fifo {
            scope_fifo(|scope| {
                for i in 0..10 {
                    scope.spawn_fifo(move |_| inner(i));
                }
            });
        } else {
            scope(|scope| {
                for i in 0..10 {
                    scope.spawn(move |_| inner(i));
                }
            });
        }
        std::mem::take(&mut *vec.lock().unwrap())
    })
}

// origin: rayon-core src/scope/test.rs::nested_fifo_order
#[test]
fn nested_fifo_order() {
    watchdog(60, "nested_fifo_order", || {
        // In the absence of stealing, `scope_fifo()` runs its `spawn_fifo()` jobs in FIFO order.
        let vec = test_nested_order_of(true, true);
        let expected: Vec<i32> = (0..100).collect(); // FIFO -> natural order
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/scope/test.rs::nested_lifo_fifo_order
#[test]
fn nested_lifo_fifo_order() {
    watchdog(60, "nested_lifo_fifo_order", || {
        // LIFO on the outside, FIFO on the inside
        let vec = test_nested_order_of(false, true);
        let expected: Vec<i32> = (0..10)
            .rev()
            .flat_map(|i| (0..10).map(move |j| i * 10 + j))
            .collect();
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/scope/test.rs::nested_fifo_lifo_order
#[test]
fn nested_fifo_lifo_order() {
    watchdog(60, "nested_fifo_lifo_order", || {
        // FIFO on the outside, LIFO on the inside
        let vec = test_nested_order_of(true, false);
        let expected: Vec<i32> = (0..10)
            .flat_map(|i| (0..10).rev().map(move |j| i * 10 + j))
            .collect();
        assert_eq!(vec, expected);
    });
}

/// A scope of either kind, for rayon's `test_mixed_order!` with every pair of kinds.
#[derive(Clone, Copy)]
enum AnyScope<'a, 'scope> {
    Lifo(&'a Scope<'scope>),
    Fifo(&'a ScopeFifo<'scope>),
}

impl<'scope> AnyScope<'_, 'scope> {
    /// rayon's `spawn_push!`, with the scope's own spawn.
    fn push(self, vec: &'scope Mutex<Vec<i32>>, i: i32) {
        match self {
            AnyScope::Lifo(s) => s.spawn(move |_| vec.lock().unwrap().push(i)),
            AnyScope::Fifo(s) => s.spawn_fifo(move |_| vec.lock().unwrap().push(i)),
        }
    }
}

/// Opens a LIFO (`fifo == false`) or FIFO scope and runs `op` in it.
fn any_scope<'scope>(fifo: bool, op: impl for<'a> FnOnce(AnyScope<'a, 'scope>) + Send) {
    if fifo {
        scope_fifo(|s| op(AnyScope::Fifo(s)));
    } else {
        scope(|s| op(AnyScope::Lifo(s)));
    }
}

/// rayon's `test_mixed_order!`, the outer and inner scopes each a LIFO or FIFO one.
fn test_mixed_order_of(outer_fifo: bool, inner_fifo: bool) -> Vec<i32> {
    let builder = ThreadPoolBuilder::new().num_threads(1);
    let pool = builder.build().unwrap();
    pool.install(|| {
        let vec = Mutex::new(vec![]);
        let vec = &vec;
        any_scope(outer_fifo, |outer_scope| {
            outer_scope.push(vec, 0);
            any_scope(inner_fifo, |inner_scope| {
                inner_scope.push(vec, -1);
                outer_scope.push(vec, 1);
                inner_scope.push(vec, -2);
                outer_scope.push(vec, 2);
                inner_scope.push(vec, -3);
            });
            outer_scope.push(vec, 3);
        });
        std::mem::take(&mut *vec.lock().unwrap())
    })
}

// origin: rayon-core src/scope/test.rs::mixed_fifo_order
#[test]
fn mixed_fifo_order() {
    watchdog(60, "mixed_fifo_order", || {
        let vec = test_mixed_order_of(true, true);
        // rayon's is [-1, 0, -2, 1, -3, 2, 3] (module docs).
        let expected = vec![-1, 1, -2, 2, -3, 0, 3];
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/scope/test.rs::mixed_lifo_fifo_order
#[test]
fn mixed_lifo_fifo_order() {
    watchdog(60, "mixed_lifo_fifo_order", || {
        let vec = test_mixed_order_of(false, true);
        // rayon's is [-1, 2, -2, 1, -3, 3, 0] (module docs).
        let expected = vec![-1, 1, -2, 2, -3, 3, 0];
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/scope/test.rs::mixed_fifo_lifo_order
#[test]
fn mixed_fifo_lifo_order() {
    watchdog(60, "mixed_fifo_lifo_order", || {
        let vec = test_mixed_order_of(true, false);
        // rayon's is [-3, 0, -2, 1, -1, 2, 3] (module docs).
        let expected = vec![-3, 2, -2, 1, -1, 0, 3];
        assert_eq!(vec, expected);
    });
}

// origin: rayon-core src/scope/test.rs::static_scope_fifo
#[test]
fn static_scope_fifo() {
    watchdog(60, "static_scope_fifo", || {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);

        let mut range = 0..100;
        let sum = range.clone().sum();
        let iter = &mut range;

        COUNTER.store(0, Ordering::Relaxed);
        scope_fifo(|s: &ScopeFifo<'static>| {
            // While we're allowed the locally borrowed iterator,
            // the spawns must be static.
            for i in iter {
                s.spawn_fifo(move |_| {
                    COUNTER.fetch_add(i, Ordering::Relaxed);
                });
            }
        });

        assert_eq!(COUNTER.load(Ordering::Relaxed), sum);
    });
}

// origin: rayon-core src/scope/test.rs::mixed_lifetime_scope_fifo
#[test]
fn mixed_lifetime_scope_fifo() {
    watchdog(60, "mixed_lifetime_scope_fifo", || {
        fn increment<'slice, 'counter>(counters: &'slice [&'counter AtomicUsize]) {
            scope_fifo(move |s: &ScopeFifo<'counter>| {
                // We can borrow 'slice here, but the spawns can only borrow 'counter.
                for &c in counters {
                    s.spawn_fifo(move |_| {
                        c.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }

        let counter = AtomicUsize::new(0);
        increment(&[&counter; 100]);
        assert_eq!(counter.into_inner(), 100);
    });
}

/// Counts, per worker index, the runs of a broadcast's closure.
fn per_index(n: usize) -> Vec<AtomicUsize> {
    (0..n).map(|_| AtomicUsize::new(0)).collect()
}

// origin: rayon-core src/scope/test.rs::scope_spawn_broadcast
#[test]
fn scope_spawn_broadcast() {
    watchdog(60, "scope_spawn_broadcast", || {
        let sum = AtomicUsize::new(0);
        let runs = per_index(filch::par::current_num_threads());
        let n = scope(|s| {
            s.spawn_broadcast(|_, ctx| {
                sum.fetch_add(ctx.index(), Ordering::Relaxed);
                runs[ctx.index()].fetch_add(1, Ordering::Relaxed);
            });
            filch::par::current_num_threads()
        });
        assert_eq!(sum.into_inner(), n * (n - 1) / 2);
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    });
}

// origin: rayon-core src/scope/test.rs::scope_fifo_spawn_broadcast
#[test]
fn scope_fifo_spawn_broadcast() {
    watchdog(60, "scope_fifo_spawn_broadcast", || {
        let sum = AtomicUsize::new(0);
        let runs = per_index(filch::par::current_num_threads());
        let n = scope_fifo(|s| {
            s.spawn_broadcast(|_, ctx| {
                sum.fetch_add(ctx.index(), Ordering::Relaxed);
                runs[ctx.index()].fetch_add(1, Ordering::Relaxed);
            });
            filch::par::current_num_threads()
        });
        assert_eq!(sum.into_inner(), n * (n - 1) / 2);
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    });
}

// origin: rayon-core src/scope/test.rs::scope_spawn_broadcast_nested
#[test]
fn scope_spawn_broadcast_nested() {
    watchdog(60, "scope_spawn_broadcast_nested", || {
        let sum = AtomicUsize::new(0);
        let n = scope(|s| {
            s.spawn_broadcast(|s, _| {
                s.spawn_broadcast(|_, ctx| {
                    sum.fetch_add(ctx.index(), Ordering::Relaxed);
                });
            });
            filch::par::current_num_threads()
        });
        assert_eq!(sum.into_inner(), n * n * (n - 1) / 2);
    });
}

// origin: rayon-core src/scope/test.rs::scope_spawn_broadcast_barrier
#[test]
fn scope_spawn_broadcast_barrier() {
    watchdog(60, "scope_spawn_broadcast_barrier", || {
        let barrier = Barrier::new(8);
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        pool.in_place_scope(|s| {
            s.spawn_broadcast(|_, _| {
                barrier.wait();
            });
            barrier.wait();
        });
    });
}

// origin: rayon-core src/scope/test.rs::scope_spawn_broadcast_panic_one
#[test]
fn scope_spawn_broadcast_panic_one() {
    watchdog(60, "scope_spawn_broadcast_panic_one", || {
        let count = AtomicUsize::new(0);
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                s.spawn_broadcast(|_, ctx| {
                    count.fetch_add(1, Ordering::Relaxed);
                    if ctx.index() == 3 {
                        panic!("Hello, world!");
                    }
                });
            });
        }));
        assert_eq!(count.into_inner(), 7);
        assert!(result.is_err(), "broadcast panic should propagate!");
    });
}

// origin: rayon-core src/scope/test.rs::scope_spawn_broadcast_panic_many
#[test]
fn scope_spawn_broadcast_panic_many() {
    watchdog(60, "scope_spawn_broadcast_panic_many", || {
        let count = AtomicUsize::new(0);
        let pool = ThreadPoolBuilder::new().num_threads(7).build().unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                s.spawn_broadcast(|_, ctx| {
                    count.fetch_add(1, Ordering::Relaxed);
                    if ctx.index() % 2 == 0 {
                        panic!("Hello, world!");
                    }
                });
            });
        }));
        assert_eq!(count.into_inner(), 7);
        assert!(result.is_err(), "broadcast panic should propagate!");
    });
}
