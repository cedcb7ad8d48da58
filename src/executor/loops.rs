//! The five data-parallel loops' public entry points, each declared once: [`par_loops!`]
//! turns a declaration into the free function (on the current executor, else the global
//! one, chosen when the loop is first polled), the [`Handle`] method and the [`Executor`]
//! method (on that executor). `par/` builds the loops, told where to run by an [`On`].

use std::ops::Range;
use std::sync::Arc;

use crate::executor::global::current_or_global_state;
use crate::executor::{Executor, Handle};
use crate::par::loops::{self as par, On, ParForEachMut, ParMap, ParMapVec, ParRange, ParReduce};

/// Declares each loop (its docs, signature, bounds, `par/` constructor and an example of the
/// method on `on`, a `Handle` or an `&Executor`) as a free function and as a method of
/// [`Handle`] and of [`Executor`].
macro_rules! par_loops {
    ($(
        $(#[$doc:meta])*
        fn $name:ident<$($generic:ident),*>($($arg:ident: $arg_ty:ty),*) -> $out:ty
        where [$($bounds:tt)*]
        builds par::$build:ident;
        on an executor: $example:literal;
    )*) => {
        $(
            $(#[$doc])*
            pub fn $name<$($generic),*>($($arg: $arg_ty),*) -> $out
            where
                $($bounds)*
            {
                par::$build(On::Current(current_or_global_state), $($arg),*)
            }
        )*

        impl Handle {
            $(
                #[doc = concat!("[`", stringify!($name), "`](crate::", stringify!($name),
                    ") on this executor.\n\n```\n",
                    "let ex = filch::Executor::builder().worker_threads(2).build().unwrap();\n",
                    "let on = ex.handle();\n", $example, "\n```")]
                pub fn $name<$($generic),*>(&self, $($arg: $arg_ty),*) -> $out
                where
                    $($bounds)*
                {
                    par::$build(On::Fixed(Arc::clone(self.state())), $($arg),*)
                }
            )*
        }

        impl Executor {
            $(
                #[doc = concat!("[`", stringify!($name), "`](crate::", stringify!($name),
                    ") on this executor.\n\n```\n",
                    "let ex = filch::Executor::builder().worker_threads(2).build().unwrap();\n",
                    "let on = &ex;\n", $example, "\n```")]
                pub fn $name<$($generic),*>(&self, $($arg: $arg_ty),*) -> $out
                where
                    $($bounds)*
                {
                    self.handle().$name($($arg),*)
                }
            )*
        }
    };
}

