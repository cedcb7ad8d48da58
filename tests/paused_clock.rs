#![cfg(feature = "test-util")]
use std::time::Duration;
use filch::time::{self, now, pause, sleep};

#[test]
fn smoke() {
    for workers in [1, 2, 4] {
        let ex = filch::Executor::builder().worker_threads(workers).build().unwrap();
        ex.block_on(async {
            pause();
            let start = now();
            sleep(Duration::from_secs(3600)).await;
            assert_eq!(now() - start, Duration::from_secs(3600));
            let tasks: Vec<_> = (1..=20u64).map(|i| filch::spawn(async move {
                for k in 0..50u64 {
                    let before = now();
                    let d = Duration::from_millis((i * 7 + k * 13) % 97 + 1);
                    sleep(d).await;
                    assert_eq!(now() - before, d);
                }
            })).collect();
            for t in tasks { t.await.unwrap(); }
            let _ = time::timeout(Duration::from_secs(5), std::future::pending::<()>()).await.unwrap_err();
        });
    }
}
