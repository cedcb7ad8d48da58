//! White-box tests of `executor/global.rs`.

use super::parse_workers;

#[test]
fn parses_worker_counts() {
    assert_eq!(parse_workers("4"), Some(4));
    assert_eq!(parse_workers(" 2 "), Some(2));
    assert_eq!(parse_workers("0"), None);
    assert_eq!(parse_workers("-1"), None);
    assert_eq!(parse_workers("two"), None);
    assert_eq!(parse_workers(""), None);
}
