//! The task dump (`Executor::dump`): named tasks in every state are found in the right one,
//! with their name, spawn location and counts: waiting on a timer and on a socket (idle),
//! inside a poll that blocks its worker (running on that worker), in the blocking pool
//! (blocking), queued behind the blocked worker (scheduled, never polled, and polled and
//! woken again); a plain `spawn`'s task shows from its first wait (before, the table counts
//! it on its last line); tasks that completed are gone from the next dump; the table has a
//! header and one line per task. A pinned task's state and stamps follow its wakes as any
//! other task's do.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::common::{executor, own_loop_executor, wait_until, watchdog};
use filch::{Executor, JoinHandle, TaskDump, TaskInfo, TaskState};

/// Spawns `future` on `ex` as a task named `name`; returns its handle and where this was
/// called from (which the task's `spawned_at` must be).
#[track_caller]
fn named<F>(
    ex: &Executor,
    name: &str,
    future: F,
) -> (JoinHandle<F::Output>, &'static Location<'static>)
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handle = filch::task::Builder::new()
        .name(name)
        .spawn_on(future, &ex.handle())
        .unwrap();
    (handle, Location::caller())
}

fn find(dump: &TaskDump, handle_id: filch::task::Id) -> Option<&TaskInfo> {
    dump.tasks.iter().find(|t| t.id == handle_id)
}

/// Waits until the dump shows task `id` in state `state`; returns that dump's entry.
fn wait_for_state(ex: &Executor, id: filch::task::Id, state: TaskState, what: &str) -> TaskInfo {
    let mut found = None;
    wait_until(20, what, || {
        found = find(&ex.dump(), id).filter(|t| t.state == state).cloned();
        found.is_some()
    });
    found.unwrap()
}

