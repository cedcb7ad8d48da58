//! rayon's iterator API on filch (`filch::par`): rayon's own iterator tests, ported, and
//! filch's checks of every adaptor, consumer, source and collect target, one module per
//! scenario. Every test holds whether the pieces run on one thread or several.

#[path = "../common/mod.rs"]
mod common;

mod smoke;
