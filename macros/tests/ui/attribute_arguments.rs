//! Arguments of the attributes that are not there or not right.

#[filch::main(flavor = "multi_thread")]
async fn main() {}

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

#[filch::main(start_paused = true)]
async fn paused_main() {}
