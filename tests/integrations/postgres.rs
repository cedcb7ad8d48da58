//! A real PostgreSQL server, started by the test in a temporary directory (as the user
//! `postgres` when the test runs as root, as `initdb` requires), and tokio-postgres, a
//! client that needs tokio's reactor, used from filch tasks with the `tokio-context`
//! feature: no tokio runtime of the test's own, no hook. Eight tasks insert concurrently
//! through one connection, a `par_map` checks the rows, and the connection ends cleanly.
//!
//! `.ci/run` installs Debian's `postgresql` package when `initdb` is missing; elsewhere the
//! test fails with a message that says to install it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{executor, watchdog};

/// The directory of PostgreSQL's programs (`initdb`, `postgres`, `pg_ctl`).
fn pg_bin() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    dirs.sort();
    dirs.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): \
             `apt-get install postgresql` (`.ci/run` does it)"
        )
    })
}

/// Whether this process runs as root (PostgreSQL's programs then run as `postgres`).
fn is_root() -> bool {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() == 0 }
}

/// `program` with `args`, as the user `postgres` if this process is root.
fn pg_command(program: &Path, args: &[&str]) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command
            .args(["-u", "postgres", "--"])
            .arg(program)
            .args(args);
        command
    } else {
        let mut command = Command::new(program);
        command.args(args);
        command
    }
}

/// A PostgreSQL server in a temporary directory, stopped and removed when dropped.
struct Server {
    dir: PathBuf,
    port: u16,
    process: Child,
    bin: PathBuf,
}

impl Server {
    fn start() -> Server {
        let bin = pg_bin();
        let dir = std::env::temp_dir().join(format!("filch-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&dir)
                .status()
                .unwrap();
            assert!(status.success(), "chown of {dir:?} to postgres failed");
        }
        let data = dir.join("data");
        let output = pg_command(
            &bin.join("initdb"),
            &[
                "-D",
                data.to_str().unwrap(),
                "-A",
                "trust",
                "-U",
                "filch",
                "--no-sync",
            ],
        )
        .output()
        .expect("cannot run initdb");
        assert!(
            output.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let process = pg_command(
            &bin.join("postgres"),
            &[
                "-D",
                data.to_str().unwrap(),
                "-k",
                dir.to_str().unwrap(),
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-c",
                "fsync=off",
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start postgres");
        let server = Server {
            dir,
            port,
            process,
            bin,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "postgres did not listen within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let _ = pg_command(
            &self.bin.join("pg_ctl"),
            &["stop", "-D", data.to_str().unwrap(), "-m", "immediate"],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
        let _ = self.process.kill();
        let _ = self.process.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn tokio_postgres_runs_from_filch_tasks() {
    watchdog(120, "postgres", || {
        let server = Server::start();
        let config = format!(
            "host=127.0.0.1 port={} user=filch dbname=postgres",
            server.port
        );
        let ex = executor(2);
        ex.block_on(async move {
            let (client, connection) = tokio_postgres::connect(&config, tokio_postgres::NoTls)
                .await
                .expect("cannot connect to postgres");
            // The connection is a future like any other: a filch task drives it.
            let connection = filch::spawn(connection);
            client
                .batch_execute("CREATE TABLE squares (n INT PRIMARY KEY, square BIGINT)")
                .await
                .unwrap();
            let client = std::sync::Arc::new(client);
            let inserts: Vec<_> = (0..8i32)
                .map(|task| {
                    let client = std::sync::Arc::clone(&client);
                    filch::spawn(async move {
                        for n in (task * 100)..(task * 100 + 100) {
                            client
                                .execute(
                                    "INSERT INTO squares VALUES ($1, $2)",
                                    &[&n, &(i64::from(n) * i64::from(n))],
                                )
                                .await
                                .unwrap();
                        }
                    })
                })
                .collect();
            for insert in inserts {
                insert.await.unwrap();
            }
            let rows = client
                .query("SELECT n, square FROM squares ORDER BY n", &[])
                .await
                .unwrap();
            assert_eq!(rows.len(), 800);
            let pairs: Vec<(i32, i64)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
            let wrong = filch::par_map(0..pairs.len(), move |i| {
                let (n, square) = pairs[i];
                usize::from(n != i as i32 || square != i64::from(n) * i64::from(n))
            })
            .await
            .into_iter()
            .sum::<usize>();
            assert_eq!(wrong, 0);
            drop(client);
            connection
                .await
                .unwrap()
                .expect("the connection ended with an error");
        });
        drop(server);
    });
}
