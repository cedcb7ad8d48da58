//! [`Pattern`]: what the string methods look for, as rayon's (a `char`, a set of `char`s, or
//! a predicate on `char`), sealed. Every pattern matches single characters, so a string cut
//! at any character boundary cuts no match in two: the iterators split their strings there.
//!
//! std's own pattern trait cannot be named on stable Rust, so each pattern type forwards to
//! std's `str` methods through the macro below.

use crate::par::iter::plumbing::Folder;

/// A pattern of `par_split` and the other string methods of
/// [`ParallelString`](super::ParallelString): a `char`, a set of characters (`&[char]`,
/// `[char; N]`, `&[char; N]`) or a predicate `Fn(char) -> bool`; each matches one
/// character at a time, as with std's `str` methods.
///
/// The trait is sealed; a type of your own cannot implement it:
///
/// ```compile_fail,E0277
/// struct Mine;
/// impl filch::par::str::Pattern for Mine {}
/// ```
pub trait Pattern: sealed::Sealed + Sized + Sync + Send {}

/// The part of [`Pattern`] that only filch can name.
pub(crate) mod sealed {
    use crate::par::iter::plumbing::Folder;

    /// What the string iterators ask of a pattern; std's `str` methods answer.
    // `pub` in a private module: nameable by filch only, yet allowed in the bound of the
    // public `Pattern` (a sealed trait).
    pub trait Sealed {
        /// The byte index of the first match in `haystack`.
        fn find_in(&self, haystack: &str) -> Option<usize>;

        /// The byte index of the last match in `haystack`.
        fn rfind_in(&self, haystack: &str) -> Option<usize>;

        /// Whether `haystack` ends with a match.
        fn is_suffix_of(&self, haystack: &str) -> bool;

        /// Feeds std's `split` of `haystack` to `folder`, the last piece left out if
        /// `skip_last`.
        fn fold_splits<'ch, F>(&self, haystack: &'ch str, folder: F, skip_last: bool) -> F
        where
            F: Folder<&'ch str>;

        /// Feeds std's `split_inclusive` of `haystack` to `folder`.
        fn fold_inclusive_splits<'ch, F>(&self, haystack: &'ch str, folder: F) -> F
        where
            F: Folder<&'ch str>;

        /// Feeds std's `matches` of `haystack` to `folder`.
        fn fold_matches<'ch, F>(&self, haystack: &'ch str, folder: F) -> F
        where
            F: Folder<&'ch str>;

        /// Feeds std's `match_indices` of `haystack` to `folder`, each index plus `offset`.
        fn fold_match_indices<'ch, F>(&self, haystack: &'ch str, folder: F, offset: usize) -> F
        where
            F: Folder<(usize, &'ch str)>;
    }
}

/// Implements [`Pattern`] for a type (with the generic parameters in braces), with
/// `$pattern` the std pattern that `$this: &Self` stands for.
macro_rules! pattern {
    ({$($g:tt)*} $ty:ty, |$this:ident| $pattern:expr) => {
        impl<$($g)*> Pattern for $ty {}

        impl<$($g)*> sealed::Sealed for $ty {
            #[inline]
            fn find_in(&self, haystack: &str) -> Option<usize> {
                let $this = self;
                haystack.find($pattern)
            }

            #[inline]
            fn rfind_in(&self, haystack: &str) -> Option<usize> {
                let $this = self;
                haystack.rfind($pattern)
            }

            #[inline]
            fn is_suffix_of(&self, haystack: &str) -> bool {
                let $this = self;
                haystack.ends_with($pattern)
            }

            fn fold_splits<'ch, F>(&self, haystack: &'ch str, folder: F, skip_last: bool) -> F
            where
                F: Folder<&'ch str>,
            {
                let $this = self;
                let mut pieces = haystack.split($pattern);
                if skip_last {
                    pieces.next_back();
                }
                folder.consume_iter(pieces)
            }

            fn fold_inclusive_splits<'ch, F>(&self, haystack: &'ch str, folder: F) -> F
            where
                F: Folder<&'ch str>,
            {
                let $this = self;
                folder.consume_iter(haystack.split_inclusive($pattern))
            }

            fn fold_matches<'ch, F>(&self, haystack: &'ch str, folder: F) -> F
            where
                F: Folder<&'ch str>,
            {
                let $this = self;
                folder.consume_iter(haystack.matches($pattern))
            }

            fn fold_match_indices<'ch, F>(&self, haystack: &'ch str, folder: F, offset: usize) -> F
            where
                F: Folder<(usize, &'ch str)>,
            {
                let $this = self;
                let found = haystack.match_indices($pattern);
                folder.consume_iter(found.map(move |(i, m)| (offset + i, m)))
            }
        }
    };
}

pattern!({} char, |this| *this);
pattern!({} & [char], |this| *this);
pattern!({const N: usize} [char; N], |this| *this);
pattern!({const N: usize} &[char; N], |this| *this);
pattern!({P: Fn(char) -> bool + Sync + Send} P, |this| this);
