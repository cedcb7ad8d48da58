//! Checks the function under the attribute and writes its expansion.
//!
//! ```text
//! #[filch::main(worker_threads = 4)]          fn main() -> R {
//! async fn main() -> R { body }       =>          let body = async move { body };
//!                                                 ::filch::Executor::builder()
//!                                                     .worker_threads(4)
//!                                                     .build()
//!                                                     .expect("...")
//!                                                     .__block_on_main(body)
//!                                             }
//! ```
//!
//! For `main` the call is `__block_on_main`, `block_on` that also makes the executor the
//! one the free functions find on the program's other threads while it runs.
//! `#[filch::test]` writes `block_on`, with `#[::core::prelude::v1::test]` in front and one
//! worker unless `worker_threads` says otherwise; with `start_paused = true` the async block
//! starts with `::filch::__start_paused!(pause);`, which pauses the executor's clock, and
//! `::filch::__start_paused!(check);` stands before the function: a compile error that says
//! so without filch's `test-util` feature (a `#[test]` body is compiled only by `cargo test`). The return type is kept, so a body that
//! returns a `Result` makes a `main` or a test that returns it.
//!
//! The generated call that produces the function's value carries the location of the body's
//! last statement (its first token to its last), so that a body whose value does not match
//! the declared return type is reported at that statement rather than at the attribute.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::{AttrStyle, Attribute, Item, ItemFn, Meta};

use crate::args::{self, Config, Errors, Flavor, Kind};

/// The expansion of `#[filch::main]` or `#[filch::test]` with arguments `args` on `item`.
pub(crate) fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let func = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(func)) => func,
        Ok(other) => return with_error(item, not_a_function(kind, &other)),
        Err(e) => return with_error(item, e),
    };
    let mut errors = Errors::default();
    check_function(kind, &func, &mut errors);
    let config = match args::parse(kind, args) {
        Ok(config) => config,
        Err(e) => {
            errors.push(e);
            Config::default()
        }
    };
    // Expanded even when there are errors: the function then still exists for the rest of
    // the crate (no "`main` function not found" after a typo in the arguments).
    let expanded = rewrite(kind, func, config);
    match errors.into_result(()) {
        Ok(()) => expanded,
        Err(e) => with_error(expanded, e),
    }
}

/// The function must be `async`, take no arguments, and (for a test) not be a `#[test]`
/// already.
fn check_function(kind: Kind, func: &ItemFn, errors: &mut Errors) {
    let sig = &func.sig;
    if sig.asyncness.is_none() {
        errors.push(syn::Error::new_spanned(
            sig.fn_token,
            format!(
                "the `async` keyword is missing from the function declaration: `{}` runs an \
                 `async fn`, so write `async fn {}`",
                kind.attribute(),
                sig.ident
            ),
        ));
    }
    if !sig.inputs.is_empty() {
        let what = match kind {
            Kind::Main => "a `main` function",
            Kind::Test => "a test",
        };
        errors.push(syn::Error::new_spanned(
            &sig.inputs,
            format!(
                "`{}` takes a function without arguments ({what} is called with none): \
                 remove the arguments",
                kind.attribute()
            ),
        ));
    }
    if kind == Kind::Test {
        for attr in func.attrs.iter().filter(|a| is_test_attribute(a)) {
            errors.push(syn::Error::new_spanned(
                attr,
                "`#[filch::test]` already makes the function a test: remove this `#[test]`",
            ));
        }
    }
}

/// `#[test]`, or one of its prelude paths such as `#[::core::prelude::v1::test]`.
fn is_test_attribute(attr: &Attribute) -> bool {
    let Meta::Path(path) = &attr.meta else {
        return false;
    };
    let last_is_test = path.segments.last().is_some_and(|s| s.ident == "test");
    let through_prelude = path.segments.len() == 4
        && ["core", "std"].iter().any(|c| path.segments[0].ident == c)
        && path.segments[1].ident == "prelude";
    let bare = path.segments.len() == 1 && path.leading_colon.is_none();
    last_is_test && (bare || through_prelude)
}

