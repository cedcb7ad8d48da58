//! The time driver (`driver.rs`: the timers' lock, the deadline a wait ends at, firing),
//! the timing wheel it keeps its timers in (`wheel.rs`), the clock of an executor's timers
//! (`clock.rs`: std's, or with `test-util` one that pauses), and the process-wide epoch
//! that fork-join work and running loop bodies read instead of the clock, with the ticker
//! thread that moves it (`epoch.rs`). It knows no IO: the driver stack (`runtime/driver/`)
//! turns it.

pub(crate) mod clock;
pub(crate) mod driver;
pub(crate) mod epoch;
#[cfg(all(test, loom))]
mod loom_model;
pub(crate) mod wheel;
