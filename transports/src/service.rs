//! What the async servers share to serve `tower` services: the boxed error services return,
//! a type-erased service (so one server holds several), and the polling of a service's
//! future that answers a panic as an error.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use tower_service::Service;

/// The error type the async servers' services return: anything that converts into it.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A service's future, type-erased.
pub(crate) type BoxFuture<Resp> = Pin<Box<dyn Future<Output = Result<Resp, BoxError>> + Send>>;

/// A `tower` service of `Req`s answered with `Resp`s, type-erased.
pub(crate) trait ErasedService<Req, Resp>: Send {
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>>;
    fn call(&mut self, req: Req) -> BoxFuture<Resp>;
    fn clone_box(&self) -> Box<dyn ErasedService<Req, Resp>>;
}

impl<S, Req, Resp> ErasedService<Req, Resp> for S
where
    S: Service<Req, Response = Resp> + Clone + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Service::poll_ready(self, cx).map_err(Into::into)
    }

    fn call(&mut self, req: Req) -> BoxFuture<Resp> {
        let fut = Service::call(self, req);
        Box::pin(async move { fut.await.map_err(Into::into) })
    }

    fn clone_box(&self) -> Box<dyn ErasedService<Req, Resp>> {
        Box::new(self.clone())
    }
}

/// Polls a service's future, answering a panic as an error.
pub(crate) fn poll_caught<Resp>(
    call: &mut BoxFuture<Resp>,
    cx: &mut Context<'_>,
) -> Poll<Result<Resp, BoxError>> {
    match catch_unwind(AssertUnwindSafe(|| call.as_mut().poll(cx))) {
        Ok(polled) => polled,
        Err(_) => Poll::Ready(Err("the service panicked".into())),
    }
}

/// Calls `service` with `req`, answering a panic of the call itself (before any future
/// exists) as `None`.
pub(crate) fn call_caught<Req, Resp>(
    service: &mut dyn ErasedService<Req, Resp>,
    req: Req,
) -> Option<BoxFuture<Resp>> {
    catch_unwind(AssertUnwindSafe(|| service.call(req))).ok()
}
