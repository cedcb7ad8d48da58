//! The awaited data-parallel loops: [`par_range`], [`par_map`] and [`par_reduce`] over an
//! index range, and [`par_map_vec`] and [`par_for_each_mut`] over an owned `Vec`; one file
//! each, holding its entry points and its iterator chain.
//!
//! A loop is a [`par::run`](crate::par::run) of a parallel-iterator chain: its future is a
//! [`Run`] (the five future types are aliases of it), so the awaiting task waits without
//! blocking its worker, while one worker runs the call and the bridge of
//! `par/iter/plumbing/` splits it over the others (rayon's loops block the calling thread;
//! tokio and smol have none). The chain is the one a rayon user writes (`par_range` is
//! `range.into_par_iter().for_each(body)`), with one adaptor, [`watched`](watch::watched),
//! that keeps the loops' promises item by item (`watched.rs`: no item starts after a stop, and
//! the worker looks up within a tick plus a few items however their cost changes);
//! `par_map_vec` writes its results over its items when their layouts match
//! (`in_place.rs`).
//!
//! Each loop is declared once, with [`par_loop!`]: the declaration makes the free function
//! (on the current executor of the thread that first polls the future, else the global one)
//! and the methods of [`Handle`](crate::Handle) and [`Executor`](crate::Executor) (on
//! theirs). A loop over an empty input completes at once, at its first poll, on no executor.
//!
//! **Invariant:** every index (item) is processed exactly once, unless the loop is stopped
//! (a panic, the future dropped, the executor shut down), after which no index starts
//! beyond the rest of a block of [`BLOCK`](watch::BLOCK) items; a stopped loop drops every
//! item and result it owns exactly once (`in_place.rs`, and the collect consumer and vector
//! drain of `par/`).

use crate::par::Run;

/// Declares one loop: its docs, signature and bounds, the function `$build` that makes its
/// future for a `par::run::On`, and the body of the doc example of its methods (where `on`
/// is a `Handle` or an `&Executor`). Makes the free function (on `On::Current`) and the
/// methods of `Handle` and `Executor` (on `On::Fixed`).
macro_rules! par_loop {
    (
        $(#[$doc:meta])*
        fn $name:ident<$($generic:ident),*>($($arg:ident: $arg_ty:ty),*) -> $out:ty
        where [$($bounds:tt)*]
        builds $build:ident;
        on an executor: $example:literal;
    ) => {
        $(#[$doc])*
        #[track_caller]
        pub fn $name<$($generic),*>($($arg: $arg_ty),*) -> $out
        where
            $($bounds)*
        {
            $build($crate::par::run::On::Current, $($arg),*)
        }

        impl $crate::Handle {
            #[doc = concat!("[`", stringify!($name), "`](crate::", stringify!($name),
                ") on this executor.\n\n```\n",
                "let ex = filch::Executor::builder().worker_threads(2).build().unwrap();\n",
                "let on = ex.handle();\n", $example, "\n```")]
            #[track_caller]
            pub fn $name<$($generic),*>(&self, $($arg: $arg_ty),*) -> $out
            where
                $($bounds)*
            {
                let state = ::std::sync::Arc::clone(self.state());
                $build($crate::par::run::On::Fixed(state), $($arg),*)
            }
        }

        impl $crate::Executor {
            #[doc = concat!("[`", stringify!($name), "`](crate::", stringify!($name),
                ") on this executor.\n\n```\n",
                "let ex = filch::Executor::builder().worker_threads(2).build().unwrap();\n",
                "let on = &ex;\n", $example, "\n```")]
            #[track_caller]
            pub fn $name<$($generic),*>(&self, $($arg: $arg_ty),*) -> $out
            where
                $($bounds)*
            {
                self.handle().$name($($arg),*)
            }
        }
    };
}

mod in_place;
mod par_for_each_mut;
mod par_map;
mod par_map_vec;
mod par_range;
mod par_reduce;
mod watched;

pub use par_for_each_mut::{par_for_each_mut, ParForEachMut};
pub use par_map::{par_map, ParMap};
pub use par_map_vec::{par_map_vec, ParMapVec};
pub use par_range::{par_range, ParRange};
pub use par_reduce::{par_reduce, ParReduce};

/// Compile-time checks: every loop future can be spawned (`Send`, for any `Send` output)
/// and polled without pinning (`Unpin`).
#[allow(dead_code)]
fn _assert_send_unpin<T: Send + 'static>() {
    fn send_unpin<F: Send + Unpin>() {}
    send_unpin::<ParRange>();
    send_unpin::<ParMap<T>>();
    send_unpin::<ParReduce<T>>();
    send_unpin::<ParMapVec<T>>();
    send_unpin::<ParForEachMut<T>>();
    send_unpin::<Run<T>>();
}
