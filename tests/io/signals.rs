//! Signals through filch's driver (`filch::signal`): `ctrl_c` completes after a SIGINT that
//! comes after its first poll, and the process lives; two `Signal`s of one kind both see one
//! signal; signals between two `recv`s coalesce into one; kinds are told apart, also with
//! many waiters of several kinds at once; forbidden signals are `InvalidInput`; `recv` works
//! in a task of a multi-worker executor, in `Executor::block_on`, in `filch::block_on` and
//! on a plain thread; and signals keep working after the executor that held the signal pipe
//! shut down.
//!
//! Signal handlers are process-wide and stay installed, so each scenario runs in a child
//! process of its own (`common::run_child_test`): the parent test only checks that the child
//! got through. Waits that pass are bounded by a timeout of seconds; the checks that a `recv`
//! is still pending use a short timeout (its length asserts nothing about speed).

use std::future::Future;
use std::pin::pin;
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{assert_child_passes, executor, is_child, watchdog};
use filch::signal::unix::{signal, Signal, SignalKind};
use filch::time::timeout;

/// How long a wait that must complete may take before the scenario fails.
const COMPLETES: Duration = Duration::from_secs(10);
/// How long a wait that must stay pending is watched.
const STAYS_PENDING: Duration = Duration::from_millis(150);

/// Sends `kind` to the calling thread (its handler runs before `raise` returns).
fn raise(kind: SignalKind) {
    // SAFETY: raise(3) with a valid signal number has no memory-safety preconditions; the
    // scenarios installed a handler for it first (else the default action, e.g. the
    // process's death, is what the test reports).
    let rc = unsafe { libc::raise(kind.as_raw_value()) };
    assert_eq!(rc, 0, "raise({kind:?})");
}

/// Sends `kind` to the whole process (any thread that does not block it handles it).
fn kill_self(kind: SignalKind) {
    // SAFETY: kill(2) on our own pid with a valid signal number has no memory-safety
    // preconditions; the scenarios installed a handler for it first.
    let rc = unsafe { libc::kill(libc::getpid(), kind.as_raw_value()) };
    assert_eq!(rc, 0, "kill(getpid(), {kind:?})");
}

/// `sig.recv()` completes within [`COMPLETES`].
async fn recv_completes(sig: &mut Signal, what: &str) {
    match timeout(COMPLETES, sig.recv()).await {
        Ok(got) => assert_eq!(got, Some(()), "{what}: recv gave None"),
        Err(_) => panic!("{what}: recv did not complete within {COMPLETES:?}"),
    }
}

/// `fut` is still pending after [`STAYS_PENDING`].
async fn stays_pending<F: Future>(fut: F, what: &str) {
    assert!(
        timeout(STAYS_PENDING, fut).await.is_err(),
        "{what}: completed, but no signal for it was sent"
    );
}

/// The child scenarios print this once they got through.
const PASSED: &str = "signal scenario passed";

fn run_child(name: &str) {
    assert_child_passes(module_path!(), name, &[], PASSED);
}

/// Marks the body of an ignored child test: returns at once outside a child, runs `body`
/// under a watchdog inside one, then prints the marker.
fn child(name: &'static str, body: impl FnOnce() + Send + 'static) {
    if !is_child() {
        return;
    }
    watchdog(60, name, body);
    println!("{PASSED}");
}

#[test]
fn ctrl_c_completes_after_sigint_and_the_process_lives() {
    run_child("ctrl_c_child");
}

