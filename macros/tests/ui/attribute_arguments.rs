//! Arguments of the attributes that are not there or not right.

#[filch::main(flavor = "single_thread")]
async fn main() {}

#[filch::main(flavor = "current_thread", worker_threads = 2)]
async fn current_thread_with_workers() {}

#[filch::main(worker_threads = 0)]
async fn zero_workers() {}

#[filch::main(worker_threads = "two")]
async fn workers_not_an_integer() {}

#[filch::test(worker_threads)]
async fn workers_without_a_value() {}

#[filch::test(worker_threads = 2, worker_threads = 3)]
async fn workers_twice() {}

#[filch::test(start_paused = "yes")]
async fn paused_not_a_bool() {}

#[filch::test(start_paused = false, start_paused = true)]
async fn paused_twice() {}

#[filch::test(crate = filch)]
async fn crate_not_a_string() {}

#[filch::test(threads = 2)]
async fn unknown_argument() {}
