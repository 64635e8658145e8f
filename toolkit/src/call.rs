//! Wire types of one tool call: what the model asked for ([`ToolCall`]), what it gets
//! back ([`ToolResult`]), and why a call failed ([`ToolError`], [`ErrorKind`]).

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::tool::ToolSpec;

/// One call the model proposed: the `tool_calls[i]` of an assistant message.
///
/// ```
/// let call = toolkit::ToolCall::new("call_1", "get_weather", r#"{"location":"Beijing"}"#);
/// assert_eq!(call.name, "get_weather");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id the result must carry back (`tool_call_id`).
    pub id: String,
    /// The name of the tool to call.
    pub name: String,
    /// The arguments exactly as the model wrote them: a JSON string.
    pub arguments: String,
}

impl ToolCall {
    /// A call from its three parts.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall { id: id.into(), name: name.into(), arguments: arguments.into() }
    }
}

/// The outcome of one call: always exactly one per [`ToolCall`], whatever happened.
///
/// `content` is the text the model sees (the tool's output, or an error message it can
/// act on). `error` says what went wrong, for the program; its
/// [`detail`](ToolError::detail) holds operator-only information that never reaches the
/// model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool name the model used.
    pub name: String,
    /// The model-visible text.
    pub content: String,
    /// `Some` when the call failed.
    pub error: Option<ToolError>,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(call_id: impl Into<String>, name: impl Into<String>, content: impl Into<String>) -> Self {
        ToolResult { call_id: call_id.into(), name: name.into(), content: content.into(), error: None }
    }

    /// A failed result; the content is the error's model-facing message.
    pub fn failed(call_id: impl Into<String>, name: impl Into<String>, error: ToolError) -> Self {
        ToolResult { call_id: call_id.into(), name: name.into(), content: error.message.clone(), error: Some(error) }
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// What kind of failure, if any.
    pub fn kind(&self) -> Option<ErrorKind> {
        self.error.as_ref().map(|e| e.kind)
    }

    /// The `role: "tool"` message of the OpenAI Chat Completions wire format.
    ///
    /// ```
    /// let r = toolkit::ToolResult::ok("call_1", "now", "12:00");
    /// assert_eq!(r.to_message()["tool_call_id"], "call_1");
    /// ```
    pub fn to_message(&self) -> serde_json::Value {
        serde_json::json!({"role": "tool", "tool_call_id": self.call_id, "content": self.content})
    }
}

/// What went wrong with a call, for programs to branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// No tool by that name.
    UnknownTool,
    /// The arguments string was empty (and the tool takes arguments).
    EmptyArguments,
    /// The arguments string exceeded the toolbox's size limit.
    ArgumentsTooLarge,
    /// The arguments were not valid JSON.
    MalformedJson,
    /// The arguments were valid JSON but not an object.
    NotAnObject,
    /// A required field was missing.
    MissingField,
    /// A field the tool does not take.
    UnknownField,
    /// A field had the wrong JSON type.
    InvalidType,
    /// A field had the right type but a value the tool does not accept (an unknown enum
    /// variant, a number out of the type's range, a duplicate field).
    InvalidValue,
    /// A declared constraint (`minimum`, `max_length`, `pattern`, ...) was violated.
    ConstraintViolation,
    /// The tool ran and returned an error.
    ToolFailed,
    /// The tool panicked.
    Panicked,
    /// The tool did not finish within its timeout.
    TimedOut,
    /// The toolbox is misconfigured (for example, a tool's `#[state]` was never
    /// provided). The model is told the tool is unavailable.
    Unavailable,
    /// A hook blocked the call (a before hook's `Decision::Block`, or a hook that failed
    /// under the `block` policy). The model is told why.
    Blocked,
}

impl ErrorKind {
    /// The snake_case name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::EmptyArguments => "empty_arguments",
            ErrorKind::ArgumentsTooLarge => "arguments_too_large",
            ErrorKind::MalformedJson => "malformed_json",
            ErrorKind::NotAnObject => "not_an_object",
            ErrorKind::MissingField => "missing_field",
            ErrorKind::UnknownField => "unknown_field",
            ErrorKind::InvalidType => "invalid_type",
            ErrorKind::InvalidValue => "invalid_value",
            ErrorKind::ConstraintViolation => "constraint_violation",
            ErrorKind::ToolFailed => "tool_failed",
            ErrorKind::Panicked => "panicked",
            ErrorKind::TimedOut => "timed_out",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Blocked => "blocked",
        }
    }

    /// Whether the model sent arguments the tool cannot take (it can fix them and retry).
    pub fn is_argument_error(self) -> bool {
        matches!(
            self,
            ErrorKind::EmptyArguments
                | ErrorKind::ArgumentsTooLarge
                | ErrorKind::MalformedJson
                | ErrorKind::NotAnObject
                | ErrorKind::MissingField
                | ErrorKind::UnknownField
                | ErrorKind::InvalidType
                | ErrorKind::InvalidValue
                | ErrorKind::ConstraintViolation
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a call failed: a kind, a message for the model, and detail for the operator.
///
/// ```
/// use toolkit::{ErrorKind, ToolError};
/// let e = ToolError::new(ErrorKind::ToolFailed, "file not found: report.md")
///     .with_detail("os error 2");
/// assert_eq!(e.to_string(), "file not found: report.md");
/// assert_eq!(e.detail.as_deref(), Some("os error 2"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// What the model is told: what was wrong, where, and what is expected.
    pub message: String,
    /// Operator-only detail (source error chain, parser position, panic payload); never
    /// shown to the model.
    pub detail: Option<String>,
}

impl ToolError {
    /// An error with a kind and a model-facing message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolError { kind, message: message.into(), detail: None }
    }

    /// Adds operator-only detail.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

/// A broken argument constraint, reported by [`Validate`](crate::Validate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The parameter's wire name.
    pub field: &'static str,
    /// The rule, as the model should read it (`must be at most 20 (got 50)`).
    pub rule: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {}", self.field, self.rule)
    }
}

