use super::*;

#[test]
fn a_stat_line_gives_the_state_and_the_cpu_ticks() {
    // A command name with a space and a parenthesis, as the kernel writes it.
    let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 120 0 0 0 7 3 0 0 20 0 1 0 100";
    assert_eq!(parse_stat(line), Some(('S', 10)));
    assert_eq!(parse_stat("no parenthesis"), None);
    assert_eq!(parse_schedstat("693223 718001 2\n"), Some(693_223));
}

#[cfg(target_os = "linux")]
#[test]
fn a_thread_that_waits_is_blocked_and_one_that_spins_gains_cpu_time() {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let tid = Arc::new(AtomicU32::new(0));
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let waiter = {
        let tid = Arc::clone(&tid);
        std::thread::spawn(move || {
            tid.store(current_tid(), Ordering::SeqCst);
            rx.recv().unwrap();
        })
    };
    while tid.load(Ordering::SeqCst) == 0 {
        std::thread::yield_now();
    }
    let waiting = tid.load(Ordering::SeqCst);
    // The thread may take a moment to reach its wait.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !sample(waiting).is_some_and(|s| s.blocked) {
        assert!(
            Instant::now() < deadline,
            "the waiting thread never showed as blocked"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    tx.send(()).unwrap();
    waiter.join().unwrap();

    let me = current_tid();
    let before = sample(me).expect("this thread can be read");
    assert!(!before.blocked, "a thread reading itself runs");
    let mut x = 0u64;
    let start = Instant::now();
    while sample(me).unwrap().cpu_ns == before.cpu_ns {
        for i in 0..10_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no CPU time gained"
        );
    }
    assert_eq!(sample(0), None);
}

#[cfg(target_os = "linux")]
#[test]
fn the_cpu_clock_of_a_thread_id_reads_that_threads_cpu_time_now() {
    let read_own = || {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid, writable timespec.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut now) };
        assert_eq!(rc, 0);
        u64::try_from(now.tv_sec).unwrap() * 1_000_000_000 + u64::try_from(now.tv_nsec).unwrap()
    };
    let me = current_tid();
    let mut x = 0u64;
    for _ in 0..100 {
        let before = thread_cpu_clock(me).expect("this thread's clock");
        let own = read_own();
        for i in 0..1_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let after = thread_cpu_clock(me).expect("this thread's clock");
        // The same clock as the thread's own, read in between: exact, not a tick behind.
        assert!(
            before <= own && own <= after,
            "{before} <= {own} <= {after}"
        );
    }
}
