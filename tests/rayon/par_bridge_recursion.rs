//! `par_bridge` over iterators whose `next` itself joins: the bridge's lock is never
//! taken twice by one thread.
// origin: rayon tests/par_bridge_recursion.rs

use filch::par::prelude::*;
use std::iter::once_with;

const N: usize = 100_000;

#[test]
#[cfg_attr(any(target_os = "emscripten", target_family = "wasm"), ignore)]
fn par_bridge_recursion() {
    // rayon runs this on every thread of a pool (`broadcast`); once on an executor of
    // several workers covers the same recursion. A recursive lock would hang: the watchdog.
    crate::common::watchdog(120, "par_bridge recursion", || {
        let seq: Vec<_> = (0..N).map(|i| (i, i.to_string())).collect();
        let ex = crate::common::executor(4);
        ex.block_on(async {
            let mut par: Vec<_> = (0..N)
                .into_par_iter()
                .flat_map(|i| {
                    once_with(move || {
                        // Using rayon within the serial iterator creates an opportunity for
                        // work-stealing to make par_bridge's mutex accidentally recursive.
                        filch::par::join(move || i, move || i.to_string())
                    })
                    .par_bridge()
                })
                .collect();
            par.sort_unstable();
            assert_eq!(seq, par);
        });
    });
}
