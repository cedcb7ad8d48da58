//! Parallel iterators (rayon's `rayon::iter`): the traits, every adaptor's type, and the
//! sources that are not a collection's (`empty`, `once`, `repeat`, `split`, `walk_tree`,
//! `par_bridge`).
//!
//! A parallel iterator is built like an [`Iterator`] chain and run by a consumer at its end;
//! the items are processed in pieces on filch's workers (the same workers as the program's
//! async tasks), and the call returns when every piece has:
//!
//! ```
//! use filch::par::prelude::*;
//!
//! fn sum_of_squares(input: &[i32]) -> i32 {
//!     input.par_iter().map(|i| i * i).sum()
//! }
//! assert_eq!(sum_of_squares(&[1, 2, 3]), 14);
//!
//! let mut v = vec![1, 2, 3];
//! v.par_iter_mut().for_each(|x| *x += 1);
//! assert_eq!(v, [2, 3, 4]);
//! ```
//!
//! The traits: [`ParallelIterator`] (every parallel iterator), [`IndexedParallelIterator`]
//! (those with a known length that split at any index), [`IntoParallelIterator`] and its
//! by-reference forms (`par_iter`, `par_iter_mut`), [`FromParallelIterator`] (`collect`),
//! [`ParallelExtend`] (`par_extend`), [`ParallelBridge`] (`par_bridge`) and the draining
//! traits. [`plumbing`] holds what a library needs to write its own sources.
//!
//! How the code is laid out: one module per adaptor or consumer (or a few related ones);
//! the item-by-item adaptors share `mapped.rs`; `plumbing/` holds the traits under the
//! adaptors and the one bridge that splits every call into pieces.
//!
//! The methods that short-circuit (`try_for_each`, `try_reduce`, `try_fold` …) accept the
//! same `Option`, `Result`, `ControlFlow` and `Poll` results as rayon's, through a `Try`
//! trait that can be named in bounds only.
//!
//! A panic in any closure stops the whole call at once: no piece starts a new chunk of
//! items, and the first panic is resumed in the caller, with its payload, once the pieces
//! already running have returned (with or without [`panic_fuse`](ParallelIterator::panic_fuse)).
//!
//! The items must be `Send`, and an indexed adaptor takes only indexed iterators, as in
//! rayon:
//!
//! ```compile_fail,E0599
//! use filch::par::prelude::*;
//! use std::rc::Rc;
//!
//! let x = vec![Rc::new(22), Rc::new(23)];
//! let _: Vec<i32> = x.into_par_iter().map(|rc| *rc).collect(); // `Rc` is not `Send`
//! ```
//!
//! ```compile_fail,E0277
//! use filch::par::prelude::*;
//!
//! let a: Vec<usize> = (0..1024).collect();
//! let b: Vec<usize> = (0..1024).collect();
//! // `zip` needs an exact length, which `filter` does not have.
//! let _ = a.par_iter().zip(b.par_iter().filter(|&&x| x > 3));
//! ```
//!
//! ```compile_fail,E0277
//! use filch::par::prelude::*;
//! use std::cell::Cell;
//!
//! let c = Cell::new(42);
//! // A closure that captures `&Cell` is not `Sync`.
//! (0..10).into_par_iter().for_each(|i| c.set(i));
//! ```
// origin: rayon src/compile_fail/{rc_par_iter,cannot_zip_filtered_data,cell_par_iter}.rs

pub mod plumbing;

mod delegate;
mod indexed;
mod into;
mod mapped;
mod parallel_iterator;
mod try_trait;

mod blocks;
mod chain;
mod chunks;
pub(crate) mod collect;
mod either;
mod empty;
mod enumerate;
mod extend;
mod filter;
mod find;
mod find_first_last;
mod flat_map;
mod flat_map_iter;
mod fold;
mod for_each;
mod from_par_iter;
mod inspect;
mod interleave;
mod intersperse;
mod len;
mod map;
mod multizip;
mod noop;
mod once;
mod panic_fuse;
mod par_bridge;
mod positions;
mod reduce;
mod repeat;
mod rev;
mod skip;
mod split;
mod step_by;
mod sum;
mod take_any;
mod try_reduce;
mod unzip;
mod walk_tree;
mod while_some;
mod zip;

pub use ::either::Either;

/// How many source items a folder that drops or multiplies items (`filter`, `filter_map`,
/// `flat_map_iter`, the gates of `take_any` …) feeds its base between two checks of the
/// base's `full()`: a base that a short-circuit filled elsewhere (`find_any` …) then stops
/// the fold soon even when no item gets through.
const FULL_CHECK_BATCH: usize = 1024;

pub(crate) use delegate::{delegate_indexed, delegate_unindexed};

pub use self::blocks::{ExponentialBlocks, UniformBlocks};
pub use self::chain::Chain;
pub use self::chunks::{Chunks, FoldChunks, FoldChunksWith};
pub use self::empty::{empty, Empty};
pub use self::enumerate::Enumerate;
pub use self::filter::{Filter, FilterMap};
pub use self::flat_map::{FlatMap, Flatten};
pub use self::flat_map_iter::{FlatMapIter, FlattenIter};
pub use self::fold::{Fold, FoldWith, TryFold, TryFoldWith};
pub use self::indexed::IndexedParallelIterator;
pub use self::inspect::{Cloned, Copied, Inspect, Update};
pub use self::interleave::{Interleave, InterleaveShortest};
pub use self::intersperse::Intersperse;
pub use self::into::{FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator};
pub use self::into::{
    IntoParallelRefMutIterator, ParallelDrainFull, ParallelDrainRange, ParallelExtend,
};
pub use self::len::{MaxLen, MinLen};
pub use self::map::{Map, MapInit, MapWith};
pub use self::multizip::MultiZip;
pub use self::once::{once, Once};
pub use self::panic_fuse::PanicFuse;
pub use self::par_bridge::{IterBridge, ParallelBridge};
pub use self::parallel_iterator::ParallelIterator;
pub use self::positions::Positions;
#[allow(deprecated)]
pub use self::repeat::repeatn;
pub use self::repeat::{repeat, repeat_n, Repeat, RepeatN};
pub use self::rev::Rev;
pub use self::skip::{Skip, Take};
pub use self::split::{split, Split};
pub use self::step_by::StepBy;
pub use self::take_any::{SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile};
pub use self::walk_tree::{
    walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree, WalkTreePostfix, WalkTreePrefix,
};
pub use self::while_some::WhileSome;
pub use self::zip::{Zip, ZipEq};
