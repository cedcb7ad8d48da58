//! The watch's rule (`watch.rs`): more than half of the workers' time, over one window.

use std::time::Duration;

use super::piled_up;

#[test]
fn the_rule_is_more_than_half_of_the_workers_time() {
    let window = Duration::from_secs(1);
    assert!(!piled_up(Duration::ZERO, window, 1));
    assert!(!piled_up(Duration::from_millis(500), window, 1));
    assert!(piled_up(Duration::from_millis(501), window, 1));
    // Two workers had two seconds between them.
    assert!(!piled_up(Duration::from_millis(1000), window, 2));
    assert!(piled_up(Duration::from_millis(1001), window, 2));
    // A busy time reported in a batch can exceed the window; it still counts.
    assert!(piled_up(Duration::from_secs(3), window, 1));
}
