//! filch's `serde` feature: the task dump (`Executor::dump`) serializes, each task's id,
//! name, state, spawn location and busy time under the names of its fields (here through
//! serde_json, which filch's own tests do not build).

use std::panic::Location;

use filch::{Executor, JoinHandle, TaskState};

use crate::common::{executor, wait_until, watchdog};

/// A pending task named `name`, and where the dump should say it was spawned: the caller of
/// this function, as `spawn_on` (which tracks its caller) sees it through this one.
#[track_caller]
fn spawn_named(ex: &Executor, name: &str) -> (JoinHandle<()>, &'static Location<'static>) {
    let handle = filch::task::Builder::new()
        .name(name)
        .spawn_on(std::future::pending::<()>(), &ex.handle())
        .unwrap();
    (handle, Location::caller())
}

#[test]
fn the_dump_serializes() {
    watchdog(60, "dump serde", || {
        let ex = executor(1);
        let (task, at) = spawn_named(&ex, "json");
        wait_until(20, "the task to wait", || {
            ex.dump()
                .tasks
                .iter()
                .any(|t| t.id == task.id() && t.state == TaskState::Idle)
        });
        let json = serde_json::to_value(ex.dump()).unwrap();
        let entry = &json["tasks"][0];
        assert_eq!(entry["id"], task.id().to_string().parse::<u64>().unwrap());
        assert_eq!(entry["name"], "json");
        assert_eq!(entry["state"], "Idle");
        assert_eq!(entry["spawned_at"], at.to_string());
        assert!(entry["busy"]["secs"].is_u64(), "{json}");
        task.abort();
    });
}
