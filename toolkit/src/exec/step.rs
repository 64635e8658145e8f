//! One hook step under the hook's guard: its error, its panic and an overrun of its
//! timeout are all failures, with operator detail, and never leave the call.

use std::panic::{AssertUnwindSafe, catch_unwind};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use super::guard::panic_payload;
use crate::hook::{Hook, HookError, HookStep};

/// Starts one hook step: `Ok(result)` when it finished at once, `Err(future)` when it
/// has to wait.
#[inline]
pub(crate) fn start_step<'a, T>(
    hook: &Hook,
    start: impl FnOnce() -> HookStep<'a, T>,
) -> Result<Result<T, HookError>, BoxFuture<'a, Result<T, HookError>>> {
    settle_step(hook, catch_step(start))
}

/// Runs the start of one hook step under a panic guard; [`settle_step`] says what came of
/// it (the pipeline reads the usual answer first, where it was written).
#[inline(always)]
pub(crate) fn catch_step<'a, T>(start: impl FnOnce() -> HookStep<'a, T>) -> std::thread::Result<HookStep<'a, T>> {
    catch_unwind(AssertUnwindSafe(start))
}

/// What a started hook step (see [`start_step`]) comes to: `Ok(result)` when it
/// finished, `Err(future)` when it has to wait.
#[inline]
pub(crate) fn settle_step<'a, T>(
    hook: &Hook,
    step: std::thread::Result<HookStep<'a, T>>,
) -> Result<Result<T, HookError>, BoxFuture<'a, Result<T, HookError>>> {
    match step {
        Ok(HookStep::Ready(result)) => Ok(result),
        // A hook that says it never waits may run in a call that is never polled again.
        Ok(HookStep::Pending(_)) if hook.is_sync() => {
            Ok(Err(failure("it says it is sync (`is_sync`) but returned a future")))
        }
        Ok(HookStep::Pending(fut)) => Err(fut),
        Err(payload) => Ok(Err(panicked(payload.as_ref()))),
    }
}

/// Awaits a hook's future under its guard.
pub(crate) async fn wait<T>(hook: &Hook, fut: BoxFuture<'_, Result<T, HookError>>) -> Result<T, HookError> {
    let guarded = AssertUnwindSafe(fut).catch_unwind();
    let outcome = match hook.timeout {
        None => guarded.await,
        Some(limit) => {
            // Creating the timer needs a Tokio runtime with time enabled; without one,
            // that is this hook's failure, not a crash.
            let timed = match catch_unwind(AssertUnwindSafe(|| tokio::time::timeout(limit, guarded))) {
                Ok(timed) => timed,
                Err(payload) => return Err(panicked(payload.as_ref())),
            };
            match timed.await {
                Ok(outcome) => outcome,
                Err(_) => return Err(HookError::new(format!("did not finish within {limit:?}"))),
            }
        }
    };
    match outcome {
        Ok(result) => result,
        Err(payload) => Err(panicked(payload.as_ref())),
    }
}

fn panicked(payload: &(dyn std::any::Any + Send)) -> HookError {
    HookError::new(format!(
        "panicked: {}",
        panic_payload(payload).unwrap_or_else(|| "a non-string payload".to_string())
    ))
}

/// A failure of the engine's own finding (not the hook's `Err`), off the usual path.
#[cold]
#[inline(never)]
fn failure(text: &str) -> HookError {
    HookError::new(text)
}
