//! White-box tests of the string producers: the middle character boundary, and the
//! searching producer on strings split every way (std's pieces, with multi-byte
//! separators, and `split_terminator`'s dropped last piece).

use super::chars::middle_boundary;
use super::pattern_split::{ExclusiveMatch, InclusiveMatch};
use crate::par::iter::plumbing::{Folder, UnindexedProducer};
use crate::par::slice::cuts::CutProducer;

struct CollectMatches<T>(Vec<T>);

impl<T> Folder<T> for CollectMatches<T> {
    type Result = Vec<T>;

    fn consume(mut self, item: T) -> Self {
        self.0.push(item);
        self
    }

    fn complete(self) -> Vec<T> {
        self.0
    }

    fn full(&self) -> bool {
        false
    }
}

/// The pieces of `producer` split wherever `split_here(depth, path)` says (`path`: bit `k`
/// set for a right half at depth `k`), the leaves folded in order.
fn pieces<P: UnindexedProducer>(
    producer: P,
    depth: u32,
    path: u64,
    split_here: &dyn Fn(u32, u64) -> bool,
) -> Vec<P::Item> {
    if depth < 64 && split_here(depth, path) {
        let (left, right) = producer.split();
        let mut out = pieces(left, depth + 1, path, split_here);
        if let Some(right) = right {
            out.extend(pieces(right, depth + 1, path | 1 << depth, split_here));
        }
        return out;
    }
    producer.fold_with(CollectMatches(Vec::new())).complete()
}

type SplitPolicy = fn(u32, u64) -> bool;

const POLICIES: [SplitPolicy; 5] = [
    |_, _| false,
    |_, _| true,
    |depth, _| depth < 2,
    |depth, path| path.count_ones() == depth,
    |depth, path| (depth + path.count_ones()) % 3 != 0,
];

#[test]
fn middle_boundary_is_a_boundary_near_the_middle() {
    for s in [
        "",
        "a",
        "ab",
        "é",
        "aé",
        "éa",
        "𝄞",
        "a𝄞",
        "𝄞𝄞",
        "abc€def",
        "€€€€",
    ] {
        let at = middle_boundary(s);
        assert!(s.is_char_boundary(at), "{s:?}: {at}");
        // 0 only where no boundary but the ends exists.
        assert_eq!(at == 0, s.chars().count() <= 1, "{s:?}: {at}");
        assert!(at.abs_diff(s.len() / 2) < 4, "{s:?}: {at}");
    }
}

#[test]
fn cut_producer_splits_strings_as_std() {
    let inputs = [
        "",
        "x",
        "€",
        "€€",
        "a€b€€c€",
        "€a€",
        "no separator here",
        "𝄞 x 𝄞x€x x€𝄞 é",
        "€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€",
    ];
    let long = "ab€cd€€e 𝄞f€".repeat(50);
    for s in inputs.iter().copied().chain([long.as_str()]) {
        for split_here in POLICIES {
            let separator = '€';
            let kind = ExclusiveMatch(&separator);
            let got = pieces(CutProducer::new(s, &kind), 0, 0, &split_here);
            assert_eq!(got, s.split('€').collect::<Vec<_>>(), "split {s:?}");
            let kind = InclusiveMatch(&separator);
            let got = pieces(CutProducer::new(s, &kind), 0, 0, &split_here);
            assert_eq!(
                got,
                s.split_inclusive('€').collect::<Vec<_>>(),
                "inclusive {s:?}"
            );
            let skip_last = s.is_empty() || s.ends_with('€');
            let kind = ExclusiveMatch(&separator);
            let producer = CutProducer::new_skipping_last(s, &kind, skip_last);
            let got = pieces(producer, 0, 0, &split_here);
            assert_eq!(
                got,
                s.split_terminator('€').collect::<Vec<_>>(),
                "terminator {s:?}"
            );
            let whitespace = char::is_whitespace;
            let kind = ExclusiveMatch(&whitespace);
            let got = pieces(CutProducer::new(s, &kind), 0, 0, &split_here);
            assert_eq!(
                got,
                s.split(char::is_whitespace).collect::<Vec<_>>(),
                "{s:?}"
            );
        }
    }
}
