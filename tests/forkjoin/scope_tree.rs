//! A scope returns only once every closure of its tree finished, however the closures were
//! spawned: by the scope's body, by another closure (which counts them until they finish),
//! from inside a `join` in a closure, or into an outer scope from inside a nested one. Each
//! closure runs exactly once, none is still running when the scope returns, and a panic deep
//! in the tree is resumed only after all the others finished.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::common::{executor, mix, watchdog};

/// What the closures of one scope report.
struct Ledger {
    /// One flag per closure, set by its run.
    ran: Vec<AtomicBool>,
    /// Closures that found the scope already returned when they finished.
    late: AtomicUsize,
    /// Set by the test right after the scope returned.
    returned: AtomicBool,
    /// The next closure's index.
    next: AtomicUsize,
}

impl Ledger {
    fn new(closures: usize) -> Ledger {
        Ledger {
            ran: (0..closures).map(|_| AtomicBool::new(false)).collect(),
            late: AtomicUsize::new(0),
            returned: AtomicBool::new(false),
            next: AtomicUsize::new(0),
        }
    }

    /// A closure's index, taken when it is spawned.
    fn index(&self) -> usize {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// The closure `i` ran: its flag (once only), and whether the scope had returned.
    fn run(&self, i: usize) {
        // A few closures take a while, so that their parents finish first and wait for
        // them only through the counts.
        if mix(i as u64) % 8 == 0 {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        assert!(
            !self.ran[i].swap(true, Ordering::SeqCst),
            "closure {i} ran twice"
        );
        if self.returned.load(Ordering::SeqCst) {
            self.late.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn check(&self, what: &str) {
        let spawned = self.next.load(Ordering::SeqCst);
        let ran = self.ran.iter().filter(|r| r.load(Ordering::SeqCst)).count();
        assert_eq!(ran, spawned, "{what}: {ran} of {spawned} closures ran");
        assert_eq!(
            self.late.load(Ordering::SeqCst),
            0,
            "{what}: closures ran late"
        );
    }
}

/// The closures of a depth-3 tree of `closure`: 1 + 3 + 9 + 27 in the tree, and one spawned
/// into the outer scope by each of the 13 that have children.
const CLOSURES: usize = 40 + 13;

/// A closure at `depth`: spawns two children directly, one from inside a `join`, and one into
/// `outer` from inside a nested scope (that one spawns nothing more).
fn closure<'s>(s: &filch::par::Scope<'s>, ledger: &'s Ledger, depth: u32, i: usize) {
    if depth > 0 {
        for _ in 0..2 {
            let c = ledger.index();
            s.spawn(move |s| closure(s, ledger, depth - 1, c));
        }
        filch::par::join(
            || {
                let c = ledger.index();
                s.spawn(move |s| closure(s, ledger, depth - 1, c));
            },
            || std::hint::black_box(depth),
        );
        filch::par::scope(|_| {
            let c = ledger.index();
            s.spawn(move |_| ledger.run(c));
        });
    }
    ledger.run(i);
}

#[test]
fn a_scope_waits_for_every_closure_of_its_tree() {
    watchdog(120, "a_scope_waits_for_every_closure_of_its_tree", || {
        for workers in [1, 2, 4] {
            let ex = executor(workers);
            for round in 0..20 {
                let what = format!("{workers} workers, round {round}");
                let ledger = Ledger::new(CLOSURES);
                ex.install(|| {
                    filch::par::scope(|s| {
                        let c = ledger.index();
                        let ledger = &ledger;
                        s.spawn(move |s| closure(s, ledger, 3, c));
                    });
                });
                ledger.returned.store(true, Ordering::SeqCst);
                ledger.check(&what);
                assert_eq!(ledger.next.load(Ordering::SeqCst), CLOSURES, "{what}");
            }
        }
    });
}

#[test]
fn a_panic_deep_in_the_tree_is_resumed_after_every_other_closure() {
    watchdog(120, "a_panic_deep_in_the_tree", || {
        for workers in [1, 2, 4] {
            let ex = executor(workers);
            for round in 0..10 {
                let what = format!("{workers} workers, round {round}");
                let ledger = Ledger::new(CLOSURES + 3);
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    ex.install(|| {
                        filch::par::scope(|s| {
                            let ledger = &ledger;
                            let c = ledger.index();
                            s.spawn(move |s| closure(s, ledger, 3, c));
                            let c = ledger.index();
                            s.spawn(move |s| {
                                // A grandchild of this closure panics, after its parent's
                                // body returned.
                                let p = ledger.index();
                                s.spawn(move |s| {
                                    let g = ledger.index();
                                    s.spawn(move |_| {
                                        ledger.run(g);
                                        panic!("deep");
                                    });
                                    ledger.run(p);
                                });
                                ledger.run(c);
                            });
                        });
                    });
                }));
                ledger.returned.store(true, Ordering::SeqCst);
                let payload = caught.expect_err("the deep panic was not resumed");
                assert_eq!(payload.downcast_ref::<&str>(), Some(&"deep"), "{what}");
                ledger.check(&what);
                assert_eq!(ledger.next.load(Ordering::SeqCst), CLOSURES + 3, "{what}");
            }
        }
    });
}
