//! Everything `use rayon::prelude::*` brings.
