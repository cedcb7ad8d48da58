//! Parallel slices (rayon's `rayon::slice`).
