//! The slice and string iterators implement `Debug`, as rayon's do.

use std::fmt::Debug;

use filch::par::prelude::*;

fn check<I>(iter: I)
where
    I: ParallelIterator + Debug,
{
    println!("{iter:?}");
}

// origin: rayon tests/debug.rs (debug_str)
#[test]
fn debug_str() {
    let s = "a b c d\ne f g";
    check(s.par_chars());
    check(s.par_char_indices());
    check(s.par_bytes());
    check(s.par_encode_utf16());
    check(s.par_lines());
    check(s.par_split('\n'));
    check(s.par_split_inclusive('\n'));
    check(s.par_split_terminator('\n'));
    check(s.par_split_whitespace());
    check(s.par_split_ascii_whitespace());
    check(s.par_matches('a'));
    check(s.par_match_indices('a'));
}

// origin: rayon tests/debug.rs (debug_vec, the slice iterators)
#[test]
fn debug_vec() {
    let mut v: Vec<_> = (0..10).collect();
    check(v.par_chunk_by(i32::eq));
    check(v.par_chunk_by_mut(i32::eq));
    check(v.par_chunks(42));
    check(v.par_chunks_exact(42));
    check(v.par_chunks_mut(42));
    check(v.par_chunks_exact_mut(42));
    check(v.par_rchunks(42));
    check(v.par_rchunks_exact(42));
    check(v.par_rchunks_mut(42));
    check(v.par_rchunks_exact_mut(42));
    check(v.par_windows(42));
    check(v.par_array_windows::<42>());
    check(v.par_split(|x| x % 3 == 0));
    check(v.par_split_inclusive(|x| x % 3 == 0));
    check(v.par_split_mut(|x| x % 3 == 0));
    check(v.par_split_inclusive_mut(|x| x % 3 == 0));
}

/// What the `Debug` output shows: the slice, or the string and the pattern.
#[test]
fn debug_shows_the_data() {
    let v = [1, 2, 3];
    assert_eq!(
        format!("{:?}", v.par_split(|x| *x == 2)),
        "Split { slice: [1, 2, 3] }"
    );
    let s = format!("{:?}", "ab".par_split('b'));
    assert!(s.contains("\"ab\"") && s.contains("'b'"), "{s}");
}
