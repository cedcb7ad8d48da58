//! The arguments inside the attribute's parentheses, as in
//! `#[filch::test(worker_threads = 2)]`.
//!
//! Both macros take `worker_threads = N`, a positive integer literal; `flavor =
//! "multi_thread"` (one worker per CPU unless `worker_threads` says otherwise) or `flavor =
//! "current_thread"` (one worker; `worker_threads` beside it is an error), as tokio's;
//! `crate = "path"`, the path filch is reached by (a re-export, `"my::filch"`); and
//! `start_paused = true` (or `false`), which starts the body with its executor's clock
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
        "the arguments are `worker_threads = N`, `flavor = \"multi_thread\"` or \
         `flavor = \"current_thread\"`, `start_paused = true` and `crate = \"path\"`"
    }
}

/// tokio's runtime flavors, as filch reads them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `"multi_thread"`: one worker per CPU, unless `worker_threads` says otherwise.
    MultiThread,
    /// `"current_thread"`: one worker.
    CurrentThread,
}

/// What the arguments asked for.
#[derive(Clone, Default)]
pub(crate) struct Config {
    /// `worker_threads = N`, at least 1; `None` when not given.
    pub(crate) worker_threads: Option<usize>,
    /// `start_paused = true` or `false`, with the span of the value; `None` when not given.
    pub(crate) start_paused: Option<(bool, Span)>,
    /// `flavor = "..."`; `None` when not given.
    pub(crate) flavor: Option<Flavor>,
    /// `crate = "path"`: how the expansion names filch; `None`: `::filch`.
    pub(crate) crate_path: Option<syn::Path>,
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
            (Some("flavor"), Meta::NameValue(nv)) => match flavor(&nv.value) {
                Ok(_) if config.flavor.is_some() => errors.push(syn::Error::new_spanned(
                    &meta,
                    "`flavor` is given twice: keep one",
                )),
                Ok(f) => config.flavor = Some(f),
                Err(e) => errors.push(e),
            },
            (Some("crate"), Meta::NameValue(nv)) => match crate_path(&nv.value) {
                Ok(_) if config.crate_path.is_some() => errors.push(syn::Error::new_spanned(
                    &meta,
                    "`crate` is given twice: keep one",
                )),
                Ok(path) => config.crate_path = Some(path),
                Err(e) => errors.push(e),
            },
            (Some("start_paused"), Meta::NameValue(nv)) => match start_paused(&nv.value) {
                Ok(_) if config.start_paused.is_some() => errors.push(syn::Error::new_spanned(
                    &meta,
                    "`start_paused` is given twice: keep one",
                )),
                Ok(paused) => config.start_paused = Some(paused),
                Err(e) => errors.push(e),
            },
            (Some(name @ "worker_threads"), _) => errors.push(syn::Error::new_spanned(
                &meta,
                format!("`{name}` needs a value: write `{name} = 2` for two worker threads"),
            )),
            (Some(name @ "start_paused"), _) => errors.push(syn::Error::new_spanned(
                &meta,
                format!("`{name}` needs a value, as in `{name} = true`"),
            )),
            (Some(name @ "flavor"), _) => errors.push(syn::Error::new_spanned(
                &meta,
                format!("`{name}` needs a value, as in `{name} = \"multi_thread\"`"),
            )),
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
    if let (Some(Flavor::CurrentThread), Some(_)) = (config.flavor, config.worker_threads) {
        errors.push(syn::Error::new(
            Span::call_site(),
            "`worker_threads` does not go with `flavor = \"current_thread\"` (one worker): \
             remove one of them, or write `flavor = \"multi_thread\"`",
        ));
    }
    errors.into_result(config)
}

/// The value of `flavor = "..."`.
fn flavor(value: &Expr) -> syn::Result<Flavor> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.value().as_str() {
            "multi_thread" => Ok(Flavor::MultiThread),
            "current_thread" => Ok(Flavor::CurrentThread),
            other => Err(syn::Error::new_spanned(
                s,
                format!(
                    "unknown flavor `{other}`: write `flavor = \"multi_thread\"` (one worker per \
                     CPU) or `flavor = \"current_thread\"` (one worker)"
                ),
            )),
        },
        _ => Err(syn::Error::new_spanned(
            value,
            "`flavor` takes a string: `flavor = \"multi_thread\"` or `flavor = \"current_thread\"`",
        )),
    }
}

/// The value of `crate = "path"`: a string holding a path.
fn crate_path(value: &Expr) -> syn::Result<syn::Path> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => s.parse::<syn::Path>().map_err(|_| {
            syn::Error::new_spanned(
                s,
                format!(
                    "`crate = {:?}`: not a path; write e.g. `crate = \"my::filch\"`",
                    s.value()
                ),
            )
        }),
        _ => Err(syn::Error::new_spanned(
            value,
            "`crate` takes a string holding the path filch is reached by, as in \
             `crate = \"my::filch\"`",
        )),
    }
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