#[test]
#[ignore = "run by ctrl_c_completes_after_sigint_and_the_process_lives in a child process"]
fn ctrl_c_child() {
    child("ctrl_c", || {
        let ex = executor(2);
        ex.block_on(async {
            // The process's first handler: installed by the first poll.
            let mut ctrl_c = pin!(filch::signal::ctrl_c());
            stays_pending(ctrl_c.as_mut(), "ctrl_c before any SIGINT").await;
            raise(SignalKind::interrupt());
            match timeout(COMPLETES, ctrl_c).await {
                Ok(result) => result.expect("ctrl_c failed"),
                Err(_) => panic!("ctrl_c did not complete after SIGINT"),
            }

            // A SIGINT that another listener delivered before `ctrl_c`'s first poll is not
            // the one it waits for.
            let mut other = signal(SignalKind::interrupt()).unwrap();
            let mut ctrl_c = pin!(filch::signal::ctrl_c());
            raise(SignalKind::interrupt());
            recv_completes(&mut other, "another SIGINT listener").await;
            stays_pending(ctrl_c.as_mut(), "ctrl_c polled after a delivered SIGINT").await;
            raise(SignalKind::interrupt());
            match timeout(COMPLETES, ctrl_c).await {
                Ok(result) => result.expect("ctrl_c failed"),
                Err(_) => panic!("the second ctrl_c did not complete after SIGINT"),
            }

            // One that arrived while nobody listened, not delivered yet, counts: a second
            // Ctrl-C pressed while the program was busy is not lost.
            raise(SignalKind::interrupt());
            match timeout(COMPLETES, filch::signal::ctrl_c()).await {
                Ok(result) => result.expect("ctrl_c failed"),
                Err(_) => panic!("a SIGINT that nobody had delivered was lost"),
            }
        });
    });
}

#[test]
fn two_signals_of_one_kind_both_see_one_signal() {
    run_child("two_signals_child");
}

#[test]
#[ignore = "run by two_signals_of_one_kind_both_see_one_signal in a child process"]
fn two_signals_child() {
    child("two signals", || {
        let kind = SignalKind::user_defined2();
        let ex = executor(2);
        ex.block_on(async {
            // One after the other, in one task.
            let mut a = signal(kind).unwrap();
            let mut b = signal(kind).unwrap();
            raise(kind);
            recv_completes(&mut a, "the first Signal").await;
            recv_completes(&mut b, "the second Signal").await;
            stays_pending(a.recv(), "the first Signal's second recv").await;
            stays_pending(b.recv(), "the second Signal's second recv").await;
        });

        // Both waiting at once, in two tasks: one signal wakes both.
        let (tx, rx) = mpsc::channel();
        for name in ["task a", "task b"] {
            let mut sig = signal(kind).unwrap();
            let tx = tx.clone();
            drop(ex.spawn(async move {
                sig.recv().await;
                tx.send(name).unwrap();
            }));
        }
        // Let them get to their wait (either way the signal must reach both).
        std::thread::sleep(Duration::from_millis(50));
        kill_self(kind);
        let mut got = vec![
            rx.recv_timeout(COMPLETES).expect("no task saw the signal"),
            rx.recv_timeout(COMPLETES)
                .expect("only one task saw the signal"),
        ];
        got.sort();
        assert_eq!(got, ["task a", "task b"]);
    });
}

#[test]
fn signals_between_two_recvs_coalesce_into_one() {
    run_child("coalesce_child");
}

#[test]
#[ignore = "run by signals_between_two_recvs_coalesce_into_one in a child process"]
fn coalesce_child() {
    child("coalesce", || {
        let kind = SignalKind::user_defined1();
        let ex = executor(2);
        ex.block_on(async {
            let mut sig = signal(kind).unwrap();
            for _ in 0..3 {
                raise(kind);
            }
            recv_completes(&mut sig, "recv after three signals").await;
            stays_pending(sig.recv(), "the second recv after three signals").await;
            // Still listening after that.
            raise(kind);
            recv_completes(&mut sig, "recv after one more signal").await;
        });
    });
}

#[test]
fn sigusr1_and_sighup_are_told_apart() {
    run_child("told_apart_child");
}

#[test]
#[ignore = "run by sigusr1_and_sighup_are_told_apart in a child process"]
fn told_apart_child() {
    child("told apart", || {
        let (usr1, hup) = (SignalKind::user_defined1(), SignalKind::hangup());
        let ex = executor(2);
        ex.block_on(async {
            let mut u = signal(usr1).unwrap();
            let mut h = signal(hup).unwrap();
            raise(hup);
            recv_completes(&mut h, "SIGHUP's Signal after SIGHUP").await;
            stays_pending(u.recv(), "SIGUSR1's Signal after SIGHUP").await;
            raise(usr1);
            recv_completes(&mut u, "SIGUSR1's Signal after SIGUSR1").await;
            stays_pending(h.recv(), "SIGHUP's Signal after SIGUSR1").await;
        });
    });
}