/// What a tool returned, ready for the model: its text. (Whether a tool's output is
/// typed JSON is a property of the tool: [`ToolSpec::output_schema`].)
///
/// ```
/// use toolkit::Output;
/// assert_eq!(Output::text("12:00").as_str(), "12:00");
/// assert_eq!(Output::json(&[1, 2]).unwrap().as_str(), "[1,2]");
/// assert_eq!(Output::unit().into_string(), "ok");
/// ```
pub struct Output {
    text: String,
    raw: Option<Box<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Output").field("text", &self.text).field("raw", &self.raw.is_some()).finish()
    }
}

/// A clone has the same text and no raw value (the raw value is not `Clone`).
impl Clone for Output {
    fn clone(&self) -> Self {
        Output { text: self.text.clone(), raw: None }
    }
}

/// Outputs are equal when their texts are.
impl PartialEq for Output {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Output {}

impl Output {
    /// Plain text, sent as is.
    #[inline]
    pub fn text(text: impl Into<String>) -> Self {
        Output { text: text.into(), raw: None }
    }

    /// A value sent as JSON text.
    #[inline]
    pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<Self, ToolError> {
        match serde_json::to_string(value) {
            Ok(text) => Ok(Output { text, raw: None }),
            Err(e) => Err(ToolError::new(
                ErrorKind::ToolFailed,
                "the tool produced a result that could not be encoded as JSON",
            )
            .with_detail(e.to_string())),
        }
    }

    /// The output of a tool that returns `()`.
    #[inline]
    pub fn unit() -> Self {
        Output { text: String::from("ok"), raw: None }
    }

    /// Keeps the typed value the text was made from, for after hooks
    /// ([`AfterCall::raw`](crate::hook::AfterCall::raw)).
    pub fn with_raw<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.raw = Some(Box::new(value));
        self
    }

    /// The typed value the text was made from, if it was kept and is a `T`.
    pub fn raw<T: Any>(&self) -> Option<&T> {
        self.raw.as_deref()?.downcast_ref()
    }

    /// The model-visible text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The model-visible text, owned.
    #[inline]
    pub fn into_string(self) -> String {
        self.text
    }
}

/// Shared values a toolbox hands to tools that declare a `#[state]` parameter, keyed
/// by type.
#[derive(Clone, Default)]
pub struct State {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl State {
    /// Stores a value, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// Stores a value that is already shared.
    pub fn insert_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.values.insert(TypeId::of::<T>(), value);
    }

    /// The value of type `T`, if one was stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values.get(&TypeId::of::<T>()).and_then(|v| v.downcast_ref())
    }

    /// The shared value of type `T`, if one was stored.
    pub fn get_arc<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.values.get(&TypeId::of::<T>()).cloned().and_then(|v| v.downcast().ok())
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State").field("values", &self.values.len()).finish()
    }
}

/// What a tool may know about the call it is serving. Declare a parameter
/// `#[context] cx: &CallContext` to receive it; it never appears in the schema.
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Say which call this is.
/// #[tool]
/// fn whoami(#[context] cx: &CallContext<'_>) -> String {
///     format!("{} via {}", cx.call_id(), cx.tool().name)
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CallContext<'a> {
    call_id: &'a str,
    spec: &'a ToolSpec,
    state: &'a State,
    keep_raw: bool,
}

impl<'a> CallContext<'a> {
    /// A context for one call.
    #[inline]
    pub fn new(call_id: &'a str, spec: &'a ToolSpec, state: &'a State) -> Self {
        CallContext { call_id, spec, state, keep_raw: false }
    }

    /// Asks the tool to keep its typed return value in the [`Output`] (an after hook
    /// will read it).
    #[doc(hidden)]
    #[inline]
    pub fn keeping_raw(mut self, keep: bool) -> Self {
        self.keep_raw = keep;
        self
    }

    /// Whether an after hook will read the typed return value
    /// ([`Output::with_raw`]); generated code keeps it only then.
    #[doc(hidden)]
    #[inline]
    pub fn keeps_raw(&self) -> bool {
        self.keep_raw
    }

    /// The id of the call (`tool_call_id`).
    pub fn call_id(&self) -> &'a str {
        self.call_id
    }

    /// The spec of the tool being called.
    pub fn tool(&self) -> &'a ToolSpec {
        self.spec
    }

    /// The toolbox's shared state.
    pub fn state(&self) -> &'a State {
        self.state
    }
}

