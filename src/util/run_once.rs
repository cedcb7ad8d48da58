//! A closure called once through a `dyn FnMut` ([`RunOnce`]), so that the code that runs
//! it is compiled once rather than once for every closure type that passes through.
//!
//! Generic code is compiled anew for each type it is used with: a fork-join entry point
//! that took its caller's closure as a type parameter all the way down (into the worker's
//! occupancy, the injected call, the stand-in's hand-off) had all of that compiled again
//! for every `join` and every parallel iterator of a program. The entry points keep the
//! caller's closure generic only on their hot path and hand it to the slow paths as a
//! `&mut dyn FnMut` made by [`RunOnce::run`]: one indirect call, on paths that cost a
//! thread hand-off or more.
//!
//! **Invariant:** the closure is called at most once; [`RunOnce::result`] panics if it was
//! not called (a slow path that returned without running it).

/// A closure `F` to call once, and its result once called.
pub(crate) struct RunOnce<F, R> {
    f: Option<F>,
    out: Option<R>,
}

impl<F, R> RunOnce<F, R> {
    pub(crate) fn new(f: F) -> RunOnce<F, R> {
        RunOnce {
            f: Some(f),
            out: None,
        }
    }

    /// Calls the closure through `call` (which passes it its arguments) and keeps the
    /// result. Meant to be wrapped in a closure made into a `dyn FnMut`:
    /// `&mut |x| once.run(|f| f(x))`.
    ///
    /// # Panics
    ///
    /// If the closure was called before.
    #[inline]
    pub(crate) fn run(&mut self, call: impl FnOnce(F) -> R) {
        let f = self.f.take().expect("filch: a closure was called twice");
        self.out = Some(call(f));
    }

    /// The closure's result.
    ///
    /// # Panics
    ///
    /// If the closure has not been called.
    #[inline]
    pub(crate) fn result(self) -> R {
        self.out.expect("filch: a closure was never called")
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::RunOnce;

    fn through_dyn(f: &mut dyn FnMut(u32)) {
        f(20);
    }

    #[test]
    fn the_closure_runs_once_through_a_dyn_fn_mut_and_its_result_comes_back() {
        let s = String::from("x");
        let mut once = RunOnce::new(move |n: u32| format!("{s}{}", n + 1));
        through_dyn(&mut |n| once.run(|f| f(n)));
        assert_eq!(once.result(), "x21");
    }

    #[test]
    #[should_panic(expected = "never called")]
    fn a_closure_that_never_ran_has_no_result() {
        let once: RunOnce<fn() -> u8, u8> = RunOnce::new(|| 1);
        once.result();
    }

    #[test]
    #[should_panic(expected = "called twice")]
    fn a_second_call_panics() {
        let mut once = RunOnce::new(|| 1);
        once.run(|f| f());
        once.run(|f| f());
    }
}