#[test]
fn many_waiters_of_several_kinds_each_see_exactly_their_signals() {
    run_child("many_waiters_child");
}

#[test]
#[ignore = "run by many_waiters_of_several_kinds_each_see_exactly_their_signals in a child process"]
fn many_waiters_child() {
    child("many waiters", || {
        const KINDS: [SignalKind; 3] = [
            SignalKind::user_defined1(),
            SignalKind::user_defined2(),
            SignalKind::hangup(),
        ];
        const PER_KIND: usize = 3;
        const ROUNDS: usize = 600;
        let ex = executor(2);
        let (tx, rx) = mpsc::channel();
        for (k, &kind) in KINDS.iter().enumerate() {
            for _ in 0..PER_KIND {
                let mut sig = signal(kind).unwrap();
                let tx = tx.clone();
                drop(ex.spawn(async move {
                    loop {
                        sig.recv().await;
                        if tx.send(k).is_err() {
                            return;
                        }
                    }
                }));
            }
        }
        // Each round sends one signal and waits for exactly its waiters to report: the
        // waiters of the other kinds, all waiting on the one pipe, must stay quiet, and each
        // waiter of the kind must see it, whichever waiter drained the pipe.
        for round in 0..ROUNDS {
            let k = round % KINDS.len();
            if round % 2 == 0 {
                kill_self(KINDS[k]);
            } else {
                raise(KINDS[k]);
            }
            for n in 0..PER_KIND {
                match rx.recv_timeout(COMPLETES) {
                    Ok(got) => assert_eq!(
                        got, k,
                        "round {round}: a waiter of {:?} woke for {:?}",
                        KINDS[got], KINDS[k]
                    ),
                    Err(_) => panic!(
                        "round {round}: only {n} of {PER_KIND} waiters of {:?} saw it",
                        KINDS[k]
                    ),
                }
            }
        }
        assert!(
            rx.recv_timeout(STAYS_PENDING).is_err(),
            "a waiter reported with no signal for it"
        );
    });
}

#[test]
fn forbidden_signals_are_invalid_input() {
    run_child("forbidden_child");
}

#[test]
#[ignore = "run by forbidden_signals_are_invalid_input in a child process"]
fn forbidden_child() {
    child("forbidden", || {
        let forbidden = [
            (libc::SIGKILL, "SIGKILL"),
            (libc::SIGSTOP, "SIGSTOP"),
            (libc::SIGSEGV, "SIGSEGV"),
            (libc::SIGBUS, "SIGBUS"),
            (libc::SIGFPE, "SIGFPE"),
            (libc::SIGILL, "SIGILL"),
        ];
        for (raw, name) in forbidden {
            let err = signal(SignalKind::from_raw(raw)).expect_err(name);
            assert_eq!(
                err.kind(),
                std::io::ErrorKind::InvalidInput,
                "{name}: {err}"
            );
            let text = err.to_string();
            let named = format!("signal {raw} ({name})");
            assert!(
                text.contains(&named),
                "{name}: the error does not name it: {text}"
            );
        }
        for raw in [0, -1, 1000] {
            let err = signal(SignalKind::from_raw(raw)).expect_err("no signal number");
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{raw}: {err}");
            assert!(err.to_string().contains(&raw.to_string()), "{raw}: {err}");
        }
        // Still usable for the others.
        let kind = SignalKind::terminate();
        let mut sig = signal(kind).unwrap();
        raise(kind);
        filch::block_on(recv_completes(&mut sig, "SIGTERM after the refusals"));
    });
}

#[test]
fn recv_works_in_a_task_in_block_on_and_on_a_plain_thread() {
    run_child("where_child");
}

