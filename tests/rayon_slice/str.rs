//! `filch::par::str`: each iterator yields what std's sequential one does, in order, on
//! rayon's cases, on random Unicode, and on strings long enough to be split many times.

use filch::par::prelude::*;

use crate::slice_common::Rng;

/// `len` random Unicode scalar values (every plane, no surrogates).
fn random_string(rng: &mut Rng, len: usize) -> String {
    (0..len)
        .map(|_| loop {
            if let Some(c) = char::from_u32(rng.below(0x11_0000) as u32) {
                break c;
            }
        })
        .collect()
}

// origin: rayon tests/str.rs (execute_strings)
#[test]
pub fn execute_strings() {
    let s = random_string(&mut Rng::new(81), 1024);

    let par_chars: String = s.par_chars().collect();
    assert_eq!(s, par_chars);

    let par_even: String = s.par_chars().filter(|&c| (c as u32) & 1 == 0).collect();
    let ser_even: String = s.chars().filter(|&c| (c as u32) & 1 == 0).collect();
    assert_eq!(par_even, ser_even);

    // `FromParallelIterator<&char> for String`
    let vchars: Vec<char> = s.par_chars().collect();
    let par_chars: String = vchars.par_iter().collect();
    assert_eq!(s, par_chars);

    let par_bytes: Vec<u8> = s.par_bytes().collect();
    assert_eq!(s.as_bytes(), &*par_bytes);

    let par_utf16: Vec<u16> = s.par_encode_utf16().collect();
    let ser_utf16: Vec<u16> = s.encode_utf16().collect();
    assert_eq!(par_utf16, ser_utf16);

    let par_charind: Vec<_> = s.par_char_indices().collect();
    let ser_charind: Vec<_> = s.char_indices().collect();
    assert_eq!(par_charind, ser_charind);
}

// origin: rayon tests/str.rs (execute_strings_split)
#[test]
pub fn execute_strings_split() {
    // char testcases from examples in `str::split` etc.,
    // plus a large self-test for good measure.
    let tests = vec![
        ("Mary had a little lamb", ' '),
        ("", 'X'),
        ("lionXXtigerXleopard", 'X'),
        ("||||a||b|c", '|'),
        ("(///)", '/'),
        ("010", '0'),
        ("    a  b c", ' '),
        ("A.B.", '.'),
        ("A..B..", '.'),
        ("foo\r\nbar\n\nbaz\n", '\n'),
        ("foo\nbar\n\r\nbaz", '\n'),
        ("A few words", ' '),
        (" Mary   had\ta\u{2009}little  \n\t lamb", ' '),
        ("Mary had a little lamb\nlittle lamb\nlittle lamb.", '\n'),
        ("Mary had a little lamb\nlittle lamb\nlittle lamb.\n", '\n'),
        (include_str!("str.rs"), ' '),
    ];

    macro_rules! check_separators {
        ($split:ident, $par_split:ident) => {
            for &(string, separator) in &tests {
                let serial: Vec<_> = string.$split(separator).collect();
                let parallel: Vec<_> = string.$par_split(separator).collect();
                assert_eq!(serial, parallel);

                let array = ['\u{0}', separator, '\u{1F980}'];
                let array_ref = &array;
                let slice: &[char] = array_ref;

                let serial: Vec<_> = string.$split(slice).collect();
                let parallel: Vec<_> = string.$par_split(slice).collect();
                assert_eq!(serial, parallel);

                let serial: Vec<_> = string.$split(array).collect();
                let parallel: Vec<_> = string.$par_split(array).collect();
                assert_eq!(serial, parallel);

                let serial: Vec<_> = string.$split(array_ref).collect();
                let parallel: Vec<_> = string.$par_split(array_ref).collect();
                assert_eq!(serial, parallel);

                let serial_fn: Vec<_> = string.$split(|c| c == separator).collect();
                let parallel_fn: Vec<_> = string.$par_split(|c| c == separator).collect();
                assert_eq!(serial_fn, parallel_fn);
            }
        };
    }

    check_separators!(split, par_split);
    check_separators!(split_inclusive, par_split_inclusive);
    check_separators!(split_terminator, par_split_terminator);

    for &(string, _) in &tests {
        let serial: Vec<_> = string.lines().collect();
        let parallel: Vec<_> = string.par_lines().collect();
        assert_eq!(serial, parallel);
    }

    for &(string, _) in &tests {
        let serial: Vec<_> = string.split_whitespace().collect();
        let parallel: Vec<_> = string.par_split_whitespace().collect();
        assert_eq!(serial, parallel);
    }

    for &(string, _) in &tests {
        let serial: Vec<_> = string.split_ascii_whitespace().collect();
        let parallel: Vec<_> = string.par_split_ascii_whitespace().collect();
        assert_eq!(serial, parallel);
    }

    // try matching separators too!
    check_separators!(matches, par_matches);
    check_separators!(match_indices, par_match_indices);
}

