//! The function is called with no arguments, as `main` and a test are.

#[filch::main]
async fn main(args: Vec<String>) {
    drop(args);
}

#[filch::test]
async fn test_with_an_argument(n: u32) {
    assert_eq!(n, 1);
}
