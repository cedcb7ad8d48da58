//! Unix signals: [`signal`] makes a [`Signal`] of one [`SignalKind`], whose
//! [`recv`](Signal::recv) waits for the next one (see the `signal` module docs for how a
//! signal reaches it).

use std::fmt;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::{pin, Pin};
use std::task::Poll;

use super::registry::{globals, Globals, SLOTS};
use crate::runtime::driver::source::Direction;

/// A kind of signal: a signal number, with constructors for the common ones.
///
/// ```
/// use filch::signal::unix::SignalKind;
/// assert_eq!(SignalKind::interrupt().as_raw_value(), libc::SIGINT);
/// assert_eq!(SignalKind::from_raw(libc::SIGHUP), SignalKind::hangup());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SignalKind(libc::c_int);

impl SignalKind {
    /// The signal numbered `signum` (for the ones without a constructor here).
    pub const fn from_raw(signum: std::os::raw::c_int) -> SignalKind {
        SignalKind(signum)
    }

    /// The signal's number.
    pub const fn as_raw_value(&self) -> std::os::raw::c_int {
        self.0
    }

    /// SIGINT: an interrupt from the terminal (Ctrl-C).
    pub const fn interrupt() -> SignalKind {
        SignalKind(libc::SIGINT)
    }

    /// SIGTERM: a request to terminate (what `kill` sends by default).
    pub const fn terminate() -> SignalKind {
        SignalKind(libc::SIGTERM)
    }

    /// SIGHUP: the terminal hung up; daemons often take it as "reload the configuration".
    pub const fn hangup() -> SignalKind {
        SignalKind(libc::SIGHUP)
    }

    /// SIGQUIT: a quit from the terminal (Ctrl-\).
    pub const fn quit() -> SignalKind {
        SignalKind(libc::SIGQUIT)
    }

    /// SIGUSR1: user-defined.
    pub const fn user_defined1() -> SignalKind {
        SignalKind(libc::SIGUSR1)
    }

    /// SIGUSR2: user-defined.
    pub const fn user_defined2() -> SignalKind {
        SignalKind(libc::SIGUSR2)
    }

    /// SIGALRM: a timer set by `alarm` expired.
    pub const fn alarm() -> SignalKind {
        SignalKind(libc::SIGALRM)
    }

    /// SIGCHLD: a child process stopped or exited.
    pub const fn child() -> SignalKind {
        SignalKind(libc::SIGCHLD)
    }

    /// SIGPIPE: a write to a pipe or socket with no reader.
    pub const fn pipe() -> SignalKind {
        SignalKind(libc::SIGPIPE)
    }

    /// SIGWINCH: the terminal's window changed size.
    pub const fn window_change() -> SignalKind {
        SignalKind(libc::SIGWINCH)
    }

    /// The conventional name of the signal, if it is one this module knows.
    fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            libc::SIGHUP => "SIGHUP",
            libc::SIGINT => "SIGINT",
            libc::SIGQUIT => "SIGQUIT",
            libc::SIGILL => "SIGILL",
            libc::SIGTRAP => "SIGTRAP",
            libc::SIGABRT => "SIGABRT",
            libc::SIGBUS => "SIGBUS",
            libc::SIGFPE => "SIGFPE",
            libc::SIGKILL => "SIGKILL",
            libc::SIGUSR1 => "SIGUSR1",
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGUSR2 => "SIGUSR2",
            libc::SIGPIPE => "SIGPIPE",
            libc::SIGALRM => "SIGALRM",
            libc::SIGTERM => "SIGTERM",
            libc::SIGCHLD => "SIGCHLD",
            libc::SIGCONT => "SIGCONT",
            libc::SIGSTOP => "SIGSTOP",
            libc::SIGTSTP => "SIGTSTP",
            libc::SIGWINCH => "SIGWINCH",
            _ => return None,
        })
    }
}

impl fmt::Debug for SignalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "SignalKind({name})"),
            None => write!(f, "SignalKind({})", self.0),
        }
    }
}

impl From<std::os::raw::c_int> for SignalKind {
    fn from(signum: std::os::raw::c_int) -> SignalKind {
        SignalKind::from_raw(signum)
    }
}

impl From<SignalKind> for std::os::raw::c_int {
    fn from(kind: SignalKind) -> std::os::raw::c_int {
        kind.0
    }
}

/// The signals that cannot be handled: SIGKILL and SIGSTOP cannot be caught at all, and the
/// faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL) would return to the faulting instruction.
const FORBIDDEN: [libc::c_int; 6] = [
    libc::SIGKILL,
    libc::SIGSTOP,
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
];

/// The slot of `kind`, or `InvalidInput` naming it if it cannot be handled.
fn slot_of(kind: SignalKind) -> io::Result<usize> {
    let raw = kind.0;
    if FORBIDDEN.contains(&raw) || signal_hook_registry::FORBIDDEN.contains(&raw) {
        let name = kind.name().map(|n| format!(" ({n})")).unwrap_or_default();
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "filch: signal {raw}{name} cannot be handled (SIGKILL and SIGSTOP cannot be \
                 caught; a handler that returns from SIGSEGV, SIGBUS, SIGFPE or SIGILL runs \
                 the faulting instruction again)"
            ),
        ));
    }
    match usize::try_from(raw) {
        Ok(n) if n > 0 && n < SLOTS => Ok(n),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("filch: {raw} is not a signal number"),
        )),
    }
}

