//! What one tool call carries on the wire: what the model asked for ([`ToolCall`], or a
//! borrowed [`ToolCallRef`]), what the tool produced ([`Output`]), and what goes back to
//! the model ([`ToolResult`]): text, and [`Part`]s besides (images, audio, files, links).

use std::any::Any;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, ToolError};
use crate::parts::{Audio, File, Image, Part, ResourceLink};

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
/// act on); `parts` are what the tool returned besides text (images, audio, files,
/// resource links: see [`parts`](crate::parts)), sent after the text. `error` says what
/// went wrong, for the program; its [`detail`](ToolError::detail) holds operator-only
/// information that never reaches the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool name the model used.
    pub name: String,
    /// The model-visible text.
    pub content: String,
    /// What the tool returned besides text, in order (empty for most tools, and for a
    /// failed call). Serialized with the bytes in base64; left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
    /// `Some` when the call failed. Boxed: a result is moved through every call's path,
    /// and the failure is the rarer case (a result stays within 128 bytes, which moves
    /// inline, not through `memcpy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<ToolError>>,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(call_id: impl Into<String>, name: impl Into<String>, content: impl Into<String>) -> Self {
        ToolResult {
            call_id: call_id.into(),
            name: name.into(),
            content: content.into(),
            parts: Vec::new(),
            error: None,
        }
    }

    /// A successful result with text and parts.
    pub fn with_parts(
        call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
        parts: Vec<Part>,
    ) -> Self {
        ToolResult { call_id: call_id.into(), name: name.into(), content: content.into(), parts, error: None }
    }

    /// A failed result; the content is the error's model-facing message.
    pub fn failed(call_id: impl Into<String>, name: impl Into<String>, error: ToolError) -> Self {
        ToolResult {
            call_id: call_id.into(),
            name: name.into(),
            content: error.message.clone(),
            parts: Vec::new(),
            error: Some(Box::new(error)),
        }
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// What kind of failure, if any.
    pub fn kind(&self) -> Option<ErrorKind> {
        self.error.as_deref().map(|e| e.kind)
    }

    /// The `role: "tool"` message of the OpenAI Chat Completions wire format, which has
    /// no error flag (the error is in the text; [`Message::tool`](crate::model::Message::tool)
    /// keeps the flag for the providers that take one) and takes text only: each part
    /// is named in the text (what it is, never its bytes). The model clients send parts
    /// properly; this is for code that speaks the wire format itself.
    ///
    /// ```
    /// let r = toolkit::ToolResult::ok("call_1", "now", "12:00");
    /// assert_eq!(r.to_message()["tool_call_id"], "call_1");
    /// ```
    pub fn to_message(&self) -> serde_json::Value {
        let mut content = self.content.clone();
        for part in &self.parts {
            if !content.is_empty() {
                content.push('\n');
            }
            content.push_str(&part.describe());
        }
        serde_json::json!({"role": "tool", "tool_call_id": self.call_id, "content": content})
    }
}

/// What a tool returned, ready for the model: its text, and any [`Part`]s besides
/// (images, audio, files, links). (Whether a tool's output is typed JSON is a property of
/// the tool: [`ToolSpec::output_schema`](crate::spec::ToolSpec::output_schema).)
///
/// ```
/// use toolkit::Output;
/// use toolkit::parts::File;
/// assert_eq!(Output::text("12:00").as_str(), "12:00");
/// assert_eq!(Output::json(&[1, 2]).unwrap().as_str(), "[1,2]");
/// assert_eq!(Output::unit().into_string(), "ok");
/// let report = Output::text("The report:").with_part(File::text("q3.txt", "north 120"));
/// assert_eq!(report.parts().len(), 1);
/// ```
pub struct Output {
    text: String,
    /// The raw value and the parts, in one box that a text-only output does not have:
    /// the output stays two words and a pointer on the path every call takes.
    extra: Option<Box<Extra>>,
}

/// What an output may carry besides its text.
#[derive(Default)]
struct Extra {
    raw: Option<Box<dyn Any + Send + Sync>>,
    parts: Vec<Part>,
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Output");
        d.field("text", &self.text).field("raw", &self.extra.as_ref().is_some_and(|e| e.raw.is_some()));
        if !self.parts().is_empty() {
            d.field("parts", &self.parts());
        }
        d.finish()
    }
}

/// A clone has the same text and parts and no raw value (the raw value is not `Clone`).
impl Clone for Output {
    fn clone(&self) -> Self {
        Output::text(self.text.clone()).with_parts(self.parts().iter().cloned())
    }
}

/// Outputs are equal when their texts and parts are.
impl PartialEq for Output {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.parts() == other.parts()
    }
}

/// An output with no parts equals its text.
impl PartialEq<str> for Output {
    fn eq(&self, other: &str) -> bool {
        self.parts().is_empty() && self.text == other
    }
}

/// An output with no parts equals its text.
impl PartialEq<&str> for Output {
    fn eq(&self, other: &&str) -> bool {
        self.parts().is_empty() && self.text == *other
    }
}

