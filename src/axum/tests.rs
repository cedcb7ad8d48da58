//! White-box tests of `axum.rs`.

use super::AcceptError;
use std::io;

#[test]
fn accept_errors_are_retried_paused_on_or_returned() {
    let of = |code| AcceptError::of(&io::Error::from_raw_os_error(code));
    assert_eq!(of(libc::ECONNABORTED), AcceptError::Retry);
    assert_eq!(of(libc::EMFILE), AcceptError::Retry);
    assert_eq!(of(libc::ENFILE), AcceptError::Retry);
    assert_eq!(of(libc::EPROTO), AcceptError::Retry);
    assert_eq!(of(libc::ENOBUFS), AcceptError::Pause);
    assert_eq!(of(libc::ENOMEM), AcceptError::Pause);
    assert_eq!(of(libc::EINVAL), AcceptError::Fatal);
    assert_eq!(of(libc::EBADF), AcceptError::Fatal);
    assert_eq!(
        AcceptError::of(&io::Error::other("the executor has shut down")),
        AcceptError::Fatal
    );
}
