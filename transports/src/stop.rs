//! How the async servers' tasks wait for one of two things, most often "this, unless the
//! server stops first", without `select!` (tokio's `macros` feature would pull a second
//! `syn` into the build); and how a connection winds down: its calls, then its writer,
//! within one grace period once the server stops.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use tokio::sync::{watch, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::Instant;

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

/// Waits for every one of `in_flight`'s `n` permits (every call of a connection done); once
/// the server stops, only until `grace` after that, the deadline it returns.
pub(crate) async fn drain(
    in_flight: &Semaphore,
    n: u32,
    stop: &mut watch::Receiver<bool>,
    grace: Duration,
) -> Option<Instant> {
    match or_stop(stop, in_flight.acquire_many(n)).await {
        Some(_) => None,
        None => {
            let deadline = Instant::now() + grace;
            let _ = tokio::time::timeout_at(deadline, in_flight.acquire_many(n)).await;
            Some(deadline)
        }
    }
}

/// Lets a connection's writer send what is queued, and stops it if it has not ended by
/// `deadline` (the end of the grace period [`drain`] returned), or, without one, by `grace`
/// after the server stops: the calls and the sending of their replies share one grace
/// period, so the connection is closed by its end, as shutdown counts on.
pub(crate) async fn close_writer(
    mut writer: JoinHandle<()>,
    deadline: Option<Instant>,
    stop: &mut watch::Receiver<bool>,
    grace: Duration,
) {
    let deadline = match deadline {
        Some(deadline) => deadline,
        None => match race(&mut writer, stopped(stop)).await {
            Either::Left(_) => return,
            Either::Right(()) => Instant::now() + grace,
        },
    };
    if tokio::time::timeout_at(deadline, &mut writer)
        .await
        .is_err()
    {
        writer.abort();
        // Returns once the writer is dropped, and with it the connection's half of the
        // socket.
        let _ = writer.await;
    }
}
