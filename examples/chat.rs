//! A TCP chat server on filch, written as a tokio user would write it.
//!
//! ```text
//! cargo run --example chat -- --addr 127.0.0.1:6142 --idle 300
//! nc 127.0.0.1 6142        # in two or more terminals
//! ```
//!
//! Each client is asked for a name (an empty one gets `guest<N>`); then every line it sends
//! goes to every other client as `name: line`, and joins and departures are announced as
//! `* ...` lines. A client that sends nothing for `--idle` seconds is told so and
//! disconnected (receiving does not count). Ctrl-C shuts the server down gracefully: it
//! stops accepting, tells every client, closes its side of each connection, and waits for
//! the clients to close theirs (up to [`Config::drain_timeout`]; then the stragglers are
//! cut off) before it returns.
//!
//! What a tokio user will recognise, and what it is on filch:
//!
//! - `TcpListener`, `TcpStream::into_split` and its owned halves: `filch::net`, the same
//!   shape as `tokio::net`. Each connection reads in one task and writes in another.
//! - `BufReader` and `write_all`: `futures::io`, whose traits filch's streams implement
//!   (tokio's own `AsyncRead`/`AsyncWrite` come with filch's `tokio-io` feature).
//! - `tokio::sync::broadcast` (the room), `tokio::sync::watch` (the shutdown flag) and
//!   `tokio::select!`: tokio's, as they are. They need no tokio runtime (only wakers), so
//!   they work on filch unchanged, and a tokio user already knows their semantics, such as
//!   a slow reader getting `Lagged` rather than holding back the room. They are why this
//!   example uses tokio's channels rather than `async-broadcast`.
//! - `tokio::time::sleep` and `Sleep::reset` (the idle timer): `filch::time`.
//! - `tokio::task::JoinSet`: `filch::JoinSet`, to join every connection task at shutdown.
//! - `tokio::signal::ctrl_c`: `filch::signal::ctrl_c` (through the executor's own driver).
//!
//! `tests/integrations/chat.rs` runs [`serve`] in-process (it includes this file).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::time::Duration;

use filch::net::{OwnedReadHalf, OwnedWriteHalf, TcpListener, TcpStream};
use filch::time::Sleep;
use filch::JoinSet;
use futures::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, watch};

/// The server's settings.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// A client that sends nothing for this long is told so and disconnected.
    pub idle_timeout: Duration,
    /// After the shutdown signal, how long clients get to close their side of the
    /// connection before the server drops it.
    pub drain_timeout: Duration,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            idle_timeout: Duration::from_secs(300),
            drain_timeout: Duration::from_secs(5),
        }
    }
}

/// The longest line a client may send, in bytes; a longer one ends its connection.
pub const MAX_LINE: usize = 4096;

/// How many lines the room holds for a client that reads slowly before it skips some.
const ROOM_BACKLOG: usize = 128;

/// How long a client's last lines may take to leave once its connection ends (a client that
/// reads nothing holds them back).
const FLUSH_TIMEOUT: Duration = Duration::from_secs(5);

/// The greeting, which asks for a name.
pub const WELCOME: &str = "welcome to filch chat! your name?\n";

/// A line said in the room: every client but its sender gets it.
#[derive(Clone, Debug)]
struct Said {
    from: u64,
    text: Arc<str>,
}

/// Serves the chat on `listener` until `shutdown` completes, then shuts down gracefully
/// (module docs) and returns once every connection task has ended.
pub async fn serve(listener: TcpListener, config: Config, shutdown: impl Future<Output = ()>) {
    let (room, _) = broadcast::channel::<Said>(ROOM_BACKLOG);
    let (stop, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut next_id = 0u64;
    let mut shutdown = pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    next_id += 1;
                    let (room, stopping) = (room.clone(), stopping.clone());
                    connections.spawn(client(stream, next_id, room, stopping, config));
                }
                // A connection reset before it was accepted, or out of descriptors (the
                // listener then waits 50 ms before its next try): the server goes on.
                Err(e) => eprintln!("chat: accept failed: {e}"),
            },
            // Finished connections leave the set as they end, so it holds only live ones.
            Some(ended) = connections.join_next(), if !connections.is_empty() => report(ended),
        }
    }
    // New connections are refused from here on.
    drop(listener);
    stop.send_replace(true);
    let drained = filch::time::timeout(config.drain_timeout, async {
        while let Some(ended) = connections.join_next().await {
            report(ended);
        }
    })
    .await;
    if drained.is_err() {
        // Clients that kept their side open: their tasks are aborted (and their sockets
        // closed), and `shutdown` waits until every one is gone.
        connections.shutdown().await;
    }
}

