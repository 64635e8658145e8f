//! The guard a tool runs under: a panic becomes an error result, and so does an overrun
//! of the tool's timeout. Compiled once: every tool's future reaches it boxed.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::call::Output;
use crate::error::{ErrorKind, ToolError};
use crate::limits::Limits;
use crate::spec::ToolSpec;

/// Runs a tool's future so that a panic or an overrun becomes an error result, and checks
/// what it returns ([`call::checked`](crate::call::checked): its parts' types, its
/// size).
///
/// One hand-written future rather than nested async blocks: a tool that finishes on its
/// first poll never touches the clock or the timer. With a timeout, the deadline counts
/// from the first poll and the timer is created only if the tool has to wait.
pub(crate) struct Guard<'s> {
    fut: BoxFuture<'s, Result<Output, ToolError>>,
    spec: &'s ToolSpec,
    limit: Option<Duration>,
    /// [`Limits::max_result_bytes`].
    max_result: usize,
    started: Option<tokio::time::Instant>,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<'s> Guard<'s> {
    #[inline]
    pub(crate) fn new(fut: BoxFuture<'s, Result<Output, ToolError>>, spec: &'s ToolSpec, limits: &Limits) -> Self {
        Guard {
            fut,
            spec,
            limit: spec.timeout.or(limits.default_timeout),
            max_result: limits.max_result_bytes,
            started: None,
            timer: None,
        }
    }
}

impl Future for Guard<'_> {
    type Output = Result<Output, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Every field is `Unpin` (the tool's future is boxed).
        let this = self.get_mut();
        let Some(limit) = this.limit else {
            return match catch_unwind(AssertUnwindSafe(|| this.fut.as_mut().poll(cx))) {
                Ok(Poll::Ready(out)) => Poll::Ready(crate::call::checked(out, this.max_result)),
                Ok(Poll::Pending) => Poll::Pending,
                Err(payload) => Poll::Ready(Err(panicked(&this.spec.name, payload.as_ref()))),
            };
        };
        // Everything that touches the timer runs under the guard too: without a Tokio
        // runtime (or with its timer disabled) creating one panics, and that must end as
        // a result, not a crash.
        let (started, timer, fut, spec, max) =
            (&mut this.started, &mut this.timer, &mut this.fut, this.spec, this.max_result);
        let polled = catch_unwind(AssertUnwindSafe(|| {
            let start = *started.get_or_insert_with(tokio::time::Instant::now);
            if let Poll::Ready(out) = fut.as_mut().poll(cx) {
                return Poll::Ready(crate::call::checked(out, max));
            }
            let timer = match timer {
                Some(timer) => timer,
                None => {
                    // A limit past what the clock can hold (`Duration::MAX` as "no
                    // limit") never fires.
                    let Some(deadline) = start.checked_add(limit) else { return Poll::Pending };
                    timer.insert(Box::pin(tokio::time::sleep_until(deadline)))
                }
            };
            match timer.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(timed_out(spec, limit))),
                Poll::Pending => Poll::Pending,
            }
        }));
        match polled {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(panicked(&spec.name, payload.as_ref()))),
        }
    }
}

/// Runs `f` (the synchronous part of a call: parsing, a sync tool, building a future)
/// so that a panic becomes the call's error instead of leaving `Toolbox::call`.
#[inline]
pub(crate) fn guarded<T>(tool: &str, f: impl FnOnce() -> Result<T, ToolError>) -> Result<T, ToolError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(panicked(tool, payload.as_ref())),
    }
}

#[cold]
pub(crate) fn timed_out(spec: &ToolSpec, limit: Duration) -> ToolError {
    ToolError::new(
        ErrorKind::TimedOut,
        format!(
            "`{}` did not finish within {:?} and was stopped; try again later, or ask for less at once",
            spec.name, limit
        ),
    )
}

/// The text of a panic's payload.
pub(crate) fn panic_payload(payload: &(dyn Any + Send)) -> Option<String> {
    payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned())
}

#[cold]
pub(crate) fn panicked(tool: &str, payload: &(dyn Any + Send)) -> ToolError {
    let detail = panic_payload(payload).unwrap_or_else(|| "a panic with a non-string payload".to_string());
    ToolError::new(
        ErrorKind::Panicked,
        format!("`{tool}` failed with an internal error (not caused by your arguments); do not retry the same call"),
    )
    .with_detail(format!("panic: {detail}"))
}

/// Runs a blocking tool body on Tokio's blocking pool.
pub async fn run_blocking<F>(tool: &'static str, f: F) -> Result<Output, ToolError>
where
    F: FnOnce() -> Result<Output, ToolError> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(outcome) => outcome,
        Err(e) if e.is_panic() => Err(panicked(tool, e.into_panic().as_ref())),
        Err(e) => {
            Err(ToolError::new(ErrorKind::Unavailable, format!("`{tool}` could not run: the runtime is shutting down"))
                .with_detail(e.to_string()))
        }
    }
}
