//! Seeing inside a running executor: a task dump, and a stuck-poll report.
//!
//! ```text
//! cargo run --example seeing_inside
//! ```
//!
//! A little key-value service on filch: an accept loop, one task per connection, a cache
//! refresher on an interval, and a `db-sync` task that writes the cache to "disk" on the
//! blocking pool and then, by mistake, takes a `std::sync::Mutex` that a report thread holds
//! for a while, inside its poll: the classic worker-blocking bug. The executor has a
//! slow-poll threshold, so the stuck poll is reported while it blocks (and once more when it
//! returns); a dump taken meanwhile shows every task: waiting on a socket or a timer,
//! queued, running (stuck), and in the blocking pool.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use filch::net::{TcpListener, TcpStream};
use filch::task::Builder;
use futures_lite::{AsyncReadExt, AsyncWriteExt};

/// Serves one client: reads a key per line, answers with its value.
async fn serve(mut stream: TcpStream, cache: Arc<Mutex<Vec<String>>>) -> std::io::Result<()> {
    let mut buf = [0u8; 256];
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        let answer = format!("{} entries\n", cache.lock().unwrap().len());
        stream.write_all(answer.as_bytes()).await?;
    }
}

fn main() -> std::io::Result<()> {
    let ex = filch::Builder::new()
        .worker_threads(2)
        .slow_poll_threshold(Duration::from_millis(200))
        .on_slow_poll(|report| println!("slow poll: {report}"))
        .build()?;
    let cache = Arc::new(Mutex::new(vec!["a".to_owned(), "b".to_owned()]));
    // A lock that a reporting thread holds for a second: whoever takes it inside a poll
    // blocks a worker.
    let report_lock = Arc::new(Mutex::new(()));

    let listener = ex.block_on(TcpListener::bind("127.0.0.1:0"))?;
    let addr = listener.local_addr()?;
    let accept_cache = Arc::clone(&cache);
    let accept = Builder::new().name("accept-loop").spawn_on(
        async move {
            let mut n = 0;
            loop {
                let (stream, _) = listener.accept().await?;
                n += 1;
                let name = format!("conn-{n}");
                let cache = Arc::clone(&accept_cache);
                Builder::new().name(&name).spawn(serve(stream, cache))?;
            }
            #[allow(unreachable_code)]
            Ok::<(), std::io::Error>(())
        },
        &ex.handle(),
    )?;
    let refresh_cache = Arc::clone(&cache);
    let refresher = Builder::new().name("cache-refresh").spawn_on(
        async move {
            let mut every = filch::time::interval(Duration::from_secs(5));
            loop {
                every.tick().await;
                refresh_cache.lock().unwrap().push("c".to_owned());
            }
        },
        &ex.handle(),
    )?;

    // Two clients that connect and stay.
    let clients: Vec<TcpStream> = ex.block_on(async {
        let mut clients = Vec::new();
        for _ in 0..2 {
            let mut client = TcpStream::connect(addr).await?;
            client.write_all(b"a\n").await?;
            let mut buf = [0u8; 64];
            let _ = client.read(&mut buf).await?;
            clients.push(client);
        }
        Ok::<_, std::io::Error>(clients)
    })?;

    // The report thread takes the lock for a second.
    let held = Arc::clone(&report_lock);
    let (taken_tx, taken_rx) = std::sync::mpsc::channel();
    let reporter = std::thread::spawn(move || {
        let _guard = held.lock().unwrap();
        taken_tx.send(()).unwrap();
        std::thread::sleep(Duration::from_secs(1));
    });
    taken_rx.recv().unwrap();

    // db-sync: a blocking write on the pool (right), then the lock inside its poll (wrong).
    let sync_lock = Arc::clone(&report_lock);
    let db_sync = Builder::new().name("db-sync").spawn_on(
        async move {
            let write = Builder::new()
                .name("db-write")
                .spawn_blocking(|| std::thread::sleep(Duration::from_millis(600)))?;
            let _guard = sync_lock.lock().unwrap(); // blocks this worker
            drop(_guard);
            write.await?;
            Ok::<(), std::io::Error>(())
        },
        &ex.handle(),
    )?;

    std::thread::sleep(Duration::from_millis(400));
    println!("{}", ex.dump());

    reporter.join().unwrap();
    ex.block_on(db_sync)??;
    drop(clients);
    accept.abort();
    refresher.abort();
    Ok(())
}
