//! Parallel string iterators (rayon's `rayon::str`).
