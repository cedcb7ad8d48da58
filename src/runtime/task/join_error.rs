//! [`JoinError`], why a task gave no output (cancelled, or panicked), and the panic
//! [`Payload`] it carries.
//!
//! Invariant: a panic's payload is kept behind a mutex (so that the error is `Sync`) and
//! boxed (so that a task's stored result stays two words); only `into_panic` moves it out.

use std::any::Any;
use std::fmt;

use crate::runtime::task::id::Id;
use crate::util::sync::Mutex;

/// A panic's payload.
pub(crate) type Payload = Box<dyn Any + Send + 'static>;

/// Why a task gave no output: it was cancelled, or it panicked.
///
/// ```
/// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
/// let err = ex.block_on(ex.spawn(async { panic!("boom") })).unwrap_err();
/// assert!(err.is_panic());
/// assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");
/// ```
pub struct JoinError {
    repr: Repr,
    id: Id,
}

enum Repr {
    Cancelled,
    /// The payload behind a mutex only so that `JoinError` is `Sync` as well as `Send`;
    /// boxed, so that a task's stored result stays two words (a panic is rare).
    Panic(Box<Mutex<Payload>>),
}

impl JoinError {
    pub(crate) fn cancelled(id: Id) -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
            id,
        }
    }

    pub(crate) fn panic(payload: Payload, id: Id) -> JoinError {
        JoinError {
            repr: Repr::Panic(Box::new(Mutex::new(payload))),
            id,
        }
    }

    /// The id of the task that failed.
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let handle = ex.spawn(async { panic!("boom") });
    /// let id = handle.id();
    /// assert_eq!(ex.block_on(handle).unwrap_err().id(), id);
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }

    /// Whether the task was cancelled (aborted, or dropped by shutdown).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let handle = ex.spawn(std::future::pending::<()>());
    /// handle.abort();
    /// assert!(ex.block_on(handle).unwrap_err().is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// Whether the task panicked (in its poll, or in a destructor of its future or output).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// assert!(ex.block_on(ex.spawn(async { panic!() })).unwrap_err().is_panic());
    /// ```
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic payload, to resume with [`std::panic::resume_unwind`].
    ///
    /// # Panics
    /// If the error is not a panic ([`JoinError::is_panic`] is false).
    ///
    /// ```
    /// let ex = filch::Executor::builder().worker_threads(1).build().unwrap();
    /// let err = ex.block_on(ex.spawn(async { std::panic::panic_any(7u32) })).unwrap_err();
    /// assert_eq!(*err.into_panic().downcast::<u32>().unwrap(), 7);
    /// ```
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        match self.repr {
            Repr::Panic(payload) => payload.into_inner(),
            Repr::Cancelled => {
                panic!("filch: JoinError::into_panic called on a cancelled task's error")
            }
        }
    }

    fn panic_message(&self) -> Option<String> {
        match &self.repr {
            Repr::Panic(payload) => {
                let payload = payload.lock();
                payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
            }
            Repr::Cancelled => None,
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => f.write_str("task was cancelled"),
            (Repr::Panic(_), Some(msg)) => write!(f, "task panicked with message {msg:?}"),
            (Repr::Panic(_), None) => f.write_str("task panicked"),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => f.write_str("JoinError::Cancelled"),
            (Repr::Panic(_), Some(msg)) => write!(f, "JoinError::Panic({msg:?})"),
            (Repr::Panic(_), None) => f.write_str("JoinError::Panic(..)"),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(err: JoinError) -> std::io::Error {
        std::io::Error::other(err.to_string())
    }
}