/// std's `lines` keeps a bare `\r` that no `\n` follows; so does `par_lines`.
#[test]
fn lines_follow_std_on_carriage_returns() {
    for s in [
        "a\r",
        "a\r\nb\r",
        "\r",
        "\r\n",
        "\n\r",
        "a\r\r\n",
        "x\ny\r\nz\r\n\r",
    ] {
        assert_eq!(
            s.par_lines().collect::<Vec<_>>(),
            s.lines().collect::<Vec<_>>(),
            "{s:?}"
        );
    }
}

/// Long strings of multi-byte characters, split many times: every iterator gives std's
/// items in order.
#[test]
fn long_strings_match_std() {
    let mut rng = Rng::new(82);
    // Words of 1 to 4 byte characters, separated by several kinds of whitespace and lines.
    let alphabet = ['a', 'é', '€', '𝄞', ' ', '\t', '\n', '\u{2009}', '\r', 'x'];
    let s: String = (0..400_000)
        .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
        .collect();
    let random = random_string(&mut rng, 100_000);
    for s in [s.as_str(), random.as_str(), ""] {
        assert!(s.par_chars().collect::<Vec<_>>() == s.chars().collect::<Vec<_>>());
        assert!(s.par_char_indices().collect::<Vec<_>>() == s.char_indices().collect::<Vec<_>>());
        assert!(s.par_bytes().collect::<Vec<_>>() == s.bytes().collect::<Vec<_>>());
        assert!(s.par_encode_utf16().collect::<Vec<_>>() == s.encode_utf16().collect::<Vec<_>>());
        assert_eq!(
            s.par_split('€').collect::<Vec<_>>(),
            s.split('€').collect::<Vec<_>>()
        );
        assert_eq!(
            s.par_split_inclusive(['𝄞', 'a']).collect::<Vec<_>>(),
            s.split_inclusive(['𝄞', 'a']).collect::<Vec<_>>()
        );
        assert_eq!(
            s.par_split_terminator('x').collect::<Vec<_>>(),
            s.split_terminator('x').collect::<Vec<_>>()
        );
        assert_eq!(
            s.par_lines().collect::<Vec<_>>(),
            s.lines().collect::<Vec<_>>()
        );
        assert_eq!(
            s.par_split_whitespace().collect::<Vec<_>>(),
            s.split_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(
            s.par_split_ascii_whitespace().collect::<Vec<_>>(),
            s.split_ascii_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(
            s.par_matches(|c: char| c.len_utf8() == 3)
                .collect::<Vec<_>>(),
            s.matches(|c: char| c.len_utf8() == 3).collect::<Vec<_>>()
        );
        assert_eq!(
            s.par_match_indices('é').collect::<Vec<_>>(),
            s.match_indices('é').collect::<Vec<_>>()
        );
    }
}

/// A string that ends with its terminator, or is nothing but terminators.
#[test]
fn split_terminator_edges() {
    for s in ["", "x", "xx", "axbx", "axb", "x\u{1F980}x", "\u{1F980}"] {
        assert_eq!(
            s.par_split_terminator('x').collect::<Vec<_>>(),
            s.split_terminator('x').collect::<Vec<_>>(),
            "{s:?}"
        );
    }
    let long = "ab x".repeat(100_000);
    assert_eq!(
        long.par_split_terminator('x').collect::<Vec<_>>(),
        long.split_terminator('x').collect::<Vec<_>>()
    );
}
