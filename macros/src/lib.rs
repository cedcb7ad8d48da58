//! The attribute macros of filch: `#[filch::main]` and `#[filch::test]`.
//!
//! filch re-exports them as `filch::main` and `filch::test` under its `macros` feature (on by
//! default); filch's documentation of those re-exports is the user's guide to them. Use them
//! through filch, not from this crate.
//!
//! Each turns an `async fn` into a plain `fn` of the same name, attributes and return type,
//! whose body builds a filch executor and blocks on the original body. The expansion names
//! filch by its absolute path (`::filch::Executor`), so this crate depends on nothing of
//! filch. A misuse is a compile error that points at the user's code and says how to fix it;
//! the function is still expanded beside the error, so that one mistake does not bring a
//! cascade of others (a missing `main`, say).
//!
//! `args.rs` reads the attribute's arguments; `expand.rs` checks the function and writes
//! its expansion.
#![warn(missing_docs, unreachable_pub)]

mod args;
mod expand;

use proc_macro::TokenStream;

use args::Kind;

/// (`#[filch::main]` is defined in the filch-macros crate and used through filch's `macros`
/// feature, on by default.)
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Kind::Main, args.into(), item.into()).into()
}

/// (`#[filch::test]` is defined in the filch-macros crate and used through filch's `macros`
/// feature, on by default.)
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(Kind::Test, args.into(), item.into()).into()
}
