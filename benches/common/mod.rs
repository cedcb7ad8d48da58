//! Code shared by the benchmark binaries.
#![allow(dead_code)]

pub mod report;
pub mod rounds;
pub mod runtimes;
