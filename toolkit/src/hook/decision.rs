//! What hooks decide: a before hook's [`Decision`], an error hook's [`Recovery`], the
//! [`OnFailure`] policy when a hook fails, and how a hook's return value becomes its
//! result ([`IntoHookResult`], [`HookStep`]).

use std::fmt;

use futures_util::future::BoxFuture;

use crate::call::Output;

/// What a before hook decided.
#[derive(Debug)]
#[non_exhaustive]
pub enum Decision {
    /// Go on: the next hook, then the tool.
    Continue,
    /// Stop the call. The model receives `blocked: {reason}`; later before hooks and the
    /// tool do not run.
    Block(String),
    /// Answer the call with this output without running the tool (a cache hit). After
    /// hooks still run; the outcome is `cached`.
    Return(Output),
}

/// What an error hook decided.
#[derive(Debug)]
#[non_exhaustive]
pub enum Recovery {
    /// Replace the model-visible text of the failure (the outcome is `recovered`).
    Message(String),
    /// Run the call again (attempt + 1). Honoured only for tools declared `read_only` or
    /// `idempotent`, and at most [`Limits::max_retries`](crate::Limits::max_retries)
    /// times; otherwise it counts as [`Propagate`](Recovery::Propagate).
    Retry,
    /// Leave the failure as it is for the next error hook.
    Propagate,
}

/// When a hook fails (returns an error, panics, or overruns its timeout): block the call
/// (fail closed) or carry on as if the hook had not run (fail open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// Block the call with ``blocked: policy check `{hook}` failed``.
    Block,
    /// Log the failure and leave the call unchanged.
    Continue,
}

/// Why a hook failed: operator detail, logged and put in the call record; the model
/// only learns that the policy check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError(String);

impl HookError {
    /// A failure with this description.
    pub fn new(message: impl fmt::Display) -> Self {
        HookError(message.to_string())
    }

    /// The description.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HookError {}

/// The result of starting a hook: known at once (a sync hook, no allocation), or a
/// future to await (an async hook).
pub enum HookStep<'a, T> {
    /// The hook has finished.
    Ready(Result<T, HookError>),
    /// The hook is running.
    Pending(BoxFuture<'a, Result<T, HookError>>),
}

impl<T> HookStep<'_, T> {
    /// A finished step.
    pub fn ready(value: impl IntoHookResult<T>) -> Self {
        HookStep::Ready(value.into_hook_result())
    }
}

/// What a hook function may return: the value itself, `()` (meaning "no change"), or a
/// `Result` whose error (any `Display`) makes the hook fail.
pub trait IntoHookResult<T> {
    /// Converts to the hook's result.
    fn into_hook_result(self) -> Result<T, HookError>;
}

impl IntoHookResult<Decision> for Decision {
    fn into_hook_result(self) -> Result<Decision, HookError> {
        Ok(self)
    }
}

impl IntoHookResult<Decision> for () {
    fn into_hook_result(self) -> Result<Decision, HookError> {
        Ok(Decision::Continue)
    }
}

impl IntoHookResult<Recovery> for Recovery {
    fn into_hook_result(self) -> Result<Recovery, HookError> {
        Ok(self)
    }
}

impl IntoHookResult<Recovery> for () {
    fn into_hook_result(self) -> Result<Recovery, HookError> {
        Ok(Recovery::Propagate)
    }
}

impl IntoHookResult<()> for () {
    fn into_hook_result(self) -> Result<(), HookError> {
        Ok(())
    }
}

impl<T, R: IntoHookResult<T>, E: fmt::Display> IntoHookResult<T> for Result<R, E> {
    fn into_hook_result(self) -> Result<T, HookError> {
        match self {
            Ok(r) => r.into_hook_result(),
            Err(e) => Err(HookError::new(e)),
        }
    }
}
