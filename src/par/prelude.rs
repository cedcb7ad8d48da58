//! Everything `use rayon::prelude::*` brings: the traits whose methods make and run
//! parallel iterators.
//!
//! ```
//! use filch::par::prelude::*;
//!
//! let v: Vec<u32> = (0..10u32).into_par_iter().map(|x| x * 2).collect();
//! assert_eq!(v.par_iter().sum::<u32>(), 90);
//! ```

pub use crate::par::iter::{FromParallelIterator, IndexedParallelIterator, IntoParallelIterator};
pub use crate::par::iter::{IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge};
pub use crate::par::iter::{
    ParallelDrainFull, ParallelDrainRange, ParallelExtend, ParallelIterator,
};
pub use crate::par::slice::{ParallelSlice, ParallelSliceMut};
pub use crate::par::str::ParallelString;
