//! Parallel iterators (rayon's `rayon::iter`).
