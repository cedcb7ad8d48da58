//! What the kernel says one thread of this process is doing ([`sample`]): whether it is
//! blocked (sleeping in a wait, or in uninterruptible IO) or runnable, and how much CPU
//! time it has had. The slow-poll watch (`poll_watch.rs`) reads it to tell a poll that
//! holds its worker (running, or blocked inside the poll) from a worker that merely waits
//! for a CPU (preempted on a busy machine), which the wall clock cannot.
//!
//! Linux only, from `/proc/self/task/<tid>/stat` (the state) and the thread's CPU-time clock
//! (`clock_gettime` on the clock id Linux derives from a thread id, as glibc's
//! `pthread_getcpuclockid` does: exact to the nanosecond, also for a thread running now;
//! else `.../schedstat`, which the kernel moves only at its scheduler ticks, so a running
//! thread's reading lags by up to one; else `stat`'s clock ticks). Elsewhere, or when the
//! files cannot be read, there is no sample, and the watch falls back to the wall clock.

/// A thread's id as the kernel knows it (`gettid`), or 0 where there is none.
pub(crate) fn current_tid() -> u32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `gettid` has no preconditions and cannot fail.
        let tid = unsafe { libc::gettid() };
        u32::try_from(tid).unwrap_or(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// One reading of a thread ([`sample`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sample {
    /// Blocked: sleeping in a wait (`S`) or in uninterruptible sleep (`D`). Not blocked:
    /// running, or runnable and waiting for a CPU (`R`), or stopped.
    pub(crate) blocked: bool,
    /// CPU time the thread has had, in nanoseconds.
    pub(crate) cpu_ns: u64,
}

/// Reads thread `tid` of this process; `None` if it cannot be read (no such thread, no
/// `/proc`, not Linux).
pub(crate) fn sample(tid: u32) -> Option<Sample> {
    #[cfg(target_os = "linux")]
    {
        if tid == 0 {
            return None;
        }
        let dir = format!("/proc/self/task/{tid}");
        let stat = std::fs::read_to_string(format!("{dir}/stat")).ok()?;
        let (state, ticks) = parse_stat(&stat)?;
        let cpu_ns = thread_cpu_clock(tid)
            .or_else(|| {
                std::fs::read_to_string(format!("{dir}/schedstat"))
                    .ok()
                    .and_then(|s| parse_schedstat(&s))
            })
            .unwrap_or_else(|| ticks.saturating_mul(nanos_per_tick()));
        Some(Sample {
            blocked: matches!(state, 'S' | 'D'),
            cpu_ns,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = tid;
        None
    }
}

/// The CPU time of thread `tid` of this process in nanoseconds, from its CPU-time clock:
/// Linux's clock id for a thread's scheduler clock is `(!tid << 3) | 4 | 2` (per-thread,
/// `CPUCLOCK_SCHED`), which is what glibc's `pthread_getcpuclockid` returns. `None` if the
/// thread is gone (the call then fails with `EINVAL`) or the call fails otherwise.
#[cfg(target_os = "linux")]
fn thread_cpu_clock(tid: u32) -> Option<u64> {
    const CPUCLOCK_PERTHREAD: libc::clockid_t = 4;
    const CPUCLOCK_SCHED: libc::clockid_t = 2;
    let tid = libc::clockid_t::try_from(tid).ok()?;
    let clock = ((!tid) << 3) | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED;
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; an unknown clock id is an error return
    // (`EINVAL`), not undefined behaviour.
    if unsafe { libc::clock_gettime(clock, &raw mut now) } != 0 {
        return None;
    }
    let secs = u64::try_from(now.tv_sec).ok()?;
    let nanos = u64::try_from(now.tv_nsec).ok()?;
    Some(secs.saturating_mul(1_000_000_000).saturating_add(nanos))
}

/// Thread `tid`'s CPU time in nanoseconds, without its state: its CPU-time clock (one
/// system call, no file read), else a full [`sample`]'s. `None` if it cannot be read.
pub(crate) fn cpu_time(tid: u32) -> Option<u64> {
    #[cfg(target_os = "linux")]
    if tid != 0 {
        if let Some(ns) = thread_cpu_clock(tid) {
            return Some(ns);
        }
    }
    sample(tid).map(|sample| sample.cpu_ns)
}

/// The state letter and the CPU time in clock ticks (user + system) of a `stat` line: the
/// fields after the command name, which may hold spaces and parentheses, so it is cut at
/// the last `)`.
pub(crate) fn parse_stat(stat: &str) -> Option<(char, u64)> {
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    // After the state: ppid, pgrp, session, tty_nr, tpgid, flags, minflt, cminflt, majflt,
    // cmajflt, then utime and stime.
    let mut times = fields.skip(10);
    let utime: u64 = times.next()?.parse().ok()?;
    let stime: u64 = times.next()?.parse().ok()?;
    Some((state, utime.saturating_add(stime)))
}

/// The CPU time in nanoseconds of a `schedstat` line (its first field).
pub(crate) fn parse_schedstat(schedstat: &str) -> Option<u64> {
    schedstat.split_ascii_whitespace().next()?.parse().ok()
}

/// Nanoseconds per clock tick of `stat`'s times.
#[cfg(target_os = "linux")]
fn nanos_per_tick() -> u64 {
    // SAFETY: `sysconf` has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    match u64::try_from(hz) {
        Ok(hz) if hz > 0 => 1_000_000_000 / hz,
        _ => 10_000_000,
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
