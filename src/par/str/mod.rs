//! Parallel string iterators (rayon's `rayon::str`): [`ParallelString`] and its iterator
//! types.
//!
//! Strings are split only at character boundaries, and every [`Pattern`] matches single
//! characters, so each iterator yields what std's sequential one does, in the same order.
//! `chars.rs` holds the iterators that walk characters (on a producer that halves its
//! string), `pattern_split.rs` those that cut at a pattern's matches (on the searching producer of
//! `slice/cuts.rs`), `pattern.rs` the sealed [`Pattern`].

mod chars;
mod pattern;
mod pattern_split;
#[cfg(test)]
mod tests;

pub use chars::{Bytes, CharIndices, Chars, EncodeUtf16, MatchIndices, Matches};
pub use pattern::Pattern;
pub use pattern_split::SplitWhitespace;
pub use pattern_split::{Lines, Split, SplitAsciiWhitespace, SplitInclusive, SplitTerminator};

/// Parallel methods on strings.
///
/// Implemented for `str`, so every `String` and `&str` has them.
pub trait ParallelString {
    /// The plain string that the other methods work on.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// assert_eq!(String::from("abc").as_parallel_string(), "abc");
    /// ```
    fn as_parallel_string(&self) -> &str;

    /// A parallel iterator over the characters of the string, as std's `chars`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let max = "hello".par_chars().max_by_key(|c| *c as u32);
    /// assert_eq!(max, Some('o'));
    /// ```
    fn par_chars(&self) -> Chars<'_> {
        Chars::new(self.as_parallel_string())
    }

    /// A parallel iterator over the characters of the string and their byte indices, as
    /// std's `char_indices`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let min = "hello".par_char_indices().min_by_key(|&(_, c)| c as u32);
    /// assert_eq!(min, Some((1, 'e')));
    /// ```
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices::new(self.as_parallel_string())
    }

    /// A parallel iterator over the bytes of the string, as std's `bytes`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let total: u32 = "hello".par_bytes().map(u32::from).sum();
    /// assert_eq!(total, 532);
    /// ```
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes::new(self.as_parallel_string())
    }

    /// A parallel iterator over the string encoded as UTF-16, as std's `encode_utf16`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let units: Vec<u16> = "h€𝄞".par_encode_utf16().collect();
    /// assert_eq!(units, "h€𝄞".encode_utf16().collect::<Vec<_>>());
    /// assert_eq!(units.len(), 4);
    /// ```
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16::new(self.as_parallel_string())
    }

    /// A parallel iterator over the pieces of the string between the matches of
    /// `separator` (a [`Pattern`]: a `char`, a set of them, or a `Fn(char) -> bool`), as
    /// std's `split`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let total: i32 = "1, 2, buckle, 3, 4, door"
    ///     .par_split(',')
    ///     .filter_map(|s| s.trim().parse::<i32>().ok())
    ///     .sum();
    /// assert_eq!(total, 10);
    /// ```
    fn par_split<P: Pattern>(&self, separator: P) -> Split<'_, P> {
        Split::new(self.as_parallel_string(), separator)
    }

    /// A parallel iterator over the pieces of the string, each ending with a match of
    /// `separator` (but the last, which may not), as std's `split_inclusive`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let lines: Vec<&str> = "Mary had a little lamb\nlittle lamb\nlittle lamb."
    ///     .par_split_inclusive('\n')
    ///     .collect();
    /// assert_eq!(lines, ["Mary had a little lamb\n", "little lamb\n", "little lamb."]);
    /// ```
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> SplitInclusive<'_, P> {
        SplitInclusive::new(self.as_parallel_string(), separator)
    }

    /// A parallel iterator over the pieces of the string between the matches of
    /// `terminator`, without the empty piece that follows a final match, as std's
    /// `split_terminator`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let parts: Vec<&str> = "((1 + 3) * 2)".par_split_terminator(['(', ')']).collect();
    /// assert_eq!(parts, ["", "", "1 + 3", " * 2"]);
    /// ```
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> SplitTerminator<'_, P> {
        SplitTerminator::new(self.as_parallel_string(), terminator)
    }

    /// A parallel iterator over the lines of the string, without their line endings (`\n`
    /// or `\r\n`; the last line's is optional), as std's `lines`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let lengths: Vec<usize> = "hello world\r\nfizbuzz\n".par_lines().map(str::len).collect();
    /// assert_eq!(lengths, [11, 7]);
    /// ```
    fn par_lines(&self) -> Lines<'_> {
        Lines::new(self.as_parallel_string())
    }

    /// A parallel iterator over the words of the string, separated by any amount of
    /// Unicode whitespace, as std's `split_whitespace`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let words: Vec<&str> = " Mary   had\ta\u{2009}little  \n\t lamb"
    ///     .par_split_whitespace()
    ///     .collect();
    /// assert_eq!(words, ["Mary", "had", "a", "little", "lamb"]);
    /// assert_eq!("   ".par_split_whitespace().count(), 0);
    /// ```
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        SplitWhitespace::new(self.as_parallel_string())
    }

    /// A parallel iterator over the words of the string, separated by any amount of ASCII
    /// whitespace, as std's `split_ascii_whitespace`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let words: Vec<&str> = " Mary   had\ta\u{2009}little  \n\t lamb"
    ///     .par_split_ascii_whitespace()
    ///     .collect();
    /// assert_eq!(words, ["Mary", "had", "a\u{2009}little", "lamb"]);
    /// ```
    fn par_split_ascii_whitespace(&self) -> SplitAsciiWhitespace<'_> {
        SplitAsciiWhitespace::new(self.as_parallel_string())
    }

    /// A parallel iterator over the matches of `pattern` in the string, as std's
    /// `matches`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let total: u32 = "1, 2, buckle, 3, 4, door"
    ///     .par_matches(char::is_numeric)
    ///     .map(|s| s.parse::<u32>().unwrap())
    ///     .sum();
    /// assert_eq!(total, 10);
    /// ```
    fn par_matches<P: Pattern>(&self, pattern: P) -> Matches<'_, P> {
        Matches::new(self.as_parallel_string(), pattern)
    }

    /// A parallel iterator over the matches of `pattern` in the string and their byte
    /// indices, as std's `match_indices`.
    ///
    /// ```
    /// use filch::par::prelude::*;
    ///
    /// let digits: Vec<(usize, &str)> = "1, 2, buckle, 3, 4, door"
    ///     .par_match_indices(char::is_numeric)
    ///     .collect();
    /// assert_eq!(digits, [(0, "1"), (3, "2"), (14, "3"), (17, "4")]);
    /// ```
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices::new(self.as_parallel_string(), pattern)
    }
}

impl ParallelString for str {
    #[inline]
    fn as_parallel_string(&self) -> &str {
        self
    }
}