/// Says so if a connection task panicked (a client's error ends only its own task, quietly).
fn report(ended: Result<(), filch::JoinError>) {
    if let Err(e) = ended {
        eprintln!("chat: a connection task failed: {e}");
    }
}

/// What ended a client's wait for its next line, or the line.
enum Event {
    Line(String),
    /// The client closed its side, its connection failed, or it sent a line longer than
    /// [`MAX_LINE`].
    Left,
    Idle,
    Shutdown,
}

/// One client: asks for its name, then reads its lines and says them in the room, while a
/// second task ([`write_lines`]) writes what the others say.
async fn client(
    stream: TcpStream,
    id: u64,
    room: broadcast::Sender<Said>,
    mut stopping: watch::Receiver<bool>,
    config: Config,
) {
    let (read, mut write) = stream.into_split();
    let mut reader = Lines::new(read);
    let mut idle = pin!(filch::time::sleep(config.idle_timeout));

    if write.write_all(WELCOME.as_bytes()).await.is_err() {
        return;
    }
    let name = match next_event(&mut reader, idle.as_mut(), &mut stopping).await {
        Event::Line(name) if name.trim().is_empty() => format!("guest{id}"),
        Event::Line(name) => name.trim().to_owned(),
        end => {
            if let Some(farewell) = farewell(&end, config) {
                let _ = write.write_all(farewell.as_bytes()).await;
            }
            drop(write);
            if let Event::Shutdown = end {
                reader.drain().await;
            }
            return;
        }
    };
    idle.as_mut()
        .reset(filch::time::now() + config.idle_timeout);

    // From here on the writer task owns the write half: it gets the room's lines, and this
    // task's own messages to the client through `outbox`. It is in a `JoinSet` of its own,
    // which aborts it if this task ends first (aborted at the drain timeout, or done waiting
    // for it).
    let (outbox, inbox) = async_channel::bounded::<Arc<str>>(4);
    let mut writer = JoinSet::new();
    writer.spawn(write_lines(write, id, room.subscribe(), inbox));
    let _ = outbox.send(format!("* you are {name}\n").into()).await;
    say(&room, id, format!("* {name} joined\n"));
    let end = loop {
        match next_event(&mut reader, idle.as_mut(), &mut stopping).await {
            Event::Line(text) => {
                idle.as_mut()
                    .reset(filch::time::now() + config.idle_timeout);
                say(&room, id, format!("{name}: {text}\n"));
            }
            end => break end,
        }
    };
    match end {
        Event::Idle => say(&room, id, format!("* {name} left (idle)\n")),
        Event::Left => say(&room, id, format!("* {name} left\n")),
        Event::Line(_) | Event::Shutdown => {}
    }
    if let Some(farewell) = farewell(&end, config) {
        let _ = outbox.send(farewell.into()).await;
    }
    // The writer sends what the outbox still holds, then closes the writing side; a client
    // that reads nothing may hold it back for `FLUSH_TIMEOUT` at most.
    drop(outbox);
    let _ = filch::time::timeout(FLUSH_TIMEOUT, writer.join_next()).await;
    drop(writer);
    if let Event::Shutdown = end {
        reader.drain().await;
    }
}

/// The last line a client gets, if any.
fn farewell(end: &Event, config: Config) -> Option<String> {
    match end {
        Event::Idle => Some(format!(
            "* you were silent for {:?}: disconnecting\n",
            config.idle_timeout
        )),
        Event::Shutdown => Some("* server shutting down\n".to_owned()),
        Event::Line(_) | Event::Left => None,
    }
}

/// Says `text` in the room (nobody may be listening: then it goes nowhere).
fn say(room: &broadcast::Sender<Said>, from: u64, text: String) {
    let _ = room.send(Said {
        from,
        text: text.into(),
    });
}

/// The client's next line, or what came first instead: the idle timer, or the shutdown.
async fn next_event(
    reader: &mut Lines,
    idle: Pin<&mut Sleep>,
    stopping: &mut watch::Receiver<bool>,
) -> Event {
    tokio::select! {
        biased;
        // An error means the server is gone: a shutdown too.
        _ = stopping.wait_for(|&stop| stop) => Event::Shutdown,
        () = idle => Event::Idle,
        line = reader.next_line() => match line {
            Ok(Some(line)) => Event::Line(line),
            Ok(None) | Err(_) => Event::Left,
        },
    }
}

