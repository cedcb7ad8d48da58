//! The blocking pool behind `spawn_blocking` (stub: being written).
