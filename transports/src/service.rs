//! What the async servers share to serve `tower` services: the boxed error services return,
//! a type-erased service (so one server holds several), and the polling of a service's
//! future that answers a panic as an error.

use std::any::Any;
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

impl<S, Req, Resp: 'static> ErasedService<Req, Resp> for S
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
        // A service whose future is already boxed this way (marshal-build's generated ones)
        // is not boxed again: one allocation a call, not two.
        let mut slot = Some(fut);
        let boxed = (&mut slot as &mut dyn Any)
            .downcast_mut::<Option<BoxFuture<Resp>>>()
            .and_then(Option::take);
        match (boxed, slot) {
            (Some(boxed), _) => boxed,
            (None, Some(fut)) => Box::pin(async move { fut.await.map_err(Into::into) }),
            // Not reached: the slot is emptied only when its future is the one returned.
            (None, None) => Box::pin(async { Err("the service's future was taken".into()) }),
        }
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

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A service whose future is already a `BoxFuture`, recording where each one lies.
    #[derive(Clone, Default)]
    struct Boxed(Arc<Mutex<Vec<usize>>>);

    impl Service<u32> for Boxed {
        type Response = u32;
        type Error = BoxError;
        type Future = BoxFuture<u32>;
        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
            Poll::Ready(Ok(()))
        }
        fn call(&mut self, req: u32) -> BoxFuture<u32> {
            let fut: BoxFuture<u32> = Box::pin(async move { Ok(req + 1) });
            let at = &*fut as *const (dyn Future<Output = Result<u32, BoxError>> + Send);
            self.0.lock().unwrap().push(at as *const () as usize);
            fut
        }
    }

    /// A service with a future of its own type and its own error type.
    #[derive(Clone)]
    struct Ready;

    impl Service<u32> for Ready {
        type Response = u32;
        type Error = std::io::Error;
        type Future = std::future::Ready<Result<u32, std::io::Error>>;
        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), std::io::Error>> {
            Poll::Ready(Ok(()))
        }
        fn call(&mut self, req: u32) -> Self::Future {
            std::future::ready(match req {
                0 => Err(std::io::Error::other("zero")),
                n => Ok(n * 2),
            })
        }
    }

    fn poll_now<T>(mut fut: BoxFuture<T>) -> Result<T, BoxError> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(out) => out,
            Poll::Pending => panic!("the future is not ready"),
        }
    }

    #[test]
    fn a_boxed_future_is_not_boxed_again() {
        let seen = Boxed::default();
        let mut erased: Box<dyn ErasedService<u32, u32>> = Box::new(seen.clone());
        let fut = erased.call(41);
        let at = &*fut as *const (dyn Future<Output = Result<u32, BoxError>> + Send);
        assert_eq!(seen.0.lock().unwrap()[..], [at as *const () as usize]);
        assert_eq!(poll_now(fut).unwrap(), 42);
    }

    #[test]
    fn other_futures_are_boxed_and_their_errors_converted() {
        let mut erased: Box<dyn ErasedService<u32, u32>> = Box::new(Ready);
        assert_eq!(poll_now(erased.call(21)).unwrap(), 42);
        let e = poll_now(erased.call(0)).unwrap_err();
        assert!(e.is::<std::io::Error>(), "{e}");
        let mut clone = erased.clone_box();
        assert_eq!(poll_now(clone.call(1)).unwrap(), 2);
    }
}
