//! What hooks decide: a before hook's [`Decision`], an error hook's [`Recovery`], the
//! [`OnFailure`] policy when a hook fails, and how a hook's return value becomes its
//! result ([`IntoHookResult`], [`HookStep`]).

use std::fmt;

use futures_util::future::BoxFuture;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::call::Output;
use crate::error::ToolError;

/// What a before hook decided.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::{Decision, Hook, Output};
///
/// /// Look a word up.
/// #[tool(read_only)]
/// fn define(word: String) -> String { format!("{word}: a word") }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let policy = Hook::before("policy", |call| match call.arguments().get("word").and_then(|w| w.as_str()) {
///     Some("password") => Decision::Block("that word is not looked up here".into()),
///     Some("hello") => Decision::Return(Output::text("hello: a greeting")),
///     _ => Decision::Continue,
/// });
/// let tools = toolbox![define].with_hook(policy);
/// let call = |w: &str| ToolCall::new("1", "define", format!(r#"{{"word": "{w}"}}"#));
/// assert_eq!(tools.call(call("rust")).await.content, "rust: a word");
/// assert_eq!(tools.call(call("password")).await.content, "blocked: that word is not looked up here");
/// assert_eq!(tools.call(call("hello")).await.content, "hello: a greeting");
/// # }
/// ```
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
    /// Do not run the call now: it waits for a decision (a person's approval, say). The
    /// tool and later before hooks do not run; the outcome is `deferred`.
    ///
    /// In an agent run, the run finishes the other calls of the turn and then pauses
    /// ([`AgentError::Paused`](crate::agent::AgentError::Paused)) with this call pending
    /// and `reason` shown to whoever decides; [`Agent::resume`](crate::agent::Agent::resume)
    /// goes on with an [`Approval`] per call, in this process or another. On resume, the
    /// call runs through every before hook again, and when a hook defers it again, the
    /// decision answers that deferral, provided the arguments are still the ones it was
    /// made for. Outside an agent the model receives ``deferred: {reason}`` as an error.
    Defer(String),
    /// Answer the call with the result an earlier attempt of this very call recorded
    /// (see [`EffectLedger`](crate::hooks::EffectLedger)): the tool and the after hooks do
    /// not run (the text is final already); the outcome is `replayed`.
    Replay(Output),
    /// End the call with this error without running the tool: error hooks see it, and
    /// the outcome is `failed` with its kind (an [`ErrorKind::InDoubt`](crate::ErrorKind::InDoubt)
    /// for a call that may already have taken effect, say).
    Fail(ToolError),
}

/// What a person decided about a call: the answer of an
/// [`Approver`](crate::hooks::Approver), or of a [`CallDecision`](crate::durable::CallDecision)
/// on a paused run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    /// Run it as it is.
    Approve,
    /// Run it with these arguments instead (a JSON object; if it does not fit the tool,
    /// the call fails with the argument error the model would get).
    ApproveWith(Map<String, Value>),
    /// Do not run it; the model hears ``blocked: the user rejected this call: {message}``.
    Reject(String),
}

/// A decision on a deferred call, as a resumed run carries it: what was decided, for
/// which arguments (their `arguments_digest`).
#[derive(Debug, Clone)]
pub(crate) struct Decided {
    pub(crate) digest: String,
    pub(crate) approval: Approval,
}

impl Approval {
    /// What a hook does with this answer: go on (with the edited arguments put in
    /// place by the caller), or block with the text the model hears.
    pub(crate) fn rejection(&self) -> Option<String> {
        match self {
            Approval::Reject(message) if message.trim().is_empty() => Some("the user rejected this call".to_owned()),
            Approval::Reject(message) => Some(format!("the user rejected this call: {message}")),
            _ => None,
        }
    }
}

/// What an error hook decided.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::{Hook, Recovery};
///
/// /// Read a file.
/// #[tool(read_only)]
/// fn read(path: String) -> Result<String, std::io::Error> { std::fs::read_to_string(path) }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let friendly = Hook::error("friendly", |err| {
///     if err.error().message.contains("No such file") {
///         Recovery::Message("there is no such file; list the directory first".into())
///     } else {
///         Recovery::Propagate
///     }
/// });
/// let tools = toolbox![read].with_hook(friendly);
/// let r = tools.call(ToolCall::new("1", "read", r#"{"path": "/no/such/file"}"#)).await;
/// assert_eq!(r.content, "there is no such file; list the directory first");
/// # }
/// ```
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
/// only learns that the policy check failed, unless the error is
/// [`for_model`](HookError::for_model).
///
/// To turn a call down with a reason the model should act on, a before hook returns
/// [`Decision::Block`]: that is a decision, not a failure. `HookError::for_model` is for
/// a hook whose check *failed* in a way the model can fix (a validation it could not
/// complete because of the arguments): under a blocking failure policy, the model reads
/// ``blocked: {message}`` instead of ``blocked: policy check `{hook}` failed``; the
/// record still marks the hook as failed.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::{Hook, HookError};
///
/// /// Send an e-mail.
/// #[tool]
/// fn send(to: String) -> String { format!("sent to {to}") }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let check = Hook::before("check_address", |call| {
///     let to = call.arguments().get("to").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
///     if to.contains('@') { Ok(()) } else { Err(HookError::for_model(format!("`{to}` is not an e-mail address; ask the user for one"))) }
/// });
/// let tools = toolbox![send].with_hook(check);
/// let r = tools.call(ToolCall::new("1", "send", r#"{"to": "bob"}"#)).await;
/// assert_eq!(r.content, "blocked: `bob` is not an e-mail address; ask the user for one");
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError {
    message: String,
    for_model: bool,
}

impl HookError {
    /// A failure with this description.
    pub fn new(message: impl fmt::Display) -> Self {
        HookError { message: message.to_string(), for_model: false }
    }

    /// A failure whose message the model reads when the hook's policy blocks the call.
    pub fn for_model(message: impl fmt::Display) -> Self {
        HookError { message: message.to_string(), for_model: true }
    }

    /// The description.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the model reads the message.
    pub fn is_for_model(&self) -> bool {
        self.for_model
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
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

impl<T, R: IntoHookResult<T>, E: fmt::Display + 'static> IntoHookResult<T> for Result<R, E> {
    fn into_hook_result(self) -> Result<T, HookError> {
        match self {
            Ok(r) => r.into_hook_result(),
            // A `HookError` stays what it is (`for_model` included).
            Err(e) => match (&e as &dyn std::any::Any).downcast_ref::<HookError>() {
                Some(error) => Err(error.clone()),
                None => Err(HookError::new(e)),
            },
        }
    }
}
