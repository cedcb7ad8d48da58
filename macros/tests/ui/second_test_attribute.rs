//! `#[filch::test]` is the test attribute: a `#[test]` beside it would make a second test.

#[filch::test]
#[test]
async fn twice() {}

fn main() {}
