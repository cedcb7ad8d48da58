//! Task ids and `task::Builder`: ids are unique (also across executors and threads), the
//! handle's, the abort handle's, the error's and the task's own (`task::id()`) agree, also
//! inside a blocking job and while filch drops a task's future or output; `try_id()` is
//! `None` outside tasks and in `block_on`'s own future; `JoinSet::*_with_id` give the ids of
//! the tasks they join; `Builder` spawns named tasks, blocking jobs and tasks on a handle.
//! Several tests are tokio's (`task_id.rs`, `task_join_set.rs`, `task_builder.rs`), ported.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Poll};

use futures::channel::oneshot;

use crate::common::{executor, wait_until, watchdog};
use filch::task::{self, Id};
use filch::JoinSet;

#[test]
fn ids_are_unique_across_executors_and_threads() {
    watchdog(60, "unique ids", || {
        let executors = [executor(2), executor(1)];
        let ids = Arc::new(Mutex::new(Vec::new()));
        let spawners: Vec<_> = (0..4)
            .map(|t| {
                let handle = executors[t % 2].handle();
                let ids = Arc::clone(&ids);
                std::thread::spawn(move || {
                    let handles: Vec<_> = (0..500).map(|_| handle.spawn(async {})).collect();
                    ids.lock()
                        .unwrap()
                        .extend(handles.iter().map(filch::JoinHandle::id));
                })
            })
            .collect();
        for spawner in spawners {
            spawner.join().unwrap();
        }
        let ids = ids.lock().unwrap();
        let distinct: HashSet<Id> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), 2000, "two tasks got the same id");
    });
}

// origin: tokio/tests/task_id.rs task_id_collision_multi_thread
#[test]
fn two_tasks_see_different_ids() {
    watchdog(30, "id collision", || {
        let ex = executor(2);
        let (a, b) = ex.block_on(async {
            let a = filch::spawn(async { task::id() });
            let b = filch::spawn(async { task::id() });
            (a.await.unwrap(), b.await.unwrap())
        });
        assert_ne!(a, b);
    });
}

// origin: tokio/tests/task_id.rs task_ids_match_multi_thread
#[test]
fn the_handle_and_the_task_agree_on_the_id() {
    watchdog(30, "ids match", || {
        let ex = executor(2);
        ex.block_on(async {
            let (tx, rx) = oneshot::channel();
            let handle = filch::spawn(async {
                let id = rx.await.unwrap();
                assert_eq!(id, task::id());
                task::try_id()
            });
            tx.send(handle.id()).unwrap();
            let id = handle.id();
            assert_eq!(handle.abort_handle().id(), id);
            assert_eq!(handle.await.unwrap(), Some(id));
        });
    });
}

// origin: tokio/tests/task_id.rs task_id_spawn_blocking
#[test]
fn a_blocking_job_has_its_own_id() {
    watchdog(30, "blocking id", || {
        let ex = executor(1);
        let handle = ex.spawn_blocking(task::id);
        let id = handle.id();
        assert_eq!(ex.block_on(handle).unwrap(), id);
        let mut set = JoinSet::new();
        let abort = set.spawn_on(async { task::try_id() }, &ex.handle());
        let joined = ex.block_on(set.join_next_with_id()).unwrap().unwrap();
        assert_eq!(joined, (abort.id(), Some(abort.id())));
    });
}

// origin: tokio/tests/task_id.rs task_try_id_outside_task
// origin: tokio/tests/task_id.rs task_try_id_inside_block_on
#[test]
fn no_id_outside_tasks_nor_in_block_on() {
    watchdog(30, "try_id outside", || {
        assert_eq!(task::try_id(), None);
        let ex = executor(1);
        assert_eq!(ex.block_on(async { task::try_id() }), None);
        // Inside a task, then back in block_on: the id does not leak out of the poll.
        let inner = ex.block_on(async { filch::spawn(async { task::try_id() }).await.unwrap() });
        assert!(inner.is_some());
        assert_eq!(ex.block_on(async { task::try_id() }), None);
        let panic = std::panic::catch_unwind(task::id).unwrap_err();
        let message = crate::common::panic_message(&*panic);
        assert!(message.contains("outside a task"), "{message}");
    });
}

/// Sends `task::try_id()` from its destructor.
struct SendsIdOnDrop(Option<mpsc::Sender<Option<Id>>>);

impl Drop for SendsIdOnDrop {
    fn drop(&mut self) {
        let _ = self.0.take().unwrap().send(task::try_id());
    }
}

/// A future that owns a [`SendsIdOnDrop`] and is ready at once, or never.
struct Holds {
    _probe: SendsIdOnDrop,
    ready: bool,
}

