//! What one tool call carries on the wire: what the model asked for ([`ToolCall`], or a
//! borrowed [`ToolCallRef`]), what the tool produced ([`Output`]), and what goes back to
//! the model ([`ToolResult`]).

use std::any::Any;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, ToolError};

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
    /// Gemini's `thoughtSignature` on this call: an opaque token the model attached to
    /// it, to be sent back exactly, on the same call, with the rest of the conversation
    /// (Gemini 3 refuses the next request without it). `None` for other providers, whose
    /// clients do not send it. In a transcript ([`Message`](crate::model::Message)) it is
    /// the call's `extra_content.google.thought_signature`, as in Gemini's
    /// OpenAI-compatible API; here, and in a serialized `ToolCall`, `thought_signature`,
    /// left out when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
}

impl ToolCall {
    /// A call from its three parts (no thought signature).
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall { id: id.into(), name: name.into(), arguments: arguments.into(), thought_signature: None }
    }

    /// The call with this thought signature (see [`thought_signature`](Self::thought_signature)).
    ///
    /// ```
    /// let call = toolkit::ToolCall::new("call_1", "now", "{}").with_thought_signature("CiQB...");
    /// assert_eq!(call.thought_signature.as_deref(), Some("CiQB..."));
    /// ```
    pub fn with_thought_signature(mut self, signature: impl Into<String>) -> Self {
        self.thought_signature = Some(signature.into());
        self
    }
}

impl ToolCall {
    /// The call, borrowed.
    #[inline]
    pub fn as_ref(&self) -> ToolCallRef<'_> {
        ToolCallRef { id: &self.id, name: &self.name, arguments: &self.arguments }
    }
}

/// One call, borrowed: for callers that hold the id, the name and the arguments as
/// `&str` (a server that parsed a request, a benchmark), so that nothing is copied to
/// make a [`ToolCall`]. See [`Toolbox::call_ref`](crate::Toolbox::call_ref).
///
/// ```
/// let call = toolkit::ToolCallRef::new("call_1", "get_weather", r#"{"location":"Beijing"}"#);
/// assert_eq!(call.name, "get_weather");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolCallRef<'a> {
    /// The id the result must carry back (`tool_call_id`).
    pub id: &'a str,
    /// The name of the tool to call.
    pub name: &'a str,
    /// The arguments exactly as the model wrote them: a JSON string.
    pub arguments: &'a str,
}

impl<'a> ToolCallRef<'a> {
    /// A borrowed call from its three parts.
    #[inline]
    pub fn new(id: &'a str, name: &'a str, arguments: &'a str) -> Self {
        ToolCallRef { id, name, arguments }
    }

    /// An owned [`ToolCall`] with the same parts.
    pub fn to_owned(&self) -> ToolCall {
        ToolCall::new(self.id, self.name, self.arguments)
    }
}

/// The outcome of one call: always exactly one per [`ToolCall`], whatever happened.
///
/// `content` is the text the model sees (the tool's output, or an error message it can
/// act on). `error` says what went wrong, for the program; its
/// [`detail`](ToolError::detail) holds operator-only information that never reaches the
/// model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool name the model used.
    pub name: String,
    /// The model-visible text.
    pub content: String,
    /// `Some` when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

    /// The `role: "tool"` message of the OpenAI Chat Completions wire format, which has
    /// no error flag (the error is in the text; [`Message::tool`](crate::model::Message::tool)
    /// keeps the flag for the providers that take one).
    ///
    /// ```
    /// let r = toolkit::ToolResult::ok("call_1", "now", "12:00");
    /// assert_eq!(r.to_message()["tool_call_id"], "call_1");
    /// ```
    pub fn to_message(&self) -> serde_json::Value {
        serde_json::json!({"role": "tool", "tool_call_id": self.call_id, "content": self.content})
    }
}

/// What a tool returned, ready for the model: its text. (Whether a tool's output is
/// typed JSON is a property of the tool: [`ToolSpec::output_schema`](crate::spec::ToolSpec::output_schema).)
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
