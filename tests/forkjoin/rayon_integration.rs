//! rayon-core's own integration tests (rayon-core 1.13.0, `tests/*.rs`), ported to
//! `filch::par`. The tests of `build_global` run in a child process each (the global executor
//! can be built once per process), as does the stack overflow (it aborts its process).
//!
//! Adapted: rayon's error message for a second `build_global` is its own (filch's says the
//! global executor has already started); `scoped_tls` is a thread-local flag. Not ported
//! (rayon-core's `scoped_threadpool.rs` and `use_current_thread.rs`):
//! `spawn_scoped_tls_threadpool` and `build_scoped_tls_threadpool` (no `spawn_handler`, no
//! `build_scoped`), and the tests of `use_current_thread` (no `use_current_thread`).

use std::cell::Cell;
use std::error::Error;

use filch::par::{join, scope, ThreadPoolBuilder};

use filch::WORKERS_ENV;

use crate::common::{assert_child_passes, is_child, run_child_test, watchdog};

// origin: rayon-core tests/simple_panic.rs::simple_panic
#[test]
#[should_panic(expected = "should panic")]
fn simple_panic() {
    watchdog(60, "simple_panic", || {
        join(|| {}, || panic!("should panic"));
    });
}

/// Test that one can emulate join with `scope`:
fn pseudo_join<F, G>(f: F, g: G)
where
    F: FnOnce() + Send,
    G: FnOnce() + Send,
{
    scope(|s| {
        s.spawn(|_| g());
        f();
    });
}

fn quick_sort<T: PartialOrd + Send>(v: &mut [T]) {
    if v.len() <= 1 {
        return;
    }

    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    pseudo_join(|| quick_sort(lo), || quick_sort(hi));
}

fn partition<T: PartialOrd + Send>(v: &mut [T]) -> usize {
    let pivot = v.len() - 1;
    let mut i = 0;
    for j in 0..pivot {
        if v[j] <= v[pivot] {
            v.swap(i, j);
            i += 1;
        }
    }
    v.swap(i, pivot);
    i
}

fn is_sorted<T: Send + Ord>(v: &[T]) -> bool {
    (1..v.len()).all(|i| v[i - 1] <= v[i])
}

// origin: rayon-core tests/scope_join.rs::scope_join
#[test]
fn scope_join() {
    watchdog(60, "scope_join", || {
        let mut v: Vec<i32> = (0..256).rev().collect();
        quick_sort(&mut v);
        assert!(is_sorted(&v));
    });
}

thread_local! {
    /// rayon's `scoped_thread_local!(static LOCAL: Local)`, as a flag: set on this thread.
    static LOCAL_SET: Cell<bool> = const { Cell::new(false) };
}

// origin: rayon-core tests/scoped_threadpool.rs::missing_scoped_tls
#[test]
fn missing_scoped_tls() {
    watchdog(60, "missing_scoped_tls", || {
        LOCAL_SET.with(|l| l.set(true));
        let pool = ThreadPoolBuilder::new()
            .build()
            .expect("thread pool created");

        // `LOCAL` is not set in the pool.
        pool.install(|| {
            assert!(!LOCAL_SET.with(Cell::get));
        });
        LOCAL_SET.with(|l| l.set(false));
    });
}

// origin: rayon-core tests/double_init_fail.rs::double_init_fail
#[test]
fn double_init_fail() {
    assert_child_passes(
        module_path!(),
        "child_double_init_fail",
        &[],
        "CHILD_OK double_init_fail",
    );
}

#[test]
#[ignore = "run in a child process by double_init_fail"]
fn child_double_init_fail() {
    if !is_child() {
        return;
    }
    watchdog(60, "double_init_fail", || {
        let result1 = ThreadPoolBuilder::new().build_global();
        assert!(result1.is_ok());
        let err = ThreadPoolBuilder::new().build_global().unwrap_err();
        assert!(err.source().is_none());
        assert!(
            err.to_string().contains("already started"),
            "unexpected message: {err}"
        );
    });
    println!("CHILD_OK double_init_fail");
}

// origin: rayon-core tests/double_init_fail.rs::double_init_fail (the global executor started
// by a first use of a free function, not by `build_global`)
#[test]
fn build_global_after_first_use_fails() {
    assert_child_passes(
        module_path!(),
        "child_build_global_after_first_use_fails",
        &[],
        "CHILD_OK build_global_after_first_use_fails",
    );
}

#[test]
#[ignore = "run in a child process by build_global_after_first_use_fails"]
fn child_build_global_after_first_use_fails() {
    if !is_child() {
        return;
    }
    watchdog(60, "build_global_after_first_use_fails", || {
        // Off every executor: this starts the global one.
        assert_eq!(join(|| 1, || 2), (1, 2));
        let err = ThreadPoolBuilder::new()
            .num_threads(3)
            .build_global()
            .unwrap_err();
        assert!(err.source().is_none());
        assert_ne!(filch::par::current_num_threads(), 0);
    });
    println!("CHILD_OK build_global_after_first_use_fails");
}

