//! A test fixture shared by the tokio-bound-crates test and example: a tiny HTTP/1.1 server
//! on 127.0.0.1 (a thread per connection, keep-alive) that answers `hello` to every GET.
//! GETs without bodies only; it is no HTTP implementation.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};

/// Serves `hello` to every GET on a thread per connection (keep-alive), on 127.0.0.1.
pub fn serve_hello() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind");
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    addr
}

/// Answers the requests of one connection until the client closes it. A test fixture: GETs
/// without bodies only.
fn answer(stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    let mut line = String::new();
    loop {
        // Skip the request line and the headers, up to the blank line.
        let mut saw_request = false;
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if line == "\r\n" && saw_request => break,
                Ok(_) => saw_request = true,
            }
        }
        let response =
            b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-type: text/plain\r\n\r\nhello";
        if writer.write_all(response).is_err() {
            return;
        }
    }
}
