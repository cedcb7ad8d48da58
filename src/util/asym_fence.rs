//! An asymmetric fence: a pair of barriers for a Dekker-style handshake in which one side
//! runs often (a worker at the end of every poll) and the other rarely (the ticker's claim
//! of a held poll), so that the frequent side pays a compiler fence and the rare side a
//! process-wide barrier. The pattern of liburcu and folly's hazard pointers.
//!
//! The handshake: the frequent side stores `A`, calls [`light`], loads `B`; the rare side
//! stores `B`, calls [`heavy`], loads `A`. Then at least one of the two loads sees the other
//! side's store: both cannot miss.
//!
//! **How:** on Linux, [`heavy`] is `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, which
//! runs a full memory barrier on every CPU that runs a thread of this process before it
//! returns; so whatever a thread did before that barrier is visible to the caller after the
//! call, and whatever it does after sees what the caller did before the call. [`light`] is
//! then only a compiler fence (it keeps the compiler from moving the load above the store).
//! The process registers for that command once ([`init`], from the first executor's build,
//! before its threads start: thread creation orders the registration before every use).
//! Where the registration fails (another OS, an old kernel, a seccomp filter), or under
//! loom, both sides are a SeqCst fence: the symmetric Dekker pair, correct and a little
//! dearer on the frequent side.
//!
//! **Invariant:** [`light`] is a compiler fence only if [`heavy`] is the membarrier: both
//! read the one registration result, set once, before any thread that calls them started.

use std::sync::OnceLock;

use crate::util::sync::{fence, Ordering};

/// Whether this process registered for the expedited private membarrier (set once).
static EXPEDITED: OnceLock<bool> = OnceLock::new();

/// Registers the process for the expedited barrier, once; later calls do nothing. Called
/// before any thread that uses [`light`] or [`heavy`] is started.
pub(crate) fn init() {
    EXPEDITED.get_or_init(register);
}

#[cfg(all(target_os = "linux", not(loom)))]
fn register() -> bool {
    const MEMBARRIER_CMD_QUERY: libc::c_long = 0;
    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_long = 1 << 4;
    // SAFETY: `membarrier` takes two integers and touches no memory of ours; an unknown
    // command or kernel returns -1.
    let supported = unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_QUERY, 0) };
    if supported < 0 || supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED == 0 {
        return false;
    }
    // SAFETY: as above.
    unsafe {
        libc::syscall(
            libc::SYS_membarrier,
            MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
            0,
        ) == 0
    }
}

#[cfg(not(all(target_os = "linux", not(loom))))]
fn register() -> bool {
    false
}

/// Whether [`heavy`] is the membarrier (then [`light`] is a compiler fence).
#[inline(always)]
fn expedited() -> bool {
    EXPEDITED.get().copied().unwrap_or(false)
}

/// The frequent side's barrier, between its store and its load (module docs).
#[inline(always)]
pub(crate) fn light() {
    if expedited() {
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
    } else {
        fence(Ordering::SeqCst);
    }
}

/// The rare side's barrier, between its store and its load (module docs).
pub(crate) fn heavy() {
    if expedited() {
        expedited_barrier();
    } else {
        fence(Ordering::SeqCst);
    }
}

#[cfg(all(target_os = "linux", not(loom)))]
fn expedited_barrier() {
    const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_long = 1 << 3;
    // SAFETY: see `register`; the process registered for this command.
    let done = unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) };
    // Registered, the command does not fail; if it ever did, the light side's compiler
    // fence would not be enough, so it must not go unnoticed.
    assert_eq!(done, 0, "filch: membarrier failed after its registration");
}

#[cfg(not(all(target_os = "linux", not(loom))))]
fn expedited_barrier() {
    fence(Ordering::SeqCst);
}

#[cfg(all(test, not(loom)))]
mod tests {
    /// The registration and both barriers run; once registered, the expedited barrier
    /// succeeds (`heavy` asserts the system call's result). Whether the pair orders memory
    /// is the kernel's promise and the C++ model's; the hand-over's loom model checks the
    /// protocol built on it (`runtime/scheduler/standin/loom_model.rs`).
    #[test]
    fn the_barriers_run_after_the_registration() {
        super::init();
        for _ in 0..3 {
            super::heavy();
            super::light();
        }
        // On Linux with a kernel of the last seven years the expedited barrier is there;
        // elsewhere both sides are fences.
        if cfg!(target_os = "linux") {
            eprintln!("membarrier expedited: {}", super::expedited());
        }
    }
}
