//! The arguments inside the attribute's parentheses, as in
//! `#[filch::test(worker_threads = 2)]`.
//!
//! Both macros take `worker_threads = N`, a positive integer literal. `#[filch::test]` also
//! takes `start_paused = true` (or `false`), which starts the test with its executor's clock
//! paused (filch's `test-util` feature; without it, the expansion is a compile error that
//! says to turn it on, `expand.rs`). Every other argument is an error naming the ones there
//! are. Each error is spanned on the argument at fault.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, Meta, Token};

/// Which attribute is being expanded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `#[filch::main]`: the executor has the builder's default number of workers.
    Main,
    /// `#[filch::test]`: the function becomes a `#[test]`, on one worker by default.
    Test,
}

impl Kind {
    /// The attribute as the user writes it, for messages.
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Kind::Main => "#[filch::main]",
            Kind::Test => "#[filch::test]",
        }
    }

    /// The arguments this attribute knows, for the message about an unknown one.
    fn known(self) -> &'static str {
        match self {
            Kind::Main => "the only argument is `worker_threads = N`",
            Kind::Test => "the arguments are `worker_threads = N` and `start_paused = true`",
        }
    }
}

/// What the arguments asked for.
#[derive(Clone, Copy, Default)]
pub(crate) struct Config {
    /// `worker_threads = N`, at least 1; `None` when not given.
    pub(crate) worker_threads: Option<usize>,
    /// `start_paused = true` or `false`, with the span of the value; `None` when not given.
    pub(crate) start_paused: Option<(bool, Span)>,
}

/// Reads the attribute's arguments. The error, if any, holds every problem found.
pub(crate) fn parse(kind: Kind, args: TokenStream) -> syn::Result<Config> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
    let mut config = Config::default();
    let mut errors = Errors::default();
    for meta in metas {
        let name = meta.path().get_ident().map(ToString::to_string);
        match (name.as_deref(), &meta) {
            (Some("worker_threads"), Meta::NameValue(nv)) => match worker_threads(&nv.value) {
                Ok(_) if config.worker_threads.is_some() => errors.push(syn::Error::new_spanned(
                    &meta,
                    "`worker_threads` is given twice: keep one",
                )),
                Ok(n) => config.worker_threads = Some(n),
                Err(e) => errors.push(e),
            },
            (Some("start_paused"), Meta::NameValue(nv)) if kind == Kind::Test => {
                match start_paused(&nv.value) {
                    Ok(_) if config.start_paused.is_some() => errors.push(syn::Error::new_spanned(
                        &meta,
                        "`start_paused` is given twice: keep one",
                    )),
                    Ok(paused) => config.start_paused = Some(paused),
                    Err(e) => errors.push(e),
                }
            }
            (Some(name @ "worker_threads"), _) => errors.push(syn::Error::new_spanned(
                &meta,
                format!("`{name}` needs a value: write `{name} = 2` for two worker threads"),
            )),
            (Some(name @ "start_paused"), _) if kind == Kind::Test => {
                errors.push(syn::Error::new_spanned(
                    &meta,
                    format!("`{name}` needs a value, as in `{name} = true`"),
                ))
            }
            _ => {
                let path = &meta.path();
                let shown = quote::quote!(#path).to_string().replace(' ', "");
                errors.push(syn::Error::new_spanned(
                    &meta,
                    format!(
                        "unknown argument `{shown}` of `{}`: {}",
                        kind.attribute(),
                        kind.known()
                    ),
                ))
            }
        }
    }
    errors.into_result(config)
}

/// The value of `worker_threads = N`: an integer literal of at least 1.
fn worker_threads(value: &Expr) -> syn::Result<usize> {
    let Expr::Lit(ExprLit {
        lit: Lit::Int(int), ..
    }) = value
    else {
        return Err(syn::Error::new_spanned(
            value,
            "`worker_threads` takes an integer literal, the number of worker threads: \
             write e.g. `worker_threads = 4`",
        ));
    };
    match int.base10_parse::<usize>() {
        Ok(0) => Err(syn::Error::new_spanned(
            int,
            "`worker_threads = 0` leaves no thread to run the body: give at least 1, or leave \
             `worker_threads` out for the default",
        )),
        Ok(n) => Ok(n),
        Err(e) => Err(syn::Error::new_spanned(
            int,
            format!("`worker_threads` must be a number of threads that fits a `usize`: {e}"),
        )),
    }
}

/// The value of `start_paused = ...`: a boolean literal, with its span.
fn start_paused(value: &Expr) -> syn::Result<(bool, Span)> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok((b.value, b.span)),
        _ => Err(syn::Error::new_spanned(
            value,
            "`start_paused` takes `true` or `false`: write `start_paused = true` to start the \
             test with the clock paused",
        )),
    }
}

/// Every error found, reported together.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub(crate) fn into_result<T>(self, value: T) -> syn::Result<T> {
        match self.0 {
            Some(error) => Err(error),
            None => Ok(value),
        }
    }
}