impl Future for Holds {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.ready {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

// origin: tokio/tests/task_id.rs task_id_future_destructor_completion
// origin: tokio/tests/task_id.rs task_id_future_destructor_abort
#[test]
fn the_future_is_dropped_with_its_task_id() {
    watchdog(30, "future drop id", || {
        let ex = executor(2);
        for ready in [true, false] {
            let (tx, rx) = mpsc::channel();
            let handle = ex.spawn(Holds {
                _probe: SendsIdOnDrop(Some(tx)),
                ready,
            });
            let id = handle.id();
            if !ready {
                handle.abort();
            }
            let result = ex.block_on(handle);
            assert_eq!(result.is_ok(), ready);
            if let Err(err) = result {
                assert!(err.is_cancelled());
                assert_eq!(err.id(), id);
            }
            assert_eq!(rx.recv().unwrap(), Some(id), "ready: {ready}");
        }
    });
}

// origin: tokio/tests/task_id.rs task_id_output_destructor_handle_dropped_before_completion
// origin: tokio/tests/task_id.rs task_id_output_destructor_handle_dropped_after_completion
#[test]
fn an_output_nobody_takes_is_dropped_with_its_task_id() {
    watchdog(30, "output drop id", || {
        let ex = executor(2);
        // Dropped after completion: by the handle's drop, on this thread.
        let (tx, rx) = mpsc::channel();
        let handle = ex.spawn(async move { SendsIdOnDrop(Some(tx)) });
        let id = handle.id();
        wait_until(10, "the task to complete", || handle.is_finished());
        assert!(
            rx.try_recv().is_err(),
            "the output was dropped before the handle"
        );
        drop(handle);
        assert_eq!(rx.recv().unwrap(), Some(id));
        // Dropped before completion: the detached task drops its own output.
        let (tx, rx) = mpsc::channel();
        let (go, gate) = oneshot::channel::<()>();
        let handle = ex.spawn(async move {
            gate.await.unwrap();
            SendsIdOnDrop(Some(tx))
        });
        let id = handle.id();
        drop(handle);
        go.send(()).unwrap();
        assert_eq!(rx.recv().unwrap(), Some(id));
    });
}

#[test]
fn a_panic_error_names_its_task() {
    watchdog(30, "panic id", || {
        let ex = executor(1);
        let handle = ex.spawn(async { panic!("boom") });
        let id = handle.id();
        let err = ex.block_on(handle).unwrap_err();
        assert!(err.is_panic());
        assert_eq!(err.id(), id);
    });
}

// origin: tokio/tests/task_join_set.rs try_join_next_with_id
#[test]
fn try_join_next_with_id_gives_every_id_once() {
    const TASKS: usize = 1000;
    watchdog(60, "try_join_next_with_id", || {
        let ex = executor(2);
        let (send, recv) = async_channel::bounded::<()>(1);
        let mut set = JoinSet::new();
        let mut spawned = HashSet::new();
        for _ in 0..TASKS {
            let recv = recv.clone();
            let abort = set.spawn_on(
                async move {
                    let _ = recv.recv().await;
                },
                &ex.handle(),
            );
            spawned.insert(abort.id());
        }
        drop(recv);
        assert!(set.try_join_next_with_id().is_none());
        // Closing the channel wakes every receiver.
        drop(send);
        let mut joined = HashSet::new();
        while joined.len() < TASKS {
            match set.try_join_next_with_id() {
                Some(Ok((id, ()))) => assert!(joined.insert(id), "id {id} joined twice"),
                Some(Err(err)) => panic!("failed: {err}"),
                None => std::thread::yield_now(),
            }
        }
        assert!(set.try_join_next_with_id().is_none());
        assert_eq!(joined, spawned);
    });
}

#[test]
fn join_next_with_id_gives_the_error_its_id() {
    watchdog(30, "join_next_with_id errors", || {
        let ex = executor(2);
        ex.block_on(async {
            let mut set = JoinSet::new();
            let ok = set.spawn(async { 1 }).id();
            let bad = set.spawn(async { panic!("no") }).id();
            let pending = set.spawn(std::future::pending());
            pending.abort();
            let mut seen = HashSet::new();
            while let Some(next) = set.join_next_with_id().await {
                match next {
                    Ok((id, one)) => {
                        assert_eq!((id, one), (ok, 1));
                        seen.insert(id);
                    }
                    Err(err) if err.is_panic() => {
                        assert_eq!(err.id(), bad);
                        seen.insert(err.id());
                    }
                    Err(err) => {
                        assert!(err.is_cancelled());
                        assert_eq!(err.id(), pending.id());
                        seen.insert(err.id());
                    }
                }
            }
            assert_eq!(seen, HashSet::from([ok, bad, pending.id()]));
        });
    });
}

// origin: tokio/tests/task_builder.rs spawn_with_name
// origin: tokio/tests/task_builder.rs spawn_without_name
// origin: tokio/tests/task_builder.rs spawn_blocking_with_name
// origin: tokio/tests/task_builder.rs spawn_blocking_without_name
#[test]
fn builder_spawns_tasks_and_blocking_jobs() {
    watchdog(30, "task builder", || {
        let ex = executor(1);
        ex.block_on(async {
            for name in [Some("name"), None] {
                let mut builder = task::Builder::new();
                if let Some(name) = name {
                    builder = builder.name(name);
                }
                let result = builder.spawn(async { "task executed" }).unwrap().await;
                assert_eq!(result.unwrap(), "task executed");
                let result = builder.spawn_blocking(|| "task executed").unwrap().await;
                assert_eq!(result.unwrap(), "task executed");
            }
        });
        let on = task::Builder::new()
            .name("on a handle")
            .spawn_on(async { task::id() }, &ex.handle())
            .unwrap();
        let id = on.id();
        assert_eq!(ex.block_on(on).unwrap(), id);
    });
}

#[test]
fn ids_display_as_numbers() {
    let ex = executor(1);
    let handle = ex.spawn(async {});
    let id = handle.id();
    assert!(id.to_string().parse::<u64>().is_ok());
    assert_eq!(format!("{id:?}"), format!("Id({id})"));
    ex.block_on(handle).unwrap();
}