impl Output {
    /// Plain text, sent as is.
    #[inline]
    pub fn text(text: impl Into<String>) -> Self {
        Output { text: text.into(), extra: None }
    }

    /// A value sent as JSON text.
    #[inline]
    pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<Self, ToolError> {
        match serde_json::to_string(value) {
            Ok(text) => Ok(Output { text, extra: None }),
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
        Output { text: String::from("ok"), extra: None }
    }

    /// Keeps the typed value the text was made from, for after hooks
    /// ([`AfterCall::raw`](crate::hook::AfterCall::raw)).
    pub fn with_raw<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.extra.get_or_insert_default().raw = Some(Box::new(value));
        self
    }

    /// The typed value the text was made from, if it was kept and is a `T`.
    pub fn raw<T: Any>(&self) -> Option<&T> {
        self.extra.as_ref()?.raw.as_deref()?.downcast_ref()
    }

    /// The model-visible text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The model-visible text, owned (the parts dropped: see
    /// [`into_parts`](Output::into_parts)).
    #[inline]
    pub fn into_string(self) -> String {
        self.text
    }

    /// Parts alone, with no text: what a tool returning `Image` or `Vec<Part>` produces.
    ///
    /// ```
    /// use toolkit::Output;
    /// use toolkit::parts::{Image, Part};
    /// let out = Output::from_parts([Part::from(Image::png(&b"\x89PNG\r\n\x1a\n"[..]))]);
    /// assert_eq!((out.as_str(), out.parts().len()), ("", 1));
    /// ```
    pub fn from_parts(parts: impl IntoIterator<Item = Part>) -> Self {
        Output::text(String::new()).with_parts(parts)
    }

    /// With one more part after the others.
    pub fn with_part(mut self, part: impl Into<Part>) -> Self {
        self.extra.get_or_insert_default().parts.push(part.into());
        self
    }

    /// The parts besides the text, in order.
    #[inline]
    pub fn parts(&self) -> &[Part] {
        match &self.extra {
            Some(extra) => &extra.parts,
            None => &[],
        }
    }

    /// The text and the parts, owned.
    #[inline]
    pub fn into_parts(self) -> (String, Vec<Part>) {
        match self.extra {
            Some(extra) => (self.text, extra.parts),
            None => (self.text, Vec::new()),
        }
    }

    /// With these parts after the others.
    pub fn with_parts(mut self, parts: impl IntoIterator<Item = Part>) -> Self {
        let mut parts = parts.into_iter().peekable();
        if parts.peek().is_some() {
            self.extra.get_or_insert_default().parts.extend(parts);
        }
        self
    }

    /// Replaces the text, keeping the parts (an after hook's rewrite).
    #[inline]
    pub(crate) fn set_text(&mut self, text: String) {
        self.text = text;
    }

    /// Replaces the parts (an after hook's rewrite).
    #[inline]
    pub(crate) fn set_parts(&mut self, parts: Vec<Part>) {
        match &mut self.extra {
            Some(extra) => extra.parts = parts,
            None if parts.is_empty() => {}
            None => self.extra = Some(Box::new(Extra { raw: None, parts })),
        }
    }
}

/// [`check_result`](crate::parts::check_result) of a tool's result, passed through: one comparison for a text-only
/// result within the limit.
#[inline]
pub(crate) fn checked(result: Result<Output, ToolError>, max: usize) -> Result<Output, ToolError> {
    match result {
        Ok(output) if output.parts().is_empty() && output.as_str().len() <= max => Ok(output),
        Ok(output) => match crate::parts::check_result(output.as_str(), output.parts(), max) {
            Ok(()) => Ok(output),
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// What a tool may return to be sent as text and parts: [`Output`], each
/// part type, [`Part`] and `Vec<Part>`. `#[tool]` uses it for a function returning one of
/// them (by name, as it knows `String`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output: it is not `toolkit::Output` nor one of the types of `toolkit::parts`",
    label = "not text and parts",
    note = "return `toolkit::Output`, a part (`Image`, `Audio`, `File`, `ResourceLink`, `Part`) or `Vec<Part>`; or a type that implements `serde::Serialize`, under another name"
)]
pub trait IntoOutput {
    /// The output: parts alone, or the `Output` as it is.
    fn into_output(self) -> Output;
}

impl IntoOutput for Output {
    #[inline]
    fn into_output(self) -> Output {
        self
    }
}

impl IntoOutput for Vec<Part> {
    fn into_output(self) -> Output {
        Output::from_parts(self)
    }
}

macro_rules! into_output {
    ($($t:ty),*) => {$(
        impl IntoOutput for $t {
            fn into_output(self) -> Output {
                Output::from_parts([Part::from(self)])
            }
        }

        impl From<$t> for Output {
            fn from(part: $t) -> Self {
                part.into_output()
            }
        }
    )*};
}
into_output!(Image, Audio, File, ResourceLink, Part);

impl From<Vec<Part>> for Output {
    fn from(parts: Vec<Part>) -> Self {
        Output::from_parts(parts)
    }
}