/// The writer task: the room's lines (but the client's own) and the reader task's messages,
/// until the reader closes the outbox; then it closes the writing side of the connection.
async fn write_lines(
    mut write: OwnedWriteHalf,
    me: u64,
    mut room: broadcast::Receiver<Said>,
    outbox: async_channel::Receiver<Arc<str>>,
) -> io::Result<()> {
    loop {
        let text = tokio::select! {
            biased;
            mine = outbox.recv() => match mine {
                Ok(text) => text,
                Err(_) => break,
            },
            said = room.recv() => match said {
                Ok(said) if said.from == me => continue,
                Ok(said) => said.text,
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    format!("* you missed {n} lines (reading too slowly)\n").into()
                }
                // Only once every sender is gone, and this connection's reader holds one.
                Err(broadcast::error::RecvError::Closed) => break,
            },
        };
        write.write_all(text.as_bytes()).await?;
    }
    write.close().await
}

/// Lines from a client: `tokio::io::AsyncBufReadExt::lines` with a length limit.
struct Lines {
    reader: BufReader<OwnedReadHalf>,
    /// The part of the next line read so far; kept here, so that a `next_line` dropped by
    /// `select!` loses nothing.
    line: Vec<u8>,
}

impl Lines {
    fn new(read: OwnedReadHalf) -> Lines {
        Lines {
            reader: BufReader::new(read),
            line: Vec::new(),
        }
    }

    /// The next line, without its `\n` (or `\r\n`); `None` once the client closed its side.
    /// Invalid UTF-8 is replaced; a line longer than [`MAX_LINE`] is an error.
    async fn next_line(&mut self) -> io::Result<Option<String>> {
        loop {
            let chunk = self.reader.fill_buf().await?;
            if chunk.is_empty() {
                return Ok(None);
            }
            // Taken and consumed with no await in between: cancelling loses nothing.
            let (taken, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => (&chunk[..at], Some(at + 1)),
                None => (chunk, None),
            };
            self.line.extend_from_slice(taken);
            let consumed = end.unwrap_or(chunk.len());
            self.reader.consume_unpin(consumed);
            if self.line.len() > MAX_LINE {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "line too long"));
            }
            if end.is_some() {
                let line = String::from_utf8_lossy(&self.line)
                    .trim_end_matches('\r')
                    .to_owned();
                self.line.clear();
                return Ok(Some(line));
            }
        }
    }

    /// Reads and drops what the client still sends, until it closes its side.
    async fn drain(&mut self) {
        while let Ok(Some(_)) = self.next_line().await {}
    }
}

/// Completes at the next Ctrl-C (SIGINT), through filch's own driver.
pub async fn ctrl_c() -> io::Result<()> {
    filch::signal::ctrl_c().await
}

fn main() -> io::Result<()> {
    let mut addr: SocketAddr = "127.0.0.1:6142".parse().expect("a valid default address");
    let mut config = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().unwrap_or_default();
        match arg.as_str() {
            "--addr" => match value.parse() {
                Ok(a) => addr = a,
                Err(e) => usage(&format!("--addr {value:?}: {e}")),
            },
            "--idle" => match value.parse() {
                Ok(secs) => config.idle_timeout = Duration::from_secs(secs),
                Err(e) => usage(&format!("--idle {value:?}: {e}")),
            },
            other => usage(&format!("unknown argument {other:?}")),
        }
    }

    let ex = filch::Executor::new();
    ex.block_on(async {
        let listener = TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        println!(
            "chat on {local} (idle timeout {:?}); connect with `nc {} {}`; Ctrl-C stops it",
            config.idle_timeout,
            local.ip(),
            local.port(),
        );
        serve(listener, config, async {
            if let Err(e) = ctrl_c().await {
                eprintln!("chat: no Ctrl-C handler ({e}); stop it some other way");
                std::future::pending::<()>().await;
            }
        })
        .await;
        println!("stopped");
        Ok(())
    })
}

fn usage(problem: &str) -> ! {
    eprintln!("{problem} (usage: chat [--addr HOST:PORT] [--idle SECS])");
    std::process::exit(2);
}
