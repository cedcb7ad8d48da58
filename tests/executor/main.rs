//! The executor as a whole, one module per scenario: building it (`Builder` errors, thread
//! hooks), its workers' scheduling (fairness, lost and exact wake-ups, tasks woken while
//! running, the cooperative budget, the scheduling order, a scatter-gather workload, idle
//! threads that sleep), `Stats`, shutdown, the public types' `Send`/`Sync`, the global
//! executor's `FILCH_WORKERS`, and the free `block_on` on a worker; and two checks of the
//! source tree: the layers (`layers.rs`) and the paths the docs name (`doc_paths.rs`).

#[path = "../common/mod.rs"]
mod common;

mod block_on_on_worker;
mod builder_errors;
mod coop_budget;
mod deque_starvation;
mod doc_paths;
mod fairness;
mod global_workers_env;
mod idle_threads_sleep;
mod layers;
mod lost_wakeup;
mod scatter_gather;
mod scheduling_order;
mod send_sync;
mod shutdown;
mod slow_poll;
mod stats;
mod thread_hooks;
mod woken_while_running;
