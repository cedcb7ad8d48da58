//! [`Job`]: a closure spawned into a scope, held by its piece's node: inside the node when it
//! is small (a few words, as most scope closures are: a few references and numbers), else
//! boxed. A small closure so costs its node's allocation only, not a second one.
//!
//! Invariants:
//! - an inline closure fits in [`INLINE_WORDS`] words and needs no more than a word's
//!   alignment; its bytes are a valid value of its type from [`Job::new`] until it is run
//!   or dropped, exactly once, through the two functions stored beside it, which know its
//!   type;
//! - the closure's lifetime is erased: [`Job::new`]'s caller guarantees that whatever it
//!   borrows outlives the job (the scope waits for every closure before its frame is left,
//!   `scope_core.rs`).

use std::mem::{ManuallyDrop, MaybeUninit};

/// A boxed closure whose lifetime is erased: a closure spawned into a scope (the scope waits
/// for it before it returns or unwinds), or a whole call's body (`inject.rs`).
pub(crate) type Body = Box<dyn FnOnce() + Send + 'static>;

/// The words of a closure that the node holds inline.
pub(crate) const INLINE_WORDS: usize = 4;

/// An inline closure's storage: word-aligned bytes.
type Words = [MaybeUninit<usize>; INLINE_WORDS];

/// A closure for one run, inline or boxed (module docs).
pub(crate) struct Job(Stored);

enum Stored {
    Inline {
        words: Words,
        /// Moves the closure out of the words and calls it.
        call: unsafe fn(*mut Words),
        /// Drops the closure in the words.
        drop: unsafe fn(*mut Words),
    },
    Boxed(Body),
}

impl Job {
    /// The job of `f`, inline if it fits.
    ///
    /// # Safety
    ///
    /// Whatever `f` borrows outlives every use of the job: its lifetime is erased.
    #[inline]
    pub(crate) unsafe fn new<F: FnOnce() + Send>(f: F) -> Job {
        if size_of::<F>() <= size_of::<Words>() && align_of::<F>() <= align_of::<Words>() {
            let mut words: Words = [MaybeUninit::uninit(); INLINE_WORDS];
            // SAFETY: the words are big enough and aligned enough for an `F` (checked
            // above), and nothing else is in them.
            unsafe { words.as_mut_ptr().cast::<F>().write(f) };
            Job(Stored::Inline {
                words,
                call: call_inline::<F>,
                drop: drop_inline::<F>,
            })
        } else {
            let body: Box<dyn FnOnce() + Send + '_> = Box::new(f);
            // SAFETY: only the lifetime changes; the caller guarantees that what `f` borrows
            // outlives the job.
            Job(Stored::Boxed(unsafe {
                std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Body>(body)
            }))
        }
    }

    /// The job of a closure already boxed.
    pub(crate) fn boxed(body: Body) -> Job {
        Job(Stored::Boxed(body))
    }

    /// Runs the closure, which the job gives up: a panic of the closure unwinds from here,
    /// after the closure's captures were dropped.
    #[inline]
    pub(crate) fn run(self) {
        let mut this = ManuallyDrop::new(self);
        match &mut this.0 {
            Stored::Inline { words, call, .. } => {
                // SAFETY: the words hold the closure `call` was made for (module invariant),
                // and `this` is never dropped, so it is moved out exactly once.
                unsafe { call(words) }
            }
            Stored::Boxed(body) => {
                // SAFETY: `this` is never dropped, so the box is read out exactly once.
                let body = unsafe { std::ptr::read(body) };
                body();
            }
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if let Stored::Inline { words, drop, .. } = &mut self.0 {
            // SAFETY: a job being dropped was not run (`run` forgets it), so the words still
            // hold the closure `drop` was made for.
            unsafe { drop(words) }
        }
    }
}

/// Moves the `F` out of `words` and calls it.
///
/// # Safety
///
/// `words` holds a valid `F`, which the caller gives up.
unsafe fn call_inline<F: FnOnce()>(words: *mut Words) {
    // SAFETY: the caller's contract: a valid `F`, read out once.
    let f = unsafe { words.cast::<F>().read() };
    f();
}

/// Drops the `F` in `words`.
///
/// # Safety
///
/// `words` holds a valid `F`, which the caller gives up.
unsafe fn drop_inline<F>(words: *mut Words) {
    // SAFETY: the caller's contract: a valid `F`, dropped once.
    unsafe { words.cast::<F>().drop_in_place() };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Counts its drops.
    struct Counted(Arc<AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_small_closure_is_inline_and_a_big_one_boxed_and_each_runs_once() {
        let ran = Arc::new(AtomicUsize::new(0));
        let small = {
            let ran = Arc::clone(&ran);
            // SAFETY: it borrows nothing.
            unsafe {
                Job::new(move || {
                    ran.fetch_add(1, Ordering::Relaxed);
                })
            }
        };
        assert!(matches!(small.0, Stored::Inline { .. }));
        let big = {
            let ran = Arc::clone(&ran);
            let pad = [7u64; 8];
            // SAFETY: it borrows nothing.
            unsafe {
                Job::new(move || {
                    assert_eq!(pad.iter().sum::<u64>(), 56);
                    ran.fetch_add(1, Ordering::Relaxed);
                })
            }
        };
        assert!(matches!(big.0, Stored::Boxed(_)));
        small.run();
        big.run();
        assert_eq!(ran.load(Ordering::Relaxed), 2);
        assert_eq!(
            Arc::strong_count(&ran),
            1,
            "both closures dropped their captures"
        );
    }

    #[test]
    fn captures_are_dropped_once_whether_run_dropped_or_panicking() {
        for big in [false, true] {
            let drops = Arc::new(AtomicUsize::new(0));
            let make = |panics: bool| {
                let c = Counted(Arc::clone(&drops));
                let pad = [0u64; 8];
                // SAFETY: it borrows nothing.
                unsafe {
                    if big {
                        Job::new(move || {
                            let _c = &c;
                            assert_eq!(pad[0], 0);
                            assert!(!panics, "the job panics");
                        })
                    } else {
                        Job::new(move || {
                            let _c = &c;
                            assert!(!panics, "the job panics");
                        })
                    }
                }
            };
            make(false).run();
            drop(make(false));
            let job = make(true);
            assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.run())).is_err());
            assert_eq!(drops.load(Ordering::Relaxed), 3, "big: {big}");
        }
    }
}
