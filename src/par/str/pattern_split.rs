//! The iterators over the pieces of a string between the matches of a pattern: [`Split`],
//! [`SplitInclusive`], [`SplitTerminator`], and those built on them, [`Lines`],
//! [`SplitWhitespace`] and [`SplitAsciiWhitespace`]. They run on the searching producer that
//! the slices' `par_split` uses (`slice/cuts.rs`), with the string cuts below.

use super::chars::middle_boundary;
use super::pattern::Pattern;
use super::ParallelString;
use crate::par::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer};
use crate::par::iter::ParallelIterator;
use crate::par::slice::cuts::{CutProducer, Cuttable};

/// Cuts around each match (the matched character belongs to no piece).
pub(super) struct ExclusiveMatch<'p, P>(pub(super) &'p P);

/// Cuts after each match (the matched character ends its piece).
pub(super) struct InclusiveMatch<'p, P>(pub(super) &'p P);

/// The length in bytes of the character at byte `at` of `s`.
fn char_len_at(s: &str, at: usize) -> usize {
    s[at..].chars().next().map_or(0, char::len_utf8)
}

/// What both kinds of string cut share.
macro_rules! str_cuts {
    ($kind:ident) => {
        fn len(&self) -> usize {
            str::len(self)
        }

        fn middle(&self, end: usize) -> usize {
            middle_boundary(&self[..end])
        }

        fn find(&self, kind: &$kind<'_, P>, start: usize, end: usize) -> Option<usize> {
            kind.0.find_in(&self[start..end]).map(|i| start + i)
        }

        fn rfind(&self, kind: &$kind<'_, P>, end: usize) -> Option<usize> {
            kind.0.rfind_in(&self[..end])
        }
    };
}

impl<P: Pattern> Cuttable<ExclusiveMatch<'_, P>> for &str {
    str_cuts!(ExclusiveMatch);

    fn cut(self, _: &ExclusiveMatch<'_, P>, at: usize) -> (Self, Self) {
        (&self[..at], &self[at + char_len_at(self, at)..])
    }

    fn fold_pieces<F: Folder<Self>>(
        self,
        kind: &ExclusiveMatch<'_, P>,
        folder: F,
        skip_last: bool,
    ) -> F {
        kind.0.fold_splits(self, folder, skip_last)
    }
}

impl<P: Pattern> Cuttable<InclusiveMatch<'_, P>> for &str {
    str_cuts!(InclusiveMatch);

    fn cut(self, _: &InclusiveMatch<'_, P>, at: usize) -> (Self, Self) {
        self.split_at(at + char_len_at(self, at))
    }

    fn fold_pieces<F: Folder<Self>>(
        self,
        kind: &InclusiveMatch<'_, P>,
        folder: F,
        skip_last: bool,
    ) -> F {
        debug_assert!(!skip_last, "an inclusive split keeps its last piece");
        kind.0.fold_inclusive_splits(self, folder)
    }
}

/// A parallel iterator over the pieces of a string between the matches of a pattern:
/// `s.par_split(p)`, as std's `split`.
#[derive(Debug, Clone)]
pub struct Split<'ch, P: Pattern> {
    chars: &'ch str,
    separator: P,
}

/// A parallel iterator over the pieces of a string, each ending with a match of a pattern
/// (but the last, which may not): `s.par_split_inclusive(p)`, as std's `split_inclusive`.
#[derive(Debug, Clone)]
pub struct SplitInclusive<'ch, P: Pattern> {
    chars: &'ch str,
    separator: P,
}

/// A parallel iterator over the pieces of a string between the matches of a pattern,
/// without the empty piece after a final match: `s.par_split_terminator(p)`, as std's
/// `split_terminator`.
#[derive(Debug, Clone)]
pub struct SplitTerminator<'ch, P: Pattern> {
    chars: &'ch str,
    terminator: P,
}

impl<'ch, P: Pattern> Split<'ch, P> {
    pub(super) fn new(chars: &'ch str, separator: P) -> Self {
        Split { chars, separator }
    }
}

impl<'ch, P: Pattern> SplitInclusive<'ch, P> {
    pub(super) fn new(chars: &'ch str, separator: P) -> Self {
        SplitInclusive { chars, separator }
    }
}

impl<'ch, P: Pattern> SplitTerminator<'ch, P> {
    pub(super) fn new(chars: &'ch str, terminator: P) -> Self {
        SplitTerminator { chars, terminator }
    }
}

impl<'ch, P: Pattern> ParallelIterator for Split<'ch, P> {
    type Item = &'ch str;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let kind = ExclusiveMatch(&self.separator);
        bridge_unindexed(CutProducer::new(self.chars, &kind), consumer)
    }
}

impl<'ch, P: Pattern> ParallelIterator for SplitInclusive<'ch, P> {
    type Item = &'ch str;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let kind = InclusiveMatch(&self.separator);
        bridge_unindexed(CutProducer::new(self.chars, &kind), consumer)
    }
}

impl<'ch, P: Pattern> ParallelIterator for SplitTerminator<'ch, P> {
    type Item = &'ch str;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        // std's rule: the last piece goes when it is empty (the string ends with a match,
        // or is empty).
        let skip_last = self.chars.is_empty() || self.terminator.is_suffix_of(self.chars);
        let kind = ExclusiveMatch(&self.terminator);
        let producer = CutProducer::new_skipping_last(self.chars, &kind, skip_last);
        bridge_unindexed(producer, consumer)
    }
}

/// A parallel iterator over the lines of a string, without their line endings (`\n` or
/// `\r\n`; the last line's is optional): `s.par_lines()`, as std's `lines`.
#[derive(Debug, Clone)]
pub struct Lines<'ch>(&'ch str);

impl<'ch> Lines<'ch> {
    pub(super) fn new(chars: &'ch str) -> Self {
        Lines(chars)
    }
}

/// A line of `split_inclusive('\n')` without its ending: `\n`, and a `\r` before it.
fn without_line_ending(line: &str) -> &str {
    match line.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => line,
    }
}

impl<'ch> ParallelIterator for Lines<'ch> {
    type Item = &'ch str;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.0
            .par_split_inclusive('\n')
            .map(without_line_ending)
            .drive_unindexed(consumer)
    }
}

/// A parallel iterator over the words of a string, separated by Unicode whitespace:
/// `s.par_split_whitespace()`, as std's `split_whitespace`.
#[derive(Debug, Clone)]
pub struct SplitWhitespace<'ch>(&'ch str);

/// A parallel iterator over the words of a string, separated by ASCII whitespace:
/// `s.par_split_ascii_whitespace()`, as std's `split_ascii_whitespace`.
#[derive(Debug, Clone)]
pub struct SplitAsciiWhitespace<'ch>(&'ch str);

impl<'ch> SplitWhitespace<'ch> {
    pub(super) fn new(chars: &'ch str) -> Self {
        SplitWhitespace(chars)
    }
}

impl<'ch> SplitAsciiWhitespace<'ch> {
    pub(super) fn new(chars: &'ch str) -> Self {
        SplitAsciiWhitespace(chars)
    }
}

fn is_word(piece: &&str) -> bool {
    !piece.is_empty()
}

impl<'ch> ParallelIterator for SplitWhitespace<'ch> {
    type Item = &'ch str;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.0
            .par_split(char::is_whitespace)
            .filter(is_word)
            .drive_unindexed(consumer)
    }
}

impl<'ch> ParallelIterator for SplitAsciiWhitespace<'ch> {
    type Item = &'ch str;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.0
            .par_split(|c: char| c.is_ascii_whitespace())
            .filter(is_word)
            .drive_unindexed(consumer)
    }
}