/// The function without `async`, whose body builds the executor and blocks on the original
/// body.
fn rewrite(kind: Kind, mut func: ItemFn, config: Config) -> TokenStream {
    func.sig.asyncness = None;
    // Inner attributes (`#![allow(..)]` at the top of the body) cannot stay inside the async
    // block: they move onto the function, where they apply to the same code.
    for attr in &mut func.attrs {
        attr.style = AttrStyle::Outer;
    }
    let (start, end) = last_statement_span(&func);
    // How the expansion names filch, located where each use reports its errors.
    let filch = |span: Span| spanned(config.crate_path.as_ref(), span);
    let workers = match (config.worker_threads, config.flavor, kind) {
        (Some(n), _, _) => quote_spanned!(start=> .worker_threads(#n)),
        (None, Some(Flavor::CurrentThread), _) | (None, None, Kind::Test) => {
            quote_spanned!(start=> .worker_threads(1))
        }
        (None, Some(Flavor::MultiThread), _) | (None, None, Kind::Main) => quote!(),
    };
    let expect = format!("{}: building the executor failed", kind.attribute());
    // Mixed-site hygiene: a local that no code of the user's can name.
    let body = Ident::new("body", Span::mixed_site());
    // The call's first tokens carry the start of the last statement and its last tokens the
    // end, so that an error about the call's type spans the whole statement.
    let run = {
        let filch = filch(start);
        let builder = quote_spanned!(start=> #filch::Executor::builder() #workers .build());
        // `main`'s executor is also the one the free functions find on the program's other
        // threads while it runs (`__block_on_main`).
        let block_on = match kind {
            Kind::Main => quote_spanned!(end=> .expect(#expect).__block_on_main(#body)),
            Kind::Test => quote_spanned!(end=> .expect(#expect).block_on(#body)),
        };
        quote!(#builder #block_on)
    };
    let test_attr = match kind {
        Kind::Test => quote!(#[::core::prelude::v1::test]),
        Kind::Main => quote!(),
    };
    // `start_paused = true`: the body's first act pauses its executor's clock; beside the
    // function, a check that is a compile error (on the `true`) without filch's `test-util`
    // (filch's `__start_paused!`).
    let (check, pause) = match config.start_paused {
        Some((true, span)) => {
            let filch = filch(span);
            (
                quote_spanned!(span=> #filch::__start_paused!(check);),
                quote_spanned!(span=> #filch::__start_paused!(pause);),
            )
        }
        _ => (quote!(), quote!()),
    };
    // `modifiers` (syn's room for future fn syntax) holds nothing yet, and syn prints none.
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
        ..
    } = func;
    // The body's own braces make the async block (with the pause, if any, as its first
    // statement), not a block inside it: `async move { { .. } }` draws `unused_braces` in
    // the user's code (tokio issue 4175); and an error about the body's value stays on its
    // last statement.
    let mut async_block = TokenStream::new();
    block.brace_token.surround(&mut async_block, |tokens| {
        pause.to_tokens(tokens);
        for stmt in &block.stmts {
            stmt.to_tokens(tokens);
        }
    });
    quote! {
        #check
        #test_attr
        #(#attrs)*
        #vis #sig {
            let #body = async move #async_block;
            #run
        }
    }
}

/// The path to filch (`crate = "path"`, else `::filch`), every token of it at `span`.
fn spanned(path: Option<&syn::Path>, span: Span) -> TokenStream {
    let tokens = match path {
        Some(path) => path.to_token_stream(),
        None => quote!(::filch),
    };
    tokens
        .into_iter()
        .map(|mut tree| {
            tree.set_span(span);
            tree
        })
        .collect()
}

/// The first and last spans of the body's last statement, with the call site's hygiene
/// (only the location is the statement's); the braces when the body is empty.
fn last_statement_span(func: &ItemFn) -> (Span, Span) {
    let braces = func.block.brace_token.span;
    let (start, end) = match func.block.stmts.last() {
        Some(stmt) => {
            let mut tokens = stmt.to_token_stream().into_iter();
            let start = tokens.next().map_or(braces.open(), |t| t.span());
            let end = tokens.last().map_or(start, |t| t.span());
            (start, end)
        }
        None => (braces.open(), braces.close()),
    };
    let at = |span| Span::call_site().located_at(span);
    (at(start), at(end))
}

/// The error for the attribute on an item that is not a function, on the item's head (its
/// keyword and name, where it has them, so that the error does not underline a whole struct
/// or module).
fn not_a_function(kind: Kind, item: &Item) -> syn::Error {
    fn head(keyword: impl ToTokens, name: &syn::Ident) -> TokenStream {
        quote!(#keyword #name)
    }
    let (what, head) = match item {
        Item::Struct(i) => ("a struct", head(i.struct_token, &i.ident)),
        Item::Enum(i) => ("an enum", head(i.enum_token, &i.ident)),
        Item::Union(i) => ("a union", head(i.union_token, &i.ident)),
        Item::Const(i) => ("a const", head(i.const_token, &i.ident)),
        Item::Static(i) => ("a static", head(i.static_token, &i.ident)),
        Item::Mod(i) => ("a module", head(i.mod_token, &i.ident)),
        Item::Trait(i) => ("a trait", head(i.trait_token, &i.ident)),
        Item::Type(i) => ("a type alias", head(i.type_token, &i.ident)),
        _ => ("this item", item.to_token_stream()),
    };
    let example = match kind {
        Kind::Main => "#[filch::main] async fn main() { .. }",
        Kind::Test => "#[filch::test] async fn it_works() { .. }",
    };
    syn::Error::new_spanned(
        head,
        format!(
            "`{}` goes on an `async fn`, not on {what}: write e.g. `{example}`",
            kind.attribute()
        ),
    )
}

/// `tokens`, followed by `error` as a `compile_error!`.
fn with_error(mut tokens: TokenStream, error: syn::Error) -> TokenStream {
    tokens.extend(error.into_compile_error());
    tokens
}
