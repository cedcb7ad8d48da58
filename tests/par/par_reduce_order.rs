//! `par_reduce` combines partial results in index order, as rayon does: `reduce` need only
//! be associative (issue 9, defect 2: partials used to be combined per worker, so a
//! concatenation came out scrambled).

use crate::common::{executor, watchdog};

/// Concatenating one-element Vecs gives `0..n` back, for sizes where the work is split.
#[test]
fn concatenation_gives_the_sequential_answer() {
    watchdog(120, "concatenation_gives_the_sequential_answer", || {
        for workers in 1..=4 {
            let ex = executor(workers);
            for n in [2, 3, 5, 17, 100, 1000, 20_000] {
                for round in 0..20 {
                    let got = ex.block_on(ex.par_reduce(
                        0..n,
                        Vec::new,
                        |mut v, i| {
                            v.push(i);
                            v
                        },
                        |mut a, b| {
                            a.extend(b);
                            a
                        },
                    ));
                    assert!(
                        got.iter().copied().eq(0..n),
                        "{workers} workers, 0..{n}, round {round}: not in index order"
                    );
                }
            }
        }
    });
}

/// A non-commutative, associative reduction over strings, on a range that does not start
/// at zero, with an uneven cost so that the pieces split on demand.
#[test]
fn string_concatenation_follows_the_range() {
    watchdog(120, "string_concatenation_follows_the_range", || {
        let ex = executor(3);
        let start = 1_000;
        let n = 3_000;
        let expected: String = (start..start + n).map(|i| format!("{i},")).collect();
        for round in 0..10 {
            let got = ex.block_on(ex.par_reduce(
                start..start + n,
                String::new,
                |mut s, i| {
                    if i % 7 == 0 {
                        // A little work now and then, so the loop is uneven.
                        std::hint::black_box((0..2_000u64).sum::<u64>());
                    }
                    s.push_str(&format!("{i},"));
                    s
                },
                |a, b| a + &b,
            ));
            assert!(got == expected, "round {round}: scrambled");
        }
    });
}

/// 2x2 matrix products (associative, not commutative) in index order.
#[test]
fn matrix_products_in_index_order() {
    type M = [[u64; 2]; 2];
    fn mul(a: M, b: M) -> M {
        let m = |r: usize, c: usize| {
            a[r][0]
                .wrapping_mul(b[0][c])
                .wrapping_add(a[r][1].wrapping_mul(b[1][c]))
        };
        [[m(0, 0), m(0, 1)], [m(1, 0), m(1, 1)]]
    }
    fn of(i: usize) -> M {
        let i = i as u64;
        [[1, i], [i % 3, 1]]
    }
    const ID: M = [[1, 0], [0, 1]];
    watchdog(120, "matrix_products_in_index_order", || {
        let n = 50_000;
        let expected = (0..n).map(of).fold(ID, mul);
        let ex = executor(2);
        for round in 0..10 {
            let got = ex.block_on(ex.par_reduce(0..n, || ID, |m, i| mul(m, of(i)), mul));
            assert_eq!(got, expected, "round {round}");
        }
    });
}
