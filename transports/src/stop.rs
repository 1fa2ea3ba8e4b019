//! How the async servers' tasks wait for one of two things, most often "this, unless the
//! server stops first", without `select!` (tokio's `macros` feature would pull a second
//! `syn` into the build).

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::Poll;

use tokio::sync::watch;

/// One of two futures' outputs.
pub(crate) enum Either<A, B> {
    Left(A),
    Right(B),
}

/// Whichever of `a` and `b` completes first (`a` when both are ready).
pub(crate) async fn race<A: Future, B: Future>(a: A, b: B) -> Either<A::Output, B::Output> {
    let (mut a, mut b) = (pin!(a), pin!(b));
    poll_fn(|cx| {
        if let Poll::Ready(x) = a.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(x));
        }
        if let Poll::Ready(y) = b.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(y));
        }
        Poll::Pending
    })
    .await
}

/// Completes when the server stops (its flag is set, or its handle is gone).
pub(crate) async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// `f`'s output, unless the server stops first (`None`).
pub(crate) async fn or_stop<F: Future>(
    stop: &mut watch::Receiver<bool>,
    f: F,
) -> Option<F::Output> {
    match race(stopped(stop), f).await {
        Either::Left(()) => None,
        Either::Right(out) => Some(out),
    }
}