par_loops! {
    /// Runs `body` on every index of `range`, in parallel on the current executor (else the
    /// global one), chosen when the future is first polled. Awaiting it never blocks a worker.
    ///
    /// An empty or reversed range completes at once without calling `body`. A panic in `body`
    /// stops the loop (indices not yet started are skipped) and is resumed in the awaiting
    /// task, with its payload, once the bodies already running have returned; polled again
    /// after that, the future panics again. Dropping the future stops the loop. The loop shares
    /// the workers with other tasks: each worker's part returns to its worker every few
    /// milliseconds of body time (and after one item, however long that item takes), even when
    /// the cost of the items changes in the middle of the loop.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let sum = Arc::new(AtomicUsize::new(0));
    /// let s = Arc::clone(&sum);
    /// filch::block_on(filch::par_range(0..1000, move |i| {
    ///     s.fetch_add(i, Ordering::Relaxed);
    /// }));
    /// assert_eq!(sum.load(Ordering::Relaxed), 499_500);
    /// ```
    ///
    /// The body must be `Send + Sync`, since it runs on several threads at once:
    ///
    /// ```compile_fail
    /// use std::rc::Rc;
    /// let shared = Rc::new(5);
    /// let fut = filch::par_range(0..10, move |i| {
    ///     let _ = (&shared, i);
    /// });
    /// ```
    fn par_range<F>(range: Range<usize>, body: F) -> ParRange
    where [
        F: Fn(usize) + Send + Sync + 'static,
    ]
    builds par::range_loop;
    on an executor: "ex.block_on(on.par_range(0..100, |i| assert!(i < 100)));";

    /// Computes `f(i)` for every index of `range` in parallel and gives the results in index
    /// order. Executor choice, empty ranges, panics and dropping work as for [`par_range`].
    ///
    /// ```
    /// let squares = filch::block_on(filch::par_map(0..5, |i| i * i));
    /// assert_eq!(squares, vec![0, 1, 4, 9, 16]);
    /// ```
    fn par_map<T, F>(range: Range<usize>, f: F) -> ParMap<T>
    where [
        T: Send + 'static,
        F: Fn(usize) -> T + Send + Sync + 'static,
    ]
    builds par::map_loop;
    on an executor: "assert_eq!(ex.block_on(on.par_map(0..3, |i| i * 2)), vec![0, 2, 4]);";

    /// Folds every index of `range` in parallel: each run of consecutive indices a worker takes
    /// is folded from `identity()` with `fold`, and the partial results are combined with
    /// `reduce` in index order, as rayon does: `reduce` must be associative but need not be
    /// commutative (concatenating gives the sequential answer), and `identity()` must be neutral
    /// for it. An empty range gives `identity()`. Executor choice, panics and dropping work as
    /// for [`par_range`].
    ///
    /// ```
    /// let sum = filch::block_on(filch::par_reduce(
    ///     1..101,
    ///     || 0u64,
    ///     |acc, i| acc + i as u64,
    ///     |a, b| a + b,
    /// ));
    /// assert_eq!(sum, 5050);
    ///
    /// // Not commutative: the partials are combined in index order.
    /// let digits = filch::block_on(filch::par_reduce(
    ///     0..10,
    ///     String::new,
    ///     |mut s, i| {
    ///         s.push_str(&i.to_string());
    ///         s
    ///     },
    ///     |a, b| a + &b,
    /// ));
    /// assert_eq!(digits, "0123456789");
    /// ```
    fn par_reduce<T, I, F, R>(range: Range<usize>, identity: I, fold: F, reduce: R) -> ParReduce<T>
    where [
        T: Send + 'static,
        I: Fn() -> T + Send + Sync + 'static,
        F: Fn(T, usize) -> T + Send + Sync + 'static,
        R: Fn(T, T) -> T + Send + Sync + 'static,
    ]
    builds par::reduce_loop;
    on an executor: "let max = ex.block_on(on.par_reduce(0..10, || 0, |m, i| m.max(i), |a, b| a.max(b)));\nassert_eq!(max, 9);";

    /// Moves each item of `items` into `f`, in parallel, and gives the results in the order of
    /// the items. Executor choice, laziness, panics and dropping work as for [`par_range`], over
    /// the indices `0..items.len()`.
    ///
    /// Each item is moved into `f` exactly once. If the loop stops early (a panic in `f`, or
    /// the future dropped), the items not yet moved into `f` and the results already made are
    /// each dropped exactly once (the item a panicking `f` held is dropped by that panic).
    /// An empty `items` completes at once with an empty `Vec`. When `U` has the size and
    /// alignment of `T`, the results are written over the items and the output reuses the
    /// allocation of `items` (as std's `into_iter().map().collect()` does).
    ///
    /// ```
    /// let lines = vec!["3".to_string(), "x".to_string(), "42".to_string()];
    /// let parsed = filch::block_on(filch::par_map_vec(lines, |s| s.parse::<u32>().ok()));
    /// assert_eq!(parsed, vec![Some(3), None, Some(42)]);
    /// ```
    ///
    /// Items need not be `Sync` or `Clone`, only `Send`; `f` runs on several threads at once,
    /// so it must be `Sync`:
    ///
    /// ```compile_fail
    /// use std::cell::Cell;
    /// let counter = Cell::new(0);
    /// let fut = filch::par_map_vec(vec![1, 2, 3], move |x: i32| {
    ///     counter.set(counter.get() + 1);
    ///     x
    /// });
    /// ```
    fn par_map_vec<T, U, F>(items: Vec<T>, f: F) -> ParMapVec<U>
    where [
        T: Send + 'static,
        U: Send + 'static,
        F: Fn(T) -> U + Send + Sync + 'static,
    ]
    builds par::map_vec_loop;
    on an executor: "let lens = ex.block_on(on.par_map_vec(vec![\"ab\".to_string(), \"c\".to_string()], |s| s.len()));\nassert_eq!(lens, vec![2, 1]);";

    /// Calls `f(k, &mut items[k])` for every element of `items`, in parallel, and gives the
    /// same `Vec` back (the same allocation), each element changed in place. Executor choice,
    /// laziness, panics and dropping work as for [`par_range`], over the indices
    /// `0..items.len()`.
    ///
    /// If the loop stops early (a panic in `f`, or the future dropped), the elements are
    /// dropped with the `Vec` (each exactly once), as they stand. An empty `items` completes at
    /// once and gives the same empty `Vec` back.
    ///
    /// ```
    /// let mut scores = vec![10u32; 1000];
    /// scores = filch::block_on(filch::par_for_each_mut(scores, |k, s| *s += k as u32));
    /// assert_eq!(scores[0], 10);
    /// assert_eq!(scores[999], 1009);
    /// ```
    fn par_for_each_mut<T, F>(items: Vec<T>, f: F) -> ParForEachMut<T>
    where [
        T: Send + 'static,
        F: Fn(usize, &mut T) + Send + Sync + 'static,
    ]
    builds par::for_each_mut_loop;
    on an executor: "let v = ex.block_on(on.par_for_each_mut(vec![1, 2, 3], |_, x| *x = -*x));\nassert_eq!(v, vec![-1, -2, -3]);";
}
