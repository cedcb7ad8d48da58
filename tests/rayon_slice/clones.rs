//! The slice and string iterators that rayon makes `Clone` are, and a clone yields the same
//! items.

use std::fmt::Debug;

use filch::par::prelude::*;

fn check<I>(iter: I)
where
    I: ParallelIterator<Item: Debug + PartialEq> + Clone,
{
    let a: Vec<_> = iter.clone().collect();
    let b: Vec<_> = iter.collect();
    assert_eq!(a, b);
}

// origin: rayon tests/clones.rs (clone_str)
#[test]
fn clone_str() {
    let s = include_str!("clones.rs");
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
    check(s.par_matches('e'));
    check(s.par_match_indices(['a', 'e']));
}

// origin: rayon tests/clones.rs (clone_vec, the slice iterators)
#[test]
fn clone_vec() {
    let v: Vec<_> = (0..1000).collect();
    check(v.par_chunk_by(i32::eq));
    check(v.par_chunks(42));
    check(v.par_chunks_exact(42));
    check(v.par_rchunks(42));
    check(v.par_rchunks_exact(42));
    check(v.par_windows(42));
    check(v.par_array_windows::<42>());
    check(v.par_split(|x| x % 3 == 0));
    check(v.par_split_inclusive(|x| x % 3 == 0));
}
