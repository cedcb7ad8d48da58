//! White-box tests of `runtime/scheduler/state.rs`.

use super::State;
use crate::runtime::task::TaskMeta;

/// Every task carries its metadata: keep it at four words (the memory benchmark counts
/// bytes per pending task).
#[test]
fn task_metadata_stays_small() {
    assert!(
        std::mem::size_of::<TaskMeta<State>>() <= 32,
        "TaskMeta grew to {} bytes",
        std::mem::size_of::<TaskMeta<State>>()
    );
}