#[test]
#[ignore = "run by recv_works_in_a_task_in_block_on_and_on_a_plain_thread in a child process"]
fn where_child() {
    child("where", || {
        let kind = SignalKind::terminate();
        let ex = executor(4);
        let mut sig = signal(kind).unwrap();

        // A task of a multi-worker executor, the signal sent from another thread.
        let task = ex.spawn(async move {
            sig.recv().await;
            sig
        });
        std::thread::sleep(Duration::from_millis(50));
        kill_self(kind);
        let mut sig = ex
            .block_on(async { timeout(COMPLETES, task).await })
            .expect("the task's recv did not complete")
            .unwrap();

        // `Executor::block_on`, with the signal sent while it waits.
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            kill_self(kind);
        });
        ex.block_on(recv_completes(&mut sig, "Executor::block_on"));
        sender.join().unwrap();

        // `filch::block_on` (the global executor), a Signal made there.
        let mut global = filch::block_on(async { signal(kind) }).unwrap();
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            kill_self(kind);
        });
        filch::block_on(recv_completes(&mut global, "filch::block_on"));
        sender.join().unwrap();
        // The other Signal saw that one too.
        ex.block_on(recv_completes(
            &mut sig,
            "the first Signal, after filch::block_on",
        ));

        // A plain thread's executor (no filch context).
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            kill_self(kind);
        });
        let got = futures::executor::block_on(sig.recv());
        assert_eq!(got, Some(()));
        sender.join().unwrap();
    });
}

#[test]
fn signals_work_after_the_pipes_executor_shut_down() {
    run_child("pipe_owner_gone_child");
}

#[test]
#[ignore = "run by signals_work_after_the_pipes_executor_shut_down in a child process"]
fn pipe_owner_gone_child() {
    child("pipe owner gone", || {
        let (usr2, hup) = (SignalKind::user_defined2(), SignalKind::hangup());

        // The process's first signal: the pipe is registered with `a`'s driver.
        let a = executor(1);
        let mut from_a = a.block_on(async { signal(usr2) }).unwrap();
        drop(a);

        // A later `signal` on another executor, and the Signal made on `a`, both work.
        let b = executor(2);
        let mut from_b = b.block_on(async { signal(hup) }).unwrap();
        // Waiting, not spinning on the shut-down registration (a spin would never let the
        // timeout's poll return).
        b.block_on(stays_pending(
            from_a.recv(),
            "the Signal made on a, before any signal",
        ));
        raise(hup);
        b.block_on(recv_completes(
            &mut from_b,
            "a Signal made after a's shutdown",
        ));
        raise(usr2);
        b.block_on(recv_completes(
            &mut from_a,
            "the Signal made on a, after a's shutdown",
        ));

        // A waiter on a plain thread while the pipe's executor (now `b`) shuts down: it
        // registers the pipe afresh (with the global executor) and still gets the signal.
        let (tx, rx) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let got = futures::executor::block_on(from_b.recv());
            tx.send(got).unwrap();
        });
        std::thread::sleep(Duration::from_millis(50));
        drop(b);
        assert!(
            rx.recv_timeout(STAYS_PENDING).is_err(),
            "the waiter returned when the pipe's executor shut down, with no signal"
        );
        kill_self(hup);
        let got = rx
            .recv_timeout(COMPLETES)
            .expect("the waiter did not see the signal after its pipe's executor shut down");
        assert_eq!(got, Some(()));
        waiter.join().unwrap();
    });
}

#[test]
fn a_signal_raised_between_two_listeners_reaches_the_second() {
    run_child("between_listeners_child");
}

/// tokio's `drop_then_get_a_signal`: register a kind, drop the listener, raise the signal
/// at the whole process (the kernel picks the thread whose handler runs, perhaps after the
/// `kill` returned), make a new listener, `recv`. The signal was not delivered before the
/// new listener existed, so it reaches it, whichever thread caught it: 50 rounds, each
/// waited for with a timeout, on a worker-less `block_on` and in a task.
// origin: tokio tests/signal_drop_recv.rs
#[test]
#[ignore = "run by a_signal_raised_between_two_listeners_reaches_the_second in a child process"]
fn between_listeners_child() {
    child("between listeners", || {
        let kind = SignalKind::user_defined1();
        let ex = executor(2);
        for round in 0..50 {
            let in_task = round % 2 == 1;
            let body = async move {
                {
                    let _first = signal(kind).expect("failed to create first signal");
                }
                kill_self(kind);
                let mut sig = signal(kind).expect("failed to create second signal");
                recv_completes(&mut sig, &format!("round {round} (in a task: {in_task})")).await;
            };
            if in_task {
                ex.block_on(ex.spawn(body)).unwrap();
            } else {
                ex.block_on(body);
            }
        }
    });
}
