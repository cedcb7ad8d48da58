//! The attributes need an `async fn`.

#[filch::main]
fn main() {}

#[filch::test]
fn not_async_test() {}
