//! What the datagram sockets ([`super::UdpSocket`], [`super::UnixDatagram`]) share: waiting
//! for readiness, the `try_*` operations (now or `WouldBlock`) and the `poll_*` ones (for
//! code with no future of its own: quinn's `AsyncUdpSocket`, a hand-written `Future`), the
//! [`datagram_ops`] macro. Each type gets its own docs and examples, naming its own address
//! types.
//!
//! Any number of tasks may use these at once. As tokio's, each `poll_*` direction keeps
//! the waker of its last caller. Like every filch IO operation, a `poll_*` spends one unit of
//! the task's cooperative budget when it completes, and yields once the budget is spent.

/// The shared operations of datagram socket `$ty` (whose `io` field is its `IoSource`):
/// `$addr` is the type of a sender's address, `$target` the type of a destination;
/// `send_to` sends buffer `$buf` to destination `&$target` `$to` on the OS socket `$s`;
/// `$make_pair` are doc-test lines that make two sockets `a` and `b` connected to each
/// other, and `$b_target` names `b` as a destination.
macro_rules! datagram_ops {
    (
        $ty:ident,
        $addr:ty,
        $target:ty,
        send_to: |$s:ident, $buf:ident, $to:ident| $send_to:expr,
        $make_pair:literal,
        $b_target:literal
    ) => {
        impl $ty {
            #[doc = concat!(
                "Waits until the socket can be read (a datagram has come, or an error), ",
                "without reading: pair it with [`", stringify!($ty), "::try_recv`]. Any ",
                "number of tasks may wait.\n\n",
                "```\n# filch::block_on(async {\n", $make_pair, "\n",
                "b.writable().await?;\n",
                "b.try_send(b\"hi\")?;\n",
                "let mut buf = [0; 8];\n",
                "let n = loop {\n",
                "    a.readable().await?;\n",
                "    match a.try_recv(&mut buf) {\n",
                "        Ok(n) => break n,\n",
                "        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,\n",
                "        Err(e) => return Err(e),\n",
                "    }\n",
                "};\n",
                "assert_eq!(&buf[..n], b\"hi\");\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub async fn readable(&self) -> std::io::Result<()> {
                self.io.ready($crate::runtime::driver::source::Direction::Read).await
            }

            #[doc = concat!(
                "Waits until the socket can send (or has failed), without sending: pair it ",
                "with [`", stringify!($ty), "::try_send`] (example: [`", stringify!($ty),
                "::readable`])."
            )]
            pub async fn writable(&self) -> std::io::Result<()> {
                self.io.ready($crate::runtime::driver::source::Direction::Write).await
            }

            #[doc = concat!(
                "Sends `buf` to the connected peer now, or `WouldBlock` (which clears the ",
                "readiness, so that [`", stringify!($ty), "::writable`] waits for a new one; ",
                "example: [`", stringify!($ty), "::readable`])."
            )]
            pub fn try_send(&self, buf: &[u8]) -> std::io::Result<usize> {
                self.io.try_io($crate::runtime::driver::source::Direction::Write, |s| s.send(buf))
            }

            #[doc = concat!(
                "Receives a datagram from the connected peer into `buf` now, or ",
                "`WouldBlock` (which clears the readiness; example: [`", stringify!($ty),
                "::readable`])."
            )]
            pub fn try_recv(&self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.io.try_io($crate::runtime::driver::source::Direction::Read, |s| s.recv(buf))
            }

            #[doc = concat!(
                "Sends `buf` to `target` now, or `WouldBlock`.\n\n",
                "```\n# filch::block_on(async {\n", $make_pair, "\n",
                "a.writable().await?;\n",
                "assert_eq!(a.try_send_to(b\"to b\", ", $b_target, ")?, 4);\n",
                "let mut buf = [0; 8];\n",
                "b.readable().await?;\n",
                "let (n, _from) = b.try_recv_from(&mut buf)?;\n",
                "assert_eq!(&buf[..n], b\"to b\");\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub fn try_send_to(&self, buf: &[u8], target: $target) -> std::io::Result<usize> {
                let $to = &target;
                self.io
                    .try_io($crate::runtime::driver::source::Direction::Write, |$s| {
                        let $buf = buf;
                        $send_to
                    })
            }

            #[doc = concat!(
                "Receives a datagram into `buf` now, with its sender's address, or ",
                "`WouldBlock` (example: [`", stringify!($ty), "::try_send_to`])."
            )]
            pub fn try_recv_from(&self, buf: &mut [u8]) -> std::io::Result<(usize, $addr)> {
                self.io.try_io($crate::runtime::driver::source::Direction::Read, |s| s.recv_from(buf))
            }

            #[doc = concat!(
                "Sends `buf` to the connected peer once the socket can: the poll form of [`",
                stringify!($ty), "::send`], for code with no future of its own.\n\n",
                "```\nuse std::future::poll_fn;\n# filch::block_on(async {\n", $make_pair, "\n",
                "poll_fn(|cx| a.poll_send_ready(cx)).await?;\n",
                "assert_eq!(poll_fn(|cx| a.poll_send(cx, b\"hi\")).await?, 2);\n",
                "poll_fn(|cx| b.poll_recv_ready(cx)).await?;\n",
                "let mut buf = [0; 8];\n",
                "assert_eq!(poll_fn(|cx| b.poll_recv(cx, &mut buf)).await?, 2);\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub fn poll_send(
                &self,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                self.io.poll_io(cx, $crate::runtime::driver::source::Direction::Write, |s| s.send(buf))
            }

            #[doc = concat!(
                "Receives a datagram from the connected peer once one has come: the poll ",
                "form of [`", stringify!($ty), "::recv`] (example: [`", stringify!($ty),
                "::poll_send`])."
            )]
            pub fn poll_recv(
                &self,
                cx: &mut std::task::Context<'_>,
                buf: &mut [u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                self.io.poll_io(cx, $crate::runtime::driver::source::Direction::Read, |s| s.recv(buf))
            }

            #[doc = concat!(
                "Sends `buf` to `target` once the socket can: the poll form of [`",
                stringify!($ty), "::send_to`].\n\n",
                "```\nuse std::future::poll_fn;\n# filch::block_on(async {\n", $make_pair, "\n",
                "let target = ", $b_target, ";\n",
                "assert_eq!(poll_fn(|cx| a.poll_send_to(cx, b\"to b\", target.clone())).await?, 4);\n",
                "let mut buf = [0; 8];\n",
                "let (n, _from) = poll_fn(|cx| b.poll_recv_from(cx, &mut buf)).await?;\n",
                "assert_eq!(&buf[..n], b\"to b\");\n",
                "# Ok::<_, std::io::Error>(())\n# }).unwrap();\n```"
            )]
            pub fn poll_send_to(
                &self,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
                target: $target,
            ) -> std::task::Poll<std::io::Result<usize>> {
                let $to = &target;
                self.io.poll_io(cx, $crate::runtime::driver::source::Direction::Write, |$s| {
                    let $buf = buf;
                    $send_to
                })
            }

            #[doc = concat!(
                "Receives a datagram, with its sender's address, once one has come: the poll ",
                "form of [`", stringify!($ty), "::recv_from`] (example: [`", stringify!($ty),
                "::poll_send_to`])."
            )]
            pub fn poll_recv_from(
                &self,
                cx: &mut std::task::Context<'_>,
                buf: &mut [u8],
            ) -> std::task::Poll<std::io::Result<(usize, $addr)>> {
                self.io
                    .poll_io(cx, $crate::runtime::driver::source::Direction::Read, |s| s.recv_from(buf))
            }

            #[doc = concat!(
                "Ready once the socket can send (or has failed); sends nothing (example: [`",
                stringify!($ty), "::poll_send`])."
            )]
            pub fn poll_send_ready(
                &self,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.io.poll_ready(cx, $crate::runtime::driver::source::Direction::Write)
            }

            #[doc = concat!(
                "Ready once a datagram has come (or an error); receives nothing (example: [`",
                stringify!($ty), "::poll_send`])."
            )]
            pub fn poll_recv_ready(
                &self,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.io.poll_ready(cx, $crate::runtime::driver::source::Direction::Read)
            }
        }
    };
}

pub(crate) use datagram_ops;
