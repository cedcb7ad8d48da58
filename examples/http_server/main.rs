//! A small HTTP/1.1 keep-alive server: hyper on `filch::net`, one filch task per
//! connection.
//!
//! ```text
//! cargo run --release --example http_server -- --addr 127.0.0.1:8080 --workers 2
//! curl http://127.0.0.1:8080/          # Hello, world!
//! curl http://127.0.0.1:8080/json      # {"message":"Hello, world!"}
//! curl http://127.0.0.1:8080/shutdown  # stops the server (so does Ctrl-C)
//! ```
//!
//! `--addr` takes any socket address (port 0 picks a free one; the server prints the address
//! it listens on); `--workers` defaults to the number of CPUs. On `/shutdown` or Ctrl-C the
//! server stops accepting, lets the open connections finish the request in hand (waiting up
//! to 5 s), and exits. The handler and the accept loop live in `server.rs`, shared with
//! `tests/integrations/http_server.rs` and `benches/http.rs`.

mod server;

use std::net::SocketAddr;
use std::process::ExitCode;

use server::Server;

struct Args {
    addr: SocketAddr,
    workers: Option<usize>,
}

const USAGE: &str = "usage: http_server [--addr IP:PORT] [--workers N]";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        addr: "127.0.0.1:8080".parse().expect("a valid default address"),
        workers: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match flag.as_str() {
            "--addr" => {
                let text = value("--addr")?;
                args.addr = text
                    .parse()
                    .map_err(|e| format!("--addr {text:?}: {e} (expected IP:PORT)"))?;
            }
            "--workers" => {
                let text = value("--workers")?;
                args.workers = Some(
                    text.parse()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or(format!("--workers {text:?}: expected a positive number"))?,
                );
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::FAILURE;
        }
    };
    let mut builder = filch::Executor::builder().thread_name("http");
    if let Some(n) = args.workers {
        builder = builder.worker_threads(n);
    }
    let ex = match builder.build() {
        Ok(ex) => ex,
        Err(err) => {
            eprintln!("cannot start the executor: {err}");
            return ExitCode::FAILURE;
        }
    };
    let server = match Server::bind(args.addr) {
        Ok(server) => server,
        Err(err) => {
            eprintln!("cannot listen on {}: {err}", args.addr);
            return ExitCode::FAILURE;
        }
    };
    let stopper = server.stopper();
    if let Err(err) = ctrlc::set_handler(move || stopper.stop()) {
        eprintln!("warning: Ctrl-C will not stop the server cleanly: {err}");
    }
    match server.local_addr() {
        Ok(addr) => println!(
            "listening on http://{addr} with {} workers (GET /, /json, /shutdown)",
            ex.worker_threads()
        ),
        Err(err) => eprintln!("warning: cannot read the listening address: {err}"),
    }
    ex.block_on(server.run(|task| drop(filch::spawn(task))));
    println!("stopped");
    // Dropping the executor cancels any connection still open after the grace period.
    drop(ex);
    ExitCode::SUCCESS
}
