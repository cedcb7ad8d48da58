//! The iterators that walk a string's characters: [`Chars`], [`CharIndices`], [`Bytes`],
//! [`EncodeUtf16`], [`Matches`] and [`MatchIndices`]. All run on one unindexed producer,
//! [`Halves`], which splits its string at the character boundary nearest its middle and
//! walks each piece with the matching std iterator (a pattern matches single characters,
//! so no match is cut in two).

use super::pattern::Pattern;
use crate::par::iter::plumbing::{bridge_unindexed, Folder, UnindexedConsumer, UnindexedProducer};
use crate::par::iter::ParallelIterator;

/// The byte index of the character boundary of `s` nearest its middle, looking forward
/// first (0 if there is none but the start: a string of one character).
pub(super) fn middle_boundary(s: &str) -> usize {
    let mid = s.len() / 2;
    (mid..s.len())
        .find(|&i| s.is_char_boundary(i))
        .or_else(|| (0..mid).rev().find(|&i| s.is_char_boundary(i)))
        .unwrap_or(0)
}

/// How a piece of a string is walked: the std iterator of one of the string iterators.
trait Walk<'ch>: Sync {
    type Item;

    /// Feeds the items of `piece`, which starts at byte `offset` of the whole string, to
    /// `folder`.
    fn walk<F: Folder<Self::Item>>(&self, piece: &'ch str, offset: usize, folder: F) -> F;
}

/// A piece of a string (from byte `offset` of the whole) and how to walk it.
struct Halves<'ch, 'w, W> {
    piece: &'ch str,
    offset: usize,
    walk: &'w W,
}

impl<'ch, W: Walk<'ch>> UnindexedProducer for Halves<'ch, '_, W> {
    type Item = W::Item;

    fn split(self) -> (Self, Option<Self>) {
        let at = middle_boundary(self.piece);
        if at == 0 {
            return (self, None);
        }
        let (left, right) = self.piece.split_at(at);
        let right = Halves {
            piece: right,
            offset: self.offset + at,
            walk: self.walk,
        };
        (
            Halves {
                piece: left,
                ..self
            },
            Some(right),
        )
    }

    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        self.walk.walk(self.piece, self.offset, folder)
    }
}

/// Runs the walk `walk` over `chars` into `consumer`.
fn drive<'ch, W, C>(chars: &'ch str, walk: &W, consumer: C) -> C::Result
where
    W: Walk<'ch>,
    W::Item: Send,
    C: UnindexedConsumer<W::Item>,
{
    let producer = Halves {
        piece: chars,
        offset: 0,
        walk,
    };
    bridge_unindexed(producer, consumer)
}

/// Defines a walk (a unit struct) and the iterator type that drives it.
macro_rules! char_walk {
    ($(#[$doc:meta])* $name:ident, $walk:ident, $item:ty, |$piece:ident, $offset:ident| $iter:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name<'ch> {
            chars: &'ch str,
        }

        impl<'ch> $name<'ch> {
            pub(super) fn new(chars: &'ch str) -> Self {
                $name { chars }
            }
        }

        struct $walk;

        impl<'ch> Walk<'ch> for $walk {
            type Item = $item;

            fn walk<F: Folder<$item>>(&self, $piece: &'ch str, $offset: usize, folder: F) -> F {
                folder.consume_iter($iter)
            }
        }

        impl<'ch> ParallelIterator for $name<'ch> {
            type Item = $item;

            fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                drive(self.chars, &$walk, consumer)
            }
        }
    };
}

char_walk!(
    /// A parallel iterator over the characters of a string: `s.par_chars()`, as std's
    /// `chars`.
    Chars,
    CharsWalk,
    char,
    |piece, _offset| piece.chars()
);

char_walk!(
    /// A parallel iterator over the characters of a string with their byte indices:
    /// `s.par_char_indices()`, as std's `char_indices`.
    CharIndices,
    CharIndicesWalk,
    (usize, char),
    |piece, offset| piece.char_indices().map(move |(i, c)| (offset + i, c))
);

char_walk!(
    /// A parallel iterator over the bytes of a string: `s.par_bytes()`, as std's `bytes`.
    Bytes,
    BytesWalk,
    u8,
    |piece, _offset| piece.bytes()
);

char_walk!(
    /// A parallel iterator over a string encoded as UTF-16: `s.par_encode_utf16()`, as
    /// std's `encode_utf16`.
    EncodeUtf16,
    EncodeUtf16Walk,
    u16,
    |piece, _offset| piece.encode_utf16()
);

/// A parallel iterator over the matches of a pattern in a string: `s.par_matches(p)`, as
/// std's `matches`.
#[derive(Debug, Clone)]
pub struct Matches<'ch, P: Pattern> {
    chars: &'ch str,
    pattern: P,
}

/// A parallel iterator over the matches of a pattern in a string with their byte indices:
/// `s.par_match_indices(p)`, as std's `match_indices`.
#[derive(Debug, Clone)]
pub struct MatchIndices<'ch, P: Pattern> {
    chars: &'ch str,
    pattern: P,
}

impl<'ch, P: Pattern> Matches<'ch, P> {
    pub(super) fn new(chars: &'ch str, pattern: P) -> Self {
        Matches { chars, pattern }
    }
}

impl<'ch, P: Pattern> MatchIndices<'ch, P> {
    pub(super) fn new(chars: &'ch str, pattern: P) -> Self {
        MatchIndices { chars, pattern }
    }
}

/// The walk of [`Matches`].
struct MatchesWalk<P>(P);

/// The walk of [`MatchIndices`].
struct MatchIndicesWalk<P>(P);

impl<'ch, P: Pattern> Walk<'ch> for MatchesWalk<P> {
    type Item = &'ch str;

    fn walk<F: Folder<&'ch str>>(&self, piece: &'ch str, _offset: usize, folder: F) -> F {
        self.0.fold_matches(piece, folder)
    }
}

impl<'ch, P: Pattern> Walk<'ch> for MatchIndicesWalk<P> {
    type Item = (usize, &'ch str);

    fn walk<F: Folder<(usize, &'ch str)>>(&self, piece: &'ch str, offset: usize, folder: F) -> F {
        self.0.fold_match_indices(piece, folder, offset)
    }
}

impl<'ch, P: Pattern> ParallelIterator for Matches<'ch, P> {
    type Item = &'ch str;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive(self.chars, &MatchesWalk(self.pattern), consumer)
    }
}

impl<'ch, P: Pattern> ParallelIterator for MatchIndices<'ch, P> {
    type Item = (usize, &'ch str);

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        drive(self.chars, &MatchIndicesWalk(self.pattern), consumer)
    }
}
