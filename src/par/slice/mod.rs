//! Parallel slices (rayon's `rayon::slice`).

mod plain;
pub use plain::{Iter, IterMut};