/// Starts listening for signals of `kind`: the returned [`Signal`]'s
/// [`recv`](Signal::recv) returns once for the signals delivered after this call, among
/// them one that arrived before it but that no waiter had delivered yet (the `signal`
/// module docs).
///
/// Registers at once: the first call for a signal number installs the process-wide handler
/// that replaces the signal's default action for the rest of the process (a SIGTERM no
/// longer terminates it), and the process's first call registers the signal pipe with the
/// current executor's driver, else the global one's (the `signal` module docs).
///
/// # Errors
/// `InvalidInput`, naming the signal, for a signal that cannot be handled (SIGKILL, SIGSTOP,
/// SIGSEGV, SIGBUS, SIGFPE, SIGILL) or a number that is no signal; the OS's error if the
/// handler cannot be installed or the pipe cannot be made or registered.
///
/// ```no_run
/// use filch::signal::unix::{signal, SignalKind};
/// filch::block_on(async {
///     let mut hangups = signal(SignalKind::hangup())?;
///     loop {
///         hangups.recv().await;
///         println!("SIGHUP: reloading the configuration");
///     }
/// #   #[allow(unreachable_code)]
/// #   Ok::<_, std::io::Error>(())
/// })
/// .unwrap();
/// ```
///
/// ```
/// use filch::signal::unix::{signal, SignalKind};
/// let err = signal(SignalKind::from_raw(libc::SIGKILL)).unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
/// ```
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    let signum = slot_of(kind)?;
    let globals = globals()?;
    globals.install(signum)?;
    globals.reader()?;
    Ok(Signal {
        kind,
        signum,
        seen: globals.generation(signum),
        globals,
    })
}

/// A listener for one kind of signal, made by [`signal`].
///
/// Each `Signal` sees every signal of its kind that is delivered after it was made (see
/// [`signal`]), whatever other `Signal`s of that kind exist. The signals that arrive while nobody
/// waits in [`recv`](Signal::recv) are kept: the next `recv` returns at once, once for all of them.
/// Dropping it uninstalls nothing (the module docs).
pub struct Signal {
    kind: SignalKind,
    signum: usize,
    /// The signal's generation when `recv` last returned (or when this was made).
    seen: u64,
    globals: &'static Globals,
}

impl Signal {
    /// Waits for the next signal of this kind: returns at once if one (or more) was delivered
    /// since the last `recv` returned (or since [`signal`] made this `Signal`), else waits
    /// for one, delivering what the signal pipe holds.
    ///
    /// Never returns `None`: a handler, once installed, stays for the life of the process, so
    /// the signal can always arrive again (the `Option` is tokio's signature). Cancel-safe:
    /// dropping the future before it completes loses no signal. Reading the signal pipe
    /// spends the task's cooperative budget as filch's IO does (it yields once the budget is
    /// spent).
    ///
    /// # Panics
    /// If the signal pipe has to be registered afresh (its executor shut down) and the OS
    /// refuses (out of memory or of epoll watches).
    ///
    /// ```no_run
    /// use filch::signal::unix::{signal, SignalKind};
    /// let ex = filch::Executor::new();
    /// ex.block_on(async {
    ///     let mut terms = signal(SignalKind::terminate())?;
    ///     let worker = filch::spawn(async move {
    ///         terms.recv().await;
    ///         println!("SIGTERM: draining connections");
    ///     });
    ///     worker.await.unwrap();
    ///     Ok::<_, std::io::Error>(())
    /// })
    /// .unwrap();
    /// ```
    pub async fn recv(&mut self) -> Option<()> {
        let globals = self.globals;
        loop {
            if self.take_new() {
                return Some(());
            }
            let mut listener = globals.listen(self.signum);
            // Again, now that a dispatch after this point reaches the listener.
            if self.take_new() {
                return Some(());
            }
            let reader = globals.reader().unwrap_or_else(|e| {
                panic!("filch: cannot register the signal pipe with an IO driver: {e}")
            });
            let mut read = pin!(reader.io(Direction::Read, |_| globals.drain()));
            let drained = poll_fn(|cx| {
                if Pin::new(&mut listener).poll(cx).is_ready() {
                    // A reader that drained the pipe found this signal pending.
                    return Poll::Ready(None);
                }
                read.as_mut().poll(cx).map(Some)
            })
            .await;
            // Else the pipe's driver shut down (the next `reader` registers it afresh), or
            // the listener fired: either way, look again.
            if let Some(Ok(_)) = drained {
                globals.dispatch();
            }
        }
    }

    /// Whether a signal arrived since `seen`; moves `seen` up to it.
    fn take_new(&mut self) -> bool {
        let generation = self.globals.generation(self.signum);
        if generation == self.seen {
            false
        } else {
            self.seen = generation;
            true
        }
    }
}

impl fmt::Debug for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signal").field("kind", &self.kind).finish()
    }
}
