//! White-box tests of `runtime/scheduler/state.rs`.

use super::State;
use crate::runtime::task::TaskMeta;

/// Every task carries its metadata: keep it at six words (the memory benchmark counts
/// bytes per pending task): four of its own, the id and the spawn location.
#[test]
fn task_metadata_stays_small() {
    assert!(
        std::mem::size_of::<TaskMeta<State>>() <= 48,
        "TaskMeta grew to {} bytes",
        std::mem::size_of::<TaskMeta<State>>()
    );
}
