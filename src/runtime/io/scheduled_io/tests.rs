//! White-box tests of `runtime/io/scheduled_io.rs`.

use super::*;
use futures::task::noop_waker;

fn poll(io: &ScheduledIo, d: Direction) -> Poll<Result<ReadyEvent, Gone>> {
    let waker = noop_waker();
    io.poll_ready(&mut Context::from_waker(&waker), d, None)
}

#[test]
fn a_clear_that_races_a_new_event_keeps_the_new_readiness() {
    let io = ScheduledIo::new(0, 0);
    assert!(poll(&io, Direction::Read).is_pending());
    io.set_readiness(READABLE);
    let Poll::Ready(Ok(seen)) = poll(&io, Direction::Read) else {
        panic!("not ready after an event")
    };
    // A new event arrives between the look and the WouldBlock's clear.
    io.set_readiness(READABLE);
    io.clear_readiness(seen);
    assert!(
        poll(&io, Direction::Read).is_ready(),
        "the new event was lost"
    );
    let Poll::Ready(Ok(seen)) = poll(&io, Direction::Read) else {
        unreachable!()
    };
    io.clear_readiness(seen);
    assert!(poll(&io, Direction::Read).is_pending());
}

#[test]
fn closed_bits_survive_a_clear_and_shutdown_ends_every_wait() {
    let io = ScheduledIo::new(0, 0);
    io.set_readiness(READABLE | READ_CLOSED);
    let Poll::Ready(Ok(seen)) = poll(&io, Direction::Read) else {
        unreachable!()
    };
    io.clear_readiness(seen);
    assert!(poll(&io, Direction::Read).is_ready());
    assert!(poll(&io, Direction::Write).is_pending());
    io.set_readiness(SHUTDOWN);
    assert!(matches!(
        poll(&io, Direction::Write),
        Poll::Ready(Err(Gone))
    ));
}

/// A waker that counts its wakes.
struct WakeTally(crate::util::sync::AtomicUsize);
impl std::task::Wake for WakeTally {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, crate::util::sync::Ordering::SeqCst);
    }
}
fn counter() -> (std::sync::Arc<WakeTally>, Waker) {
    let count = std::sync::Arc::new(WakeTally(crate::util::sync::AtomicUsize::new(0)));
    (std::sync::Arc::clone(&count), Waker::from(count))
}
fn wakes(count: &WakeTally) -> usize {
    count.0.load(crate::util::sync::Ordering::SeqCst)
}

#[test]
fn every_waiter_of_a_direction_is_woken_and_none_replaces_another() {
    let io = ScheduledIo::new(0, 0);
    let counts: Vec<_> = (0..10).map(|_| counter()).collect();
    let mut keys = vec![None; 5];
    for (i, (_, waker)) in counts.iter().enumerate() {
        let mut cx = Context::from_waker(waker);
        // Half owned entries, half anonymous ones.
        let key = keys.get_mut(i);
        assert!(io.poll_ready(&mut cx, Direction::Read, key).is_pending());
    }
    let (writer, writer_waker) = counter();
    assert!(io
        .poll_ready(
            &mut Context::from_waker(&writer_waker),
            Direction::Write,
            None
        )
        .is_pending());
    io.set_readiness(READABLE);
    for (count, _) in &counts {
        assert_eq!(wakes(count), 1, "a reader was not woken exactly once");
    }
    assert_eq!(wakes(&writer), 0, "a read event woke a writer");
    // The owned entries stay until their futures remove them; the anonymous ones are gone.
    assert_eq!(io.waiters_len(), 5 + 1);
    for key in keys {
        io.remove_waiter(Direction::Read, key);
    }
    assert_eq!(io.waiters_len(), 1);
}

#[test]
fn a_task_polling_again_keeps_one_anonymous_entry() {
    let io = ScheduledIo::new(0, 0);
    let (count, waker) = counter();
    for _ in 0..100 {
        assert!(io
            .poll_ready(&mut Context::from_waker(&waker), Direction::Read, None)
            .is_pending());
    }
    assert_eq!(io.waiters_len(), 1);
    io.set_readiness(READABLE);
    assert_eq!(wakes(&count), 1);
    assert_eq!(io.waiters_len(), 0);
}

#[test]
fn a_would_block_clears_a_reported_error() {
    let io = ScheduledIo::new(0, 0);
    io.set_readiness(READABLE | ERROR);
    let Poll::Ready(Ok(seen)) = poll(&io, Direction::Read) else {
        unreachable!()
    };
    // The operation reported the error; the next one would block.
    io.clear_readiness(seen);
    assert!(
        poll(&io, Direction::Read).is_pending(),
        "the error bit kept the source ready after a WouldBlock"
    );
    assert!(poll(&io, Direction::Write).is_pending());
}

/// A replaced waker whose drop polls the same source must not deadlock on the waiters'
/// lock.
#[test]
fn a_replaced_waker_is_dropped_outside_the_lock() {
    struct PollOnDrop(std::sync::Arc<ScheduledIo>);
    impl std::task::Wake for PollOnDrop {
        fn wake(self: std::sync::Arc<Self>) {}
    }
    impl Drop for PollOnDrop {
        fn drop(&mut self) {
            let _ = poll(&self.0, Direction::Write);
        }
    }
    let io = std::sync::Arc::new(ScheduledIo::new(0, 0));
    let mut key = None;
    let first = Waker::from(std::sync::Arc::new(PollOnDrop(std::sync::Arc::clone(&io))));
    assert!(io
        .poll_ready(
            &mut Context::from_waker(&first),
            Direction::Read,
            Some(&mut key)
        )
        .is_pending());
    drop(first);
    // Replaces (and drops) the only reference to the first waker.
    let (_, second) = counter();
    assert!(io
        .poll_ready(
            &mut Context::from_waker(&second),
            Direction::Read,
            Some(&mut key)
        )
        .is_pending());
    io.remove_waiter(Direction::Read, key);
    io.clear_wakers();
}
