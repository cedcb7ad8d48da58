//! `Try`: what the short-circuiting methods (`try_for_each`, `try_reduce`, `try_fold` …)
//! accept, as rayon's: a stand-in for the unstable `std::ops::Try`, implemented for
//! `Option`, `Result`, `ControlFlow` and `Poll` of those. `Some`/`Ok`/`Continue` go on,
//! `None`/`Err`/`Break` stop the call early. The module is private, so the trait can be
//! named in bounds but not implemented outside filch.

use std::convert::Infallible;
use std::ops::ControlFlow::{self, Break, Continue};
use std::task::Poll;

/// A value that either carries an output (go on) or a residual (stop early).
pub trait Try {
    /// The value carried when going on.
    type Output;
    /// What stopping carries.
    type Residual;

    /// Wraps an output.
    fn from_output(output: Self::Output) -> Self;
    /// Wraps a residual.
    fn from_residual(residual: Self::Residual) -> Self;
    /// Goes on with the output, or stops with the residual.
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = ControlFlow<B, Infallible>;

    fn from_output(output: C) -> Self {
        Continue(output)
    }

    fn from_residual(residual: Self::Residual) -> Self {
        match residual {
            Break(b) => Break(b),
        }
    }

    fn branch(self) -> ControlFlow<Self::Residual, C> {
        match self {
            Continue(c) => Continue(c),
            Break(b) => Break(Break(b)),
        }
    }
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;

    fn from_output(output: T) -> Self {
        Some(output)
    }

    fn from_residual(_: Option<Infallible>) -> Self {
        None
    }

    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(c) => Continue(c),
            None => Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;

    fn from_output(output: T) -> Self {
        Ok(output)
    }

    fn from_residual(residual: Result<Infallible, E>) -> Self {
        match residual {
            Err(e) => Err(e),
        }
    }

    fn branch(self) -> ControlFlow<Result<Infallible, E>, T> {
        match self {
            Ok(c) => Continue(c),
            Err(e) => Break(Err(e)),
        }
    }
}

impl<T, E> Try for Poll<Result<T, E>> {
    type Output = Poll<T>;
    type Residual = Result<Infallible, E>;

    fn from_output(output: Poll<T>) -> Self {
        output.map(Ok)
    }

    fn from_residual(residual: Result<Infallible, E>) -> Self {
        match residual {
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn branch(self) -> ControlFlow<Result<Infallible, E>, Poll<T>> {
        match self {
            Poll::Pending => Continue(Poll::Pending),
            Poll::Ready(Ok(c)) => Continue(Poll::Ready(c)),
            Poll::Ready(Err(e)) => Break(Err(e)),
        }
    }
}

impl<T, E> Try for Poll<Option<Result<T, E>>> {
    type Output = Poll<Option<T>>;
    type Residual = Result<Infallible, E>;

    fn from_output(output: Poll<Option<T>>) -> Self {
        output.map(|o| o.map(Ok))
    }

    fn from_residual(residual: Result<Infallible, E>) -> Self {
        match residual {
            Err(e) => Poll::Ready(Some(Err(e))),
        }
    }

    fn branch(self) -> ControlFlow<Result<Infallible, E>, Poll<Option<T>>> {
        match self {
            Poll::Pending => Continue(Poll::Pending),
            Poll::Ready(None) => Continue(Poll::Ready(None)),
            Poll::Ready(Some(Ok(c))) => Continue(Poll::Ready(Some(c))),
            Poll::Ready(Some(Err(e))) => Break(Err(e)),
        }
    }
}
