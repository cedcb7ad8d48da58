//! The one pseudo-random generator of filch: xorshift64* (Vigna), for picking the first
//! victim of a steal (the workers' searches). Not for anything
//! that needs real randomness; a zero state (which xorshift never leaves) is replaced by a
//! fixed odd seed.

/// Advances `state` and returns the next value.
pub(crate) fn next(state: &mut u64) -> u64 {
    let mut x = if *state == 0 {
        0x9E37_79B9_7F4A_7C15
    } else {
        *state
    };
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}
