//! The traced waker: what a traced poll (`task_span.rs`) hands its future instead of the
//! task's own waker, so that each clone, drop, wake and wake-by-ref of the task's wakers is a
//! `runtime::waker` event naming the task's span (`op` = `waker.clone`, `waker.drop`,
//! `waker.wake`, `waker.wake_by_ref`; `task.id` = the span's id). console-subscriber counts
//! the task's live wakers as clones minus drops (a wake by value counts as a drop), which is
//! what its "lost waker" lint reads, and a wake inside the task's own poll as a self-wake.
//!
//! Two forms:
//! - *borrowed*: made on the poll's stack, pointing to the task's waker; it lives only as the
//!   `&Waker` of the poll's context, so it is never woken by value nor dropped, and its clone
//!   is an owned one;
//! - *owned*: an `Arc` holding a clone of the task's waker and the span's id; what a future
//!   keeps when it clones the context's waker.
//!
//! **Invariant:** a borrowed waker's pointer is used only during the poll that made it (the
//! context that holds it is dropped before `traced` returns); an owned waker's pointer is an
//! `Arc::into_raw` whose count each clone raises and each drop or wake by value lowers once.

use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::task::{Context, RawWaker, RawWakerVTable, Waker};

/// The borrowed form: the task's waker for the length of one poll.
struct LentWaker<'a> {
    inner: &'a Waker,
    task: u64,
}

/// The owned form.
struct OwnedWaker {
    inner: Waker,
    task: u64,
}

/// Runs `poll` with a context whose waker is the borrowed form of `cx`'s, naming task span
/// `task`.
pub(crate) fn traced<T>(
    cx: &mut Context<'_>,
    task: u64,
    poll: impl FnOnce(&mut Context<'_>) -> T,
) -> T {
    let borrowed = LentWaker {
        inner: cx.waker(),
        task,
    };
    let raw = RawWaker::new(std::ptr::from_ref(&borrowed).cast(), &BORROWED);
    // SAFETY: the vtable's functions read the data pointer as a `&LentWaker`, which
    // `borrowed` is for as long as the waker is used: the waker is only lent as `&Waker`
    // through `cx` below (never moved out, so never woken by value nor dropped), and both die
    // before `borrowed` does. Its clones are owned wakers, which hold no pointer to it.
    let waker = ManuallyDrop::new(unsafe { Waker::from_raw(raw) });
    let mut cx = Context::from_waker(&waker);
    poll(&mut cx)
}

/// Reports `op` on the wakers of task span `task`.
#[inline]
fn report(op: &'static str, task: u64) {
    tracing::trace!(target: "runtime::waker", op = op, task.id = task);
}

static BORROWED: RawWakerVTable = RawWakerVTable::new(
    borrowed_clone,
    borrowed_wake_by_ref,
    borrowed_wake_by_ref,
    borrowed_drop,
);

static OWNED: RawWakerVTable =
    RawWakerVTable::new(owned_clone, owned_wake, owned_wake_by_ref, owned_drop);

/// # Safety
/// `data` is a borrowed waker's pointer, during its poll (module invariant).
unsafe fn borrowed<'a>(data: *const ()) -> &'a LentWaker<'a> {
    // SAFETY: the caller's contract.
    unsafe { &*data.cast::<LentWaker<'a>>() }
}

fn owned_raw(owned: Arc<OwnedWaker>) -> RawWaker {
    RawWaker::new(Arc::into_raw(owned).cast(), &OWNED)
}

unsafe fn borrowed_clone(data: *const ()) -> RawWaker {
    // SAFETY: the vtable is `BORROWED`'s, so `data` is a borrowed waker's, in its poll.
    let borrowed = unsafe { borrowed(data) };
    report("waker.clone", borrowed.task);
    owned_raw(Arc::new(OwnedWaker {
        inner: borrowed.inner.clone(),
        task: borrowed.task,
    }))
}

/// Also the borrowed form's wake by value, which never happens (module docs) and would
/// leave nothing to drop.
unsafe fn borrowed_wake_by_ref(data: *const ()) {
    // SAFETY: as in `borrowed_clone`.
    let borrowed = unsafe { borrowed(data) };
    report("waker.wake_by_ref", borrowed.task);
    borrowed.inner.wake_by_ref();
}

/// The borrowed form is never dropped (module docs); nothing to free if it were.
unsafe fn borrowed_drop(_: *const ()) {}

unsafe fn owned_clone(data: *const ()) -> RawWaker {
    let data = data.cast::<OwnedWaker>();
    // SAFETY: the vtable is `OWNED`'s, so `data` came from `Arc::into_raw` and the waker
    // being cloned holds one count of it, alive for this call.
    let task = unsafe { (*data).task };
    report("waker.clone", task);
    // SAFETY: as above; the new waker owns the count this adds.
    unsafe { Arc::increment_strong_count(data) };
    RawWaker::new(data.cast(), &OWNED)
}

unsafe fn owned_wake(data: *const ()) {
    // SAFETY: the vtable is `OWNED`'s; a wake by value consumes the waker's count, which
    // this `Arc` now owns.
    let owned = unsafe { Arc::from_raw(data.cast::<OwnedWaker>()) };
    report("waker.wake", owned.task);
    match Arc::try_unwrap(owned) {
        Ok(owned) => owned.inner.wake(),
        Err(owned) => owned.inner.wake_by_ref(),
    }
}

unsafe fn owned_wake_by_ref(data: *const ()) {
    // SAFETY: the vtable is `OWNED`'s; the waker holds a count for this call.
    let owned = unsafe { &*data.cast::<OwnedWaker>() };
    report("waker.wake_by_ref", owned.task);
    owned.inner.wake_by_ref();
}

unsafe fn owned_drop(data: *const ()) {
    // SAFETY: the vtable is `OWNED`'s; dropping the waker gives back its count.
    let owned = unsafe { Arc::from_raw(data.cast::<OwnedWaker>()) };
    report("waker.drop", owned.task);
}
