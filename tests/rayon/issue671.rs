//! A long chain of `map`s collects into a `Result` (rayon#671: the type length limit).
// origin: rayon tests/issue671.rs

use filch::par::prelude::*;

#[test]
fn type_length_limit() {
    let _ = Vec::<Result<(), ()>>::new()
        .into_par_iter()
        .map(|x| x)
        .map(|x| x)
        .map(|x| x)
        .map(|x| x)
        .map(|x| x)
        .map(|x| x)
        .collect::<Result<(), ()>>();
}
