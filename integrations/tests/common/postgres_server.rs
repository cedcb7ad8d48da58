//! A real PostgreSQL server for tests and benchmarks, started in a temporary directory (as
//! the user `postgres` when the process runs as root, as `initdb` requires), with `fsync`
//! off, listening on 127.0.0.1 at a free port; stopped and removed when dropped.
//!
//! Shared by `integrations/tests/crates/postgres.rs`, `benches/http.rs` and
//! `benches/pg_pool.rs` (they include this file with `#[path]`). `.ci/run` installs Debian's `postgresql` package when `initdb` is
//! missing; elsewhere [`Server::start`] panics with a message that says to install it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
pub struct Server {
    dir: PathBuf,
    pub port: u16,
    process: Child,
    bin: PathBuf,
}

impl Server {
    /// Starts a server; returns once it accepts connections.
    pub fn start() -> Server {
        let bin = pg_bin();
        // One directory per server: a process may start several, one after the other.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "filch-pg-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
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
        // Accepting connections, not only listening: a server still starting up listens,
        // and refuses logins ("the database system is starting up").
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ready = Command::new(server.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
                .status()
                .expect("cannot run pg_isready");
            if ready.success() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "postgres did not accept connections within 60 s"
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
