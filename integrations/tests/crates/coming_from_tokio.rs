//! README's "Coming from tokio" table, checked: each crate it names for a tokio feature that
//! filch does not have works from filch tasks (tokio's `sync` without a runtime,
//! async-lock, async-channel, `futures::select!`, async-fs, async-process,
//! `tokio::task_local!`, tracing's `Instrument`), and `LocalSet`'s row: `!Send` work pinned
//! to a worker (`spawn_pinned`, `spawn_local`).

use std::time::Duration;

use crate::common::{leak_checked, watchdog};

#[test]
fn tokio_sync_works_without_a_tokio_runtime() {
    watchdog(30, "tokio sync", || {
        let ex = leak_checked(2);
        ex.block_on(async {
            let (tx, mut rx) = tokio::sync::mpsc::channel::<u32>(4);
            let lock = std::sync::Arc::new(tokio::sync::Mutex::new(0u32));
            let (btx, mut brx) = tokio::sync::broadcast::channel::<u32>(4);
            let producer = {
                let lock = std::sync::Arc::clone(&lock);
                filch::spawn(async move {
                    for i in 0..10 {
                        *lock.lock().await += 1;
                        tx.send(i).await.unwrap();
                    }
                    btx.send(99).unwrap();
                })
            };
            let mut sum = 0;
            while let Some(i) = rx.recv().await {
                sum += i;
            }
            producer.await.unwrap();
            assert_eq!((sum, *lock.lock().await), (45, 10));
            assert_eq!(brx.recv().await.unwrap(), 99);
            let notify = std::sync::Arc::new(tokio::sync::Notify::new());
            let waiter = {
                let notify = std::sync::Arc::clone(&notify);
                filch::spawn(async move { notify.notified().await })
            };
            filch::time::sleep(Duration::from_millis(5)).await;
            notify.notify_one();
            waiter.await.unwrap();
        });
    });
}

#[test]
fn async_lock_async_channel_and_select() {
    watchdog(30, "async-lock, async-channel, select", || {
        let ex = leak_checked(2);
        ex.block_on(async {
            let rw = async_lock::RwLock::new(1);
            *rw.write().await += 1;
            assert_eq!(*rw.read().await, 2);
            let sem = async_lock::Semaphore::new(1);
            let _permit = sem.acquire().await;
            let (tx, rx) = async_channel::bounded::<&str>(1);
            drop(filch::spawn(
                async move { tx.send("message").await.unwrap() },
            ));
            let timeout = filch::time::sleep(Duration::from_secs(10));
            let mut timeout = std::pin::pin!(futures::FutureExt::fuse(timeout));
            let mut recv = std::pin::pin!(futures::FutureExt::fuse(rx.recv()));
            let got = futures::select! {
                msg = recv => msg.unwrap(),
                () = timeout => "timed out",
            };
            assert_eq!(got, "message");
        });
    });
}

#[test]
fn async_fs_and_async_process_work_from_filch_tasks() {
    watchdog(60, "async-fs, async-process", || {
        let ex = leak_checked(2);
        ex.block_on(async {
            let path = std::env::temp_dir().join(format!("filch-fs-{}", std::process::id()));
            async_fs::write(&path, b"written by async-fs")
                .await
                .unwrap();
            let read = async_fs::read_to_string(&path).await.unwrap();
            assert_eq!(read, "written by async-fs");
            async_fs::remove_file(&path).await.unwrap();
            let out = async_process::Command::new("echo")
                .arg("from a child process")
                .output()
                .await
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                "from a child process"
            );
        });
    });
}

tokio::task_local! {
    static REQUEST_ID: u64;
}

#[test]
fn tokio_task_local_and_tracing_instrument() {
    use tracing::Instrument;
    watchdog(30, "task_local, tracing", || {
        let ex = leak_checked(2);
        let id = ex.block_on(filch::spawn(REQUEST_ID.scope(7, async {
            filch::yield_now().await;
            REQUEST_ID.get()
        })));
        assert_eq!(id.unwrap(), 7);
        let span = tracing::info_span!("request", id = 7);
        let out = ex.block_on(filch::spawn(async { 5 }.instrument(span)));
        assert_eq!(out.unwrap(), 5);
    });
}

/// `LocalSet` / `task::spawn_local`'s row: `!Send` work pinned to a worker, whose tasks also
/// await filch tasks that run anywhere.
#[test]
fn pinned_tasks_run_non_send_work_beside_filch_tasks() {
    watchdog(30, "spawn_pinned", || {
        let ex = leak_checked(2);
        let total = ex.block_on(ex.spawn_pinned(|| async {
            // `Rc` is `!Send`: it stays on this worker.
            let shared = std::rc::Rc::new(std::cell::Cell::new(0));
            let tasks: Vec<_> = (0..4)
                .map(|i| {
                    let shared = std::rc::Rc::clone(&shared);
                    filch::spawn_local(async move {
                        let doubled = filch::spawn(async move { i * 2 }).await.unwrap();
                        shared.set(shared.get() + doubled);
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
            shared.get()
        }));
        assert_eq!(total.unwrap(), 12);
    });
}