/// How a call ended, as its [`CallRecord`] tells it.
///
/// ```
/// use toolkit::{ErrorKind, Outcome};
/// assert_eq!(Outcome::Failed(ErrorKind::TimedOut).to_string(), "failed(timed_out)");
/// assert_eq!(Outcome::Cached.to_string(), "cached");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The tool ran and returned its output.
    Ok,
    /// A hook blocked the call; the model was told why.
    Blocked,
    /// A before hook answered the call without running the tool (a cache hit).
    Cached,
    /// The call failed; the kind says why.
    Failed(ErrorKind),
    /// The call failed and an error hook replaced the message the model sees.
    Recovered(ErrorKind),
    /// The caller stopped waiting (its future was dropped: an MCP client cancelled, an
    /// agent run was abandoned) before the call ended; nothing reached the model.
    Cancelled,
}

impl Outcome {
    /// `ok`, `blocked`, `cached`, `failed`, `recovered` or `cancelled`, without the kind.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Blocked => "blocked",
            Outcome::Cached => "cached",
            Outcome::Failed(_) => "failed",
            Outcome::Recovered(_) => "recovered",
            Outcome::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Failed(kind) | Outcome::Recovered(kind) => write!(f, "{}({kind})", self.label()),
            _ => f.write_str(self.label()),
        }
    }
}

/// What a hook did to a call, as its [`CallRecord`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Effect {
    /// Rewrote the arguments (before) or the model-visible text (after). A hook that
    /// asked for mutable access counts, whether or not it changed anything.
    Rewrote,
    /// Blocked the call.
    Blocked,
    /// Answered the call without the tool (`Decision::Return`).
    Returned,
    /// Replaced the failure's message (`Recovery::Message`).
    Recovered,
    /// Asked for a retry that was run.
    Retried,
    /// Failed (error, panic or timeout); its policy was applied.
    Failed,
}

/// One hook that acted on a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookAction {
    /// The hook's name.
    pub hook: Cow<'static, str>,
    /// The event it acted on.
    pub event: crate::hook::Event,
    /// What it did.
    pub effect: Effect,
    /// Operator detail (why it failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One call after the fact: what the model asked for, what it got back, which hooks
/// acted, and how long it took. A toolbox with [`RecordSink`]s delivers exactly one record
/// per call, whatever happened to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CallRecord {
    /// The call's id (`tool_call_id`).
    pub call_id: String,
    /// The tool name the model used.
    pub tool: String,
    /// The arguments exactly as the model sent them.
    pub arguments: String,
    /// The arguments the tool ran with, as JSON, when a before hook had write access to
    /// them (`None`: the tool ran with [`arguments`](CallRecord::arguments)).
    pub rewritten_arguments: Option<String>,
    /// How the call ended.
    pub outcome: Outcome,
    /// The model-visible text of the result.
    pub content: String,
    /// Operator-only detail of a failure, if any.
    pub detail: Option<String>,
    /// The hooks that acted, in order.
    pub hooks: Vec<HookAction>,
    /// The agent label of the call's scope.
    pub agent: Option<Arc<str>>,
    /// The task label.
    pub task: Option<Arc<str>>,
    /// The session label.
    pub session: Option<Arc<str>>,
    /// How many times the tool was attempted (more than 1 after retries).
    pub attempts: u32,
    /// When the call started.
    pub started_at: SystemTime,
    /// How long the whole call took: parsing, hooks, tool.
    pub duration: Duration,
    /// How long the tool itself ran (its last attempt), if it ran.
    pub tool_duration: Option<Duration>,
}

impl CallRecord {
    /// The arguments the tool ran with: the rewritten ones if a hook had them, else as
    /// sent.
    pub fn effective_arguments(&self) -> &str {
        self.rewritten_arguments.as_deref().unwrap_or(&self.arguments)
    }
}

/// Receives every [`CallRecord`] of a toolbox (see [`Toolbox::with_sink`](crate::Toolbox::with_sink)).
///
/// Called on the calling task once the result is known, so it must be quick: a sink that
/// does I/O hands the record to a queue. A sink that panics is isolated: the call's result
/// and the other sinks are unaffected. Closures `Fn(&CallRecord)` are sinks.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolkit::{CallRecord, Toolbox};
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let tools = Toolbox::new().with_sink(move |r: &CallRecord| log.lock().unwrap().push(r.outcome));
/// # drop(tools);
/// ```
pub trait RecordSink: Send + Sync + 'static {
    /// Takes one record.
    fn record(&self, record: &CallRecord);

    /// Takes one record the toolbox shares with its other sinks: a sink that keeps the
    /// record (to hand it to another thread) overrides this and keeps the `Arc` instead
    /// of copying. Defaults to [`record`](RecordSink::record).
    fn record_shared(&self, record: &Arc<CallRecord>) {
        self.record(record)
    }
}

impl<F: Fn(&CallRecord) + Send + Sync + 'static> RecordSink for F {
    fn record(&self, record: &CallRecord) {
        self(record)
    }
}
