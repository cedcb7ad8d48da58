//! `__start_paused!`, what `#[filch::test(start_paused = true)]` expands to
//! (`macros/src/expand.rs`), in two places: `__start_paused!(check);` beside the test
//! function, and `__start_paused!(pause)` at the top of its body. With the `test-util`
//! feature the check is nothing and the pause pauses the executor's clock; without it the
//! check is a compile error that says to turn the feature on, at the argument, and the pause
//! is nothing (so that the error comes once). The check stands beside the function, not in
//! it, because a `#[test]` function is not compiled at all outside `cargo test`.

/// (What `#[filch::test(start_paused = true)]` expands to; not an API of its own.)
#[doc(hidden)]
#[macro_export]
#[cfg(feature = "test-util")]
macro_rules! __start_paused {
    (check) => {};
    (pause) => {
        $crate::time::pause()
    };
}

/// (What `#[filch::test(start_paused = true)]` expands to; not an API of its own.)
#[doc(hidden)]
#[macro_export]
#[cfg(not(feature = "test-util"))]
macro_rules! __start_paused {
    (check) => {
        ::core::compile_error!(
            "`start_paused = true` needs filch's paused clock, the `test-util` feature: add \
             `features = [\"test-util\"]` to filch in [dev-dependencies]"
        );
    };
    (pause) => {};
}
