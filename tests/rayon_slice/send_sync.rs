//! The iterator types are `Send` and `Sync` as rayon's are (checked at compile time), so a
//! program that moves them across threads keeps compiling on filch.

use std::cell::Cell;

use filch::par::slice::{ArrayWindows, ChunkBy, ChunkByMut, Chunks, ChunksExact};
use filch::par::slice::{ChunksExactMut, ChunksMut, RChunks, RChunksExact, RChunksExactMut};
use filch::par::slice::{RChunksMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut, Windows};
use filch::par::str;
use filch::par::str::{Bytes, CharIndices, Chars, EncodeUtf16, Lines, MatchIndices, Matches};
use filch::par::str::{SplitAsciiWhitespace, SplitTerminator, SplitWhitespace};

fn send_sync<T: Send + Sync>() {}
fn send<T: Send>() {}

type Pred = fn(&u8) -> bool;
type Pair = fn(&u8, &u8) -> bool;

#[test]
fn slice_iterators_are_send_and_sync() {
    send_sync::<Chunks<'static, u8>>();
    send_sync::<ChunksExact<'static, u8>>();
    send_sync::<ChunksMut<'static, u8>>();
    send_sync::<ChunksExactMut<'static, u8>>();
    send_sync::<RChunks<'static, u8>>();
    send_sync::<RChunksExact<'static, u8>>();
    send_sync::<RChunksMut<'static, u8>>();
    send_sync::<RChunksExactMut<'static, u8>>();
    send_sync::<Windows<'static, u8>>();
    send_sync::<ArrayWindows<'static, u8, 3>>();
    send_sync::<Split<'static, u8, Pred>>();
    send_sync::<SplitInclusive<'static, u8, Pred>>();
    send_sync::<SplitMut<'static, u8, Pred>>();
    send_sync::<SplitInclusiveMut<'static, u8, Pred>>();
    send_sync::<ChunkBy<'static, u8, Pair>>();
    send_sync::<ChunkByMut<'static, u8, Pair>>();
    // Mutable iterators over elements that are `Send` only are `Send`.
    send::<ChunksMut<'static, Cell<u8>>>();
    send::<RChunksExactMut<'static, Cell<u8>>>();
    send::<SplitMut<'static, Cell<u8>, fn(&Cell<u8>) -> bool>>();
}

#[test]
fn str_iterators_are_send_and_sync() {
    send_sync::<Chars<'static>>();
    send_sync::<CharIndices<'static>>();
    send_sync::<Bytes<'static>>();
    send_sync::<EncodeUtf16<'static>>();
    send_sync::<str::Split<'static, char>>();
    send_sync::<str::SplitInclusive<'static, &'static [char]>>();
    send_sync::<SplitTerminator<'static, [char; 2]>>();
    send_sync::<Lines<'static>>();
    send_sync::<SplitWhitespace<'static>>();
    send_sync::<SplitAsciiWhitespace<'static>>();
    send_sync::<Matches<'static, fn(char) -> bool>>();
    send_sync::<MatchIndices<'static, &'static [char; 2]>>();
}