#[test]
fn tasks_in_every_state_are_found_in_it() {
    watchdog(60, "dump states", || {
        // Tasks queued behind a poll that blocks the only worker stay queued: no stand-in
        // takes the worker's place (it would run them).
        let ex = own_loop_executor(1, filch::WakePolicy::default());
        let (timer, timer_at) = named(&ex, "timer", filch::time::sleep(Duration::from_secs(600)));
        let (socket, socket_at) = named(&ex, "socket", async {
            let listener = filch::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let _ = listener.accept().await;
        });
        let (wake_tx, wake_rx) = async_channel::bounded::<()>(1);
        let waiter = ex.spawn(async move {
            wake_rx.recv().await.unwrap();
        });
        let waiter_line = line!() - 3;
        let (job_tx, job_rx) = mpsc::channel::<()>();
        // `Builder::spawn_blocking` uses the current executor: enter `ex`.
        let entered = ex.enter();
        let job = filch::task::Builder::new().name("pool-job");
        let job = job.spawn_blocking(move || job_rx.recv().unwrap()).unwrap();
        let job_line = line!() - 1;
        drop(entered);

        let timer_info = wait_for_state(&ex, timer.id(), TaskState::Idle, "the timer task to wait");
        let socket_info =
            wait_for_state(&ex, socket.id(), TaskState::Idle, "the socket task to wait");
        let waiter_info = wait_for_state(&ex, waiter.id(), TaskState::Idle, "the waiter to wait");
        let job_info = wait_for_state(&ex, job.id(), TaskState::Blocking, "the blocking job");
        for (info, name, at) in [
            (&timer_info, "timer", timer_at),
            (&socket_info, "socket", socket_at),
        ] {
            assert_eq!(info.name.as_deref(), Some(name));
            assert_eq!(info.spawned_at, at, "{name}'s spawn location");
            assert!(info.polls >= 1, "{name} waits, so it was polled: {info:?}");
            assert!(info.since_last_poll.is_some(), "{info:?}");
        }
        // A plain spawn: no name, its `spawn` call's location.
        assert_eq!(waiter_info.name, None);
        assert_eq!(waiter_info.spawned_at.file(), file!());
        assert_eq!(waiter_info.spawned_at.line(), waiter_line);
        assert_eq!(job_info.name.as_deref(), Some("pool-job"));
        assert_eq!(job_info.spawned_at.line(), job_line);

        // A poll that blocks the only worker.
        let release = Arc::new(AtomicBool::new(false));
        let hold = Arc::clone(&release);
        // Lets the blocker go however this test ends (else a failed assertion would leave
        // the executor's only worker stuck, and its drop hanging).
        struct Release(Arc<AtomicBool>);
        impl Drop for Release {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let _release_on_exit = Release(Arc::clone(&release));
        let (blocker, blocker_at) = named(&ex, "blocker", async move {
            while !hold.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let running = wait_for_state(
            &ex,
            blocker.id(),
            TaskState::Running { worker: 0 },
            "the blocker to run",
        );
        assert_eq!(running.spawned_at, blocker_at);
        assert_eq!(running.polls, 1, "{running:?}");
        // Behind it: a task woken after it waited, and one never polled yet.
        wake_tx.try_send(()).unwrap();
        let (queued, _) = named(&ex, "queued", async {});
        // A plain spawn that has not waited yet: counted, not listed.
        let unlisted = ex.spawn(async {});
        std::thread::sleep(Duration::from_millis(100));
        let dump = ex.dump();
        let woken = find(&dump, waiter.id()).expect("the woken task is in the dump");
        assert_eq!(woken.state, TaskState::Scheduled, "{dump}");
        assert_eq!(woken.polls, 1, "{woken:?}");
        let queued_info = find(&dump, queued.id()).expect("the queued task is in the dump");
        assert_eq!(queued_info.state, TaskState::Scheduled, "{dump}");
        assert_eq!(queued_info.polls, 0);
        assert_eq!(queued_info.since_last_poll, None);
        let blocked = find(&dump, blocker.id()).unwrap();
        assert!(
            blocked.since_last_poll.unwrap() >= Duration::from_millis(50),
            "the running poll started over 100 ms ago: {blocked:?}"
        );
        assert_eq!(
            find(&dump, timer.id()).unwrap().state,
            TaskState::Idle,
            "{dump}"
        );

        // The table: a header, then one line per task, longest-waiting first; the unlisted
        // count; with `tokio-context`, a footer on the tokio runtime beside the executor.
        let table = dump.to_string();
        let lines: Vec<&str> = table.lines().collect();
        let footer = usize::from(cfg!(feature = "tokio-context"));
        assert_eq!(lines.len(), dump.tasks.len() + 2 + footer, "{table}");
        assert!(
            lines[lines.len() - 1 - footer].starts_with("(and about 1 more"),
            "{table}"
        );
        if footer == 1 {
            assert!(
                lines[lines.len() - 1]
                    .starts_with("tokio runtime beside filch (not in this table): 1 worker, "),
                "{table}"
            );
        }
        assert!(
            lines[0].trim_start().starts_with("ID") && lines[0].contains("SPAWNED AT"),
            "{table}"
        );
        for name in ["timer", "socket", "pool-job", "blocker", "queued"] {
            assert!(table.contains(name), "{name} missing from\n{table}");
        }
        assert!(
            table.contains("running on 0") && table.contains("blocking"),
            "{table}"
        );
        println!("{table}");

        // Everything ends; the next dumps no longer list the tasks.
        release.store(true, Ordering::SeqCst);
        job_tx.send(()).unwrap();
        timer.abort();
        socket.abort();
        ex.block_on(async {
            blocker.await.unwrap();
            queued.await.unwrap();
            unlisted.await.unwrap();
            waiter.await.unwrap();
            job.await.unwrap();
            assert!(timer.await.unwrap_err().is_cancelled());
            assert!(socket.await.unwrap_err().is_cancelled());
        });
        wait_until(20, "the dump to be empty", || ex.dump().tasks.is_empty());
        wait_until(20, "every task to be dropped", || {
            ex.stats().alive_tasks == 0
        });
    });
}

// After the executor idled (the epoch ticker may have gone to sleep, and with it the coarse
// clock), a wake and a poll are stamped with the time they happened, not the idle start.
#[test]
fn stamps_after_an_idle_stretch_are_fresh() {
    watchdog(60, "fresh stamps", || {
        let ex = executor(1);
        let (go, gate) = async_channel::bounded::<()>(1);
        let (task, _) = named(&ex, "idler", async move {
            gate.recv().await.unwrap();
            std::future::pending::<()>().await;
        });
        wait_for_state(&ex, task.id(), TaskState::Idle, "the task to wait");
        // Long past the ticker's 50 idle ticks.
        std::thread::sleep(Duration::from_millis(600));
        let (info, since_wake) = woken_from_a_worker(&ex, task.id(), go);
        assert_fresh(&info, since_wake);
        task.abort();
    });
}

/// Wakes task `id` (waiting for `go`) from a task on `ex`'s worker, so that the stamps of the
/// wake and the poll come from a worker that starts a stretch of polls (it sets the coarse
/// clock to the real one then); waits for the second poll to end. Returns the dump's entry
/// then, and the time since just before the wake was asked for.
fn woken_from_a_worker(
    ex: &Executor,
    id: filch::task::Id,
    go: async_channel::Sender<()>,
) -> (TaskInfo, Duration) {
    let before_wake = std::time::Instant::now();
    ex.spawn(async move { go.send(()).await.unwrap() });
    let mut info = None;
    wait_until(20, "the second poll", || {
        info = find(&ex.dump(), id)
            .filter(|t| t.polls == 2 && t.state == TaskState::Idle)
            .cloned();
        info.is_some()
    });
    (info.unwrap(), before_wake.elapsed())
}

/// Asserts that the last poll and wake of `info` are stamped after the wake was asked for
/// (`since_wake` ago), not earlier (the coarse clock rounds down to a millisecond).
fn assert_fresh(info: &TaskInfo, since_wake: Duration) {
    for (what, since) in [
        ("poll", info.since_last_poll),
        ("wake", info.since_last_wake),
    ] {
        let since = since.unwrap();
        assert!(
            since <= since_wake + Duration::from_millis(1),
            "the last {what} looks {since:?} old, but the wake was asked for {since_wake:?} \
             ago: {info:?}"
        );
    }
}

// A pinned task that waits and is woken again shows as waiting (not queued) after its poll,
// with the stamps of that wake and poll.
#[test]
fn a_pinned_task_s_state_and_stamps_follow_its_wakes() {
    watchdog(60, "dump of a pinned task", || {
        let ex = executor(2);
        let (go, gate) = async_channel::bounded::<()>(1);
        let task = ex.spawn_pinned(move || async move {
            gate.recv().await.unwrap();
            std::future::pending::<()>().await;
        });
        wait_for_state(&ex, task.id(), TaskState::Idle, "the pinned task to wait");
        // Its first stamps age by this much at least.
        std::thread::sleep(Duration::from_millis(100));
        let (info, since_wake) = woken_from_a_worker(&ex, task.id(), go);
        assert_fresh(&info, since_wake);
        task.abort();
    });
}

#[test]
fn busy_time_counts_long_polls() {
    busy_time_of_a_long_poll(2);
}

/// With one worker, the task that ends the long poll runs on the worker's stand-in: the
/// stand-in's first poll moves the coarse clock as a worker's does.
#[test]
fn busy_time_counts_long_polls_when_a_stand_in_ends_them() {
    busy_time_of_a_long_poll(1);
}

/// A task whose one poll sleeps 200 ms, and ends only after another task ran; its busy
/// time, in whole milliseconds of the coarse clock.
fn busy_time_of_a_long_poll(workers: usize) {
    watchdog(60, "dump busy time", move || {
        let ex = executor(workers);
        let (go, gate) = async_channel::bounded::<()>(1);
        let (slept_tx, slept_rx) = mpsc::channel::<()>();
        let moved = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&moved);
        let polled_at = std::time::Instant::now();
        let (task, _) = named(&ex, "worker-bee", async move {
            std::thread::sleep(Duration::from_millis(200));
            // The poll ends only once the other worker, or this worker's stand-in, has
            // started a stretch of polls (which sets the coarse clock to the real one) after
            // the sleep: its end stamp is then at least 200 ms after its start, however
            // late the ticker is.
            slept_tx.send(()).unwrap();
            while !seen.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
            gate.recv().await.unwrap();
        });
        slept_rx.recv().unwrap();
        ex.spawn(async move { moved.store(true, Ordering::SeqCst) });
        let info = wait_for_state(&ex, task.id(), TaskState::Idle, "the task to wait");
        assert_eq!(info.polls, 1);
        // Whole milliseconds of the coarse clock: the 200 ms, less one for the rounding,
        // and no more than the poll can have taken, plus one for the rounding (both stamps
        // are whole milliseconds: the difference of two floors exceeds the real one by
        // less than one).
        assert!(
            info.busy >= Duration::from_millis(199)
                && info.busy < polled_at.elapsed() + Duration::from_millis(1),
            "{info:?}"
        );
        go.try_send(()).unwrap();
        ex.block_on(task).unwrap();
    });
}

#[test]
fn the_dump_is_sorted_longest_waiting_first() {
    watchdog(60, "dump order", || {
        let ex = executor(1);
        let (old, _) = named(&ex, "old", std::future::pending::<()>());
        wait_for_state(&ex, old.id(), TaskState::Idle, "the old task to wait");
        std::thread::sleep(Duration::from_millis(50));
        let (new, _) = named(&ex, "new", std::future::pending::<()>());
        wait_for_state(&ex, new.id(), TaskState::Idle, "the new task to wait");
        let dump = ex.dump();
        let order: Vec<_> = dump.tasks.iter().map(|t| t.id).collect();
        assert_eq!(order, [old.id(), new.id()], "{dump}");
        old.abort();
        new.abort();
    });
}

/// Dropping the executor drops every listed task (named from their spawn, plain ones after
/// their first wait, queued ones never polled) exactly once, with its state: the dump's
/// records go with the tasks' metadata.
#[test]
fn dropping_the_executor_drops_every_listed_task() {
    watchdog(60, "dump then drop", || {
        let tally = crate::common::Tally::new();
        let ex = executor(2);
        // Something every task's future holds: gone once every future is.
        let shared: Arc<()> = Arc::new(());
        let kept = Arc::downgrade(&shared);
        for i in 0..100 {
            let probe = tally.probe();
            let keep = Arc::clone(&shared);
            let task = async move {
                let _held = (probe, keep);
                std::future::pending::<()>().await;
            };
            if i % 2 == 0 {
                drop(named(&ex, &format!("pending-{i}"), task));
            } else {
                drop(ex.spawn(task));
            }
        }
        drop(shared);
        wait_until(20, "every task to wait", || ex.dump().tasks.len() == 100);
        drop(ex);
        tally.assert_all_dropped_once("the listed tasks");
        assert_eq!(
            kept.strong_count(),
            0,
            "a task's future outlived the executor"
        );
    });
}

#[test]
fn a_task_of_the_free_spawn_pinned_is_listed_at_its_call() {
    watchdog(60, "spawn location of filch::spawn_pinned", || {
        let ex = executor(2);
        let (task, line) = ex.block_on(async {
            let line = line!() + 1;
            let task = filch::spawn_pinned(std::future::pending::<()>);
            (task, line)
        });
        let info = wait_for_state(&ex, task.id(), TaskState::Idle, "the pinned task to wait");
        assert_eq!(info.spawned_at.file(), file!());
        assert_eq!(info.spawned_at.line(), line);
        task.abort();
    });
}