// origin: rayon-core tests/init_zero_threads.rs::init_zero_threads
#[test]
fn init_zero_threads() {
    assert_child_passes(
        module_path!(),
        "child_init_zero_threads",
        &[],
        "CHILD_OK init_zero_threads",
    );
}

#[test]
#[ignore = "run in a child process by init_zero_threads"]
fn child_init_zero_threads() {
    if !is_child() {
        return;
    }
    watchdog(60, "init_zero_threads", || {
        ThreadPoolBuilder::new()
            .num_threads(0)
            .build_global()
            .unwrap();
        // rayon's meaning of 0: the default, the environment's count if it sets one.
        let expected = match std::env::var(WORKERS_ENV) {
            Ok(n) => n.trim().parse::<usize>().unwrap(),
            Err(_) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        assert_eq!(filch::par::current_num_threads(), expected);
        assert_eq!(join(|| 1, || 2), (1, 2));
    });
    println!("CHILD_OK init_zero_threads");
}

// origin: rayon-core tests/init_zero_threads.rs::init_zero_threads (with `FILCH_WORKERS`,
// rayon's `RAYON_NUM_THREADS`: 0 threads means the environment's count)
#[test]
fn init_zero_threads_with_the_environment_count() {
    assert_child_passes(
        module_path!(),
        "child_init_zero_threads",
        &[(WORKERS_ENV, "3")],
        "CHILD_OK init_zero_threads",
    );
}

// Not rayon's: `build_global`'s explicit settings win over `FILCH_WORKERS` (API.md), and the
// global executor's threads carry the given names.
#[test]
fn build_global_settings_win_over_the_environment() {
    assert_child_passes(
        module_path!(),
        "child_build_global_settings_win_over_the_environment",
        &[(WORKERS_ENV, "5")],
        "CHILD_OK build_global_settings",
    );
}

#[test]
#[ignore = "run in a child process by build_global_settings_win_over_the_environment"]
fn child_build_global_settings_win_over_the_environment() {
    if !is_child() {
        return;
    }
    watchdog(60, "build_global_settings_win_over_the_environment", || {
        ThreadPoolBuilder::new()
            .num_threads(2)
            .thread_name(|i| format!("global-crunch-{i}"))
            .build_global()
            .unwrap();
        assert_eq!(filch::par::current_num_threads(), 2);
        let (a, b) = join(
            || std::thread::current().name().map(str::to_owned),
            || std::thread::current().name().map(str::to_owned),
        );
        for name in [a, b] {
            let name = name.expect("a worker without a name");
            assert!(name.starts_with("global-crunch-"), "{name}");
        }
    });
    println!("CHILD_OK build_global_settings");
}

fn force_stack_overflow(depth: u32) {
    let mut buffer = [0u8; 1024 * 1024];
    std::hint::black_box(&mut buffer);
    if depth > 0 {
        force_stack_overflow(depth - 1);
    }
}

fn disable_core() {
    // SAFETY: `setrlimit` with a valid pointer to a local `rlimit`.
    unsafe {
        libc::setrlimit(
            libc::RLIMIT_CORE,
            &libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            },
        );
    }
}

fn run_with_stack(stack_size_in_mb: usize) {
    let pool = ThreadPoolBuilder::new()
        .stack_size(stack_size_in_mb * 1024 * 1024)
        .build()
        .unwrap();
    pool.install(|| {
        disable_core();
        force_stack_overflow(32);
    });
}

// origin: rayon-core tests/stack_overflow_crash.rs::stack_overflow_crash
#[test]
fn stack_overflow_crash() {
    use std::os::unix::process::ExitStatusExt;

    // First check that the recursive call actually causes a stack overflow,
    // and does not get optimized away.
    let out = run_child_test(module_path!(), "run_with_small_stack", &[]);
    let status = out.status;
    assert!(!status.success());
    assert_eq!(status.code(), None);
    assert!(
        matches!(status.signal(), Some(libc::SIGABRT | libc::SIGSEGV)),
        "{status:?}"
    );

    // Now run with a larger stack and verify correct operation.
    let out = run_child_test(module_path!(), "run_with_large_stack", &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.signal(), None);
    assert!(String::from_utf8_lossy(&out.stdout).contains("CHILD_OK run_with_large_stack"));
}

#[test]
#[ignore = "run in a child process by stack_overflow_crash"]
fn run_with_small_stack() {
    if !is_child() {
        return;
    }
    run_with_stack(8);
}

#[test]
#[ignore = "run in a child process by stack_overflow_crash"]
fn run_with_large_stack() {
    if !is_child() {
        return;
    }
    watchdog(60, "run_with_large_stack", || run_with_stack(48));
    println!("CHILD_OK run_with_large_stack");
}
