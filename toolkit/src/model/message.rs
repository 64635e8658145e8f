//! The conversation, in the Chat Completions wire format: the one format every provider
//! of that API reads, so a transcript can be sent, stored and replayed as is (the other
//! clients translate it).
//!
//! Two things other providers need are kept beside that format, each written only when
//! present, so a transcript without them is plain Chat Completions: a failed tool call's
//! `is_error: true` on its `role: "tool"` message (Anthropic's `is_error`, Gemini's error
//! form of a function response; the Chat Completions client leaves it out), and
//! Gemini's thought signatures as `extra_content.google.thought_signature` on a tool
//! call or an assistant message (the shape of Gemini's own OpenAI-compatible API).
//!
//! A tool result's [parts](crate::parts) (images, audio, files, links) are kept on its
//! `role: "tool"` message as `parts`, their bytes in base64, written only when there are
//! some; each client sends them in its API's shape (see the table in
//! [`parts`](crate::parts#what-each-api-gets)).

use serde::{Deserialize, Serialize};

use crate::call::{ToolCall, ToolResult};

/// One message of a conversation, in the Chat Completions wire format.
///
/// ```
/// use toolkit::model::Message;
/// let m = Message::user("What time is it?");
/// assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"role":"user","content":"What time is it?"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// Instructions for the model.
    System {
        /// The instructions.
        content: String,
    },
    /// What the user said.
    User {
        /// The text.
        content: String,
    },
    /// What the model said: text, tool calls, or both.
    Assistant(AssistantMessage),
    /// The result of one tool call, paired with it by id.
    Tool {
        /// The id of the call this answers.
        tool_call_id: String,
        /// The result's text (or the error the model can act on).
        content: String,
        /// Whether the call failed (its content is then the error). Sent as Anthropic's
        /// `is_error` and as Gemini's error form of a function response; Chat Completions
        /// and the Responses API have no such flag, and their clients leave it out. On
        /// the wire here, written only when `true`.
        #[serde(default, skip_serializing_if = "is_false")]
        is_error: bool,
        /// What the result carried besides text (images, audio, files, links), in order;
        /// written only when there are some.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<crate::parts::Part>,
    },
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::System { content: content.into() }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::User { content: content.into() }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant(AssistantMessage::text(content))
    }

    /// The `role: "tool"` message for a result, flagged as an error when the call
    /// failed.
    ///
    /// ```
    /// use toolkit::model::Message;
    /// use toolkit::{ErrorKind, ToolError, ToolResult};
    /// let failed = ToolResult::failed("call_1", "now", ToolError::new(ErrorKind::ToolFailed, "no clock"));
    /// assert!(matches!(Message::tool(&failed), Message::Tool { is_error: true, .. }));
    /// let ok = Message::tool(&ToolResult::ok("call_2", "now", "12:00"));
    /// assert_eq!(serde_json::to_string(&ok).unwrap(), r#"{"role":"tool","tool_call_id":"call_2","content":"12:00"}"#);
    /// ```
    pub fn tool(result: &ToolResult) -> Self {
        Message::Tool {
            tool_call_id: result.call_id.clone(),
            content: result.content.clone(),
            is_error: result.is_error(),
            parts: result.parts.clone(),
        }
    }

    /// The text of a system, user, tool or assistant message (`None` for an assistant
    /// message with tool calls only).
    pub fn text(&self) -> Option<&str> {
        match self {
            Message::System { content } | Message::User { content } | Message::Tool { content, .. } => Some(content),
            Message::Assistant(a) => a.content.as_deref(),
        }
    }

    /// The wire role: `system`, `user`, `assistant` or `tool`.
    pub fn role(&self) -> &'static str {
        match self {
            Message::System { .. } => "system",
            Message::User { .. } => "user",
            Message::Assistant(_) => "assistant",
            Message::Tool { .. } => "tool",
        }
    }
}

impl From<&ToolResult> for Message {
    fn from(result: &ToolResult) -> Self {
        Message::tool(result)
    }
}

/// What a model said: text, tool calls, or both.
///
/// On the wire, `content` is `null` when there is no text, and `tool_calls` is left out
/// when there are none:
///
/// ```
/// use toolkit::ToolCall;
/// use toolkit::model::{AssistantMessage, Message};
/// let m = Message::Assistant(AssistantMessage::calls(vec![ToolCall::new("call_1", "now", "{}")]));
/// assert_eq!(
///     serde_json::to_string(&m).unwrap(),
///     r#"{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"now","arguments":"{}"}}]}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The text, if any.
    #[serde(default)]
    pub content: Option<String>,
    /// The tool calls, in the order the model wrote them.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "wire_calls")]
    pub tool_calls: Vec<ToolCall>,
    /// The model's refusal, when it declined to answer (OpenAI's `refusal`); `content`
    /// is then usually empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// Gemini's `thoughtSignature` on the text of the reply: an opaque token sent back,
    /// exactly, on the text part the client writes this message's text as. Gemini puts
    /// one on the last part of a reply (in a stream, on its last chunk, often with empty
    /// text); a reply with several keeps the last. A call's own signature is on the
    /// call ([`ToolCall::thought_signature`]). On the wire here:
    /// `"extra_content": {"google": {"thought_signature": "..."}}`, left out when `None`.
    #[serde(default, rename = "extra_content", skip_serializing_if = "Option::is_none", with = "google_signature")]
    pub thought_signature: Option<String>,
    /// What the provider that wrote this reply needs back exactly, for a reply that
    /// rebuilding from the text and the calls would lose: programmatic tool calling's
    /// server-side parts (Anthropic's code-execution blocks and container, OpenAI's
    /// program items). That provider's client sends them back as they came; the others
    /// ignore them (the Chat Completions client leaves the field out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo: Option<Echo>,
}

/// A reply's parts as its provider sent them, to send back unchanged
/// ([`AssistantMessage::echo`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Echo {
    /// The provider's API: `"anthropic"` (Messages content blocks) or
    /// `"openai-responses"` (Responses output items).
    pub provider: String,
    /// The blocks or items, in the order they came.
    pub items: Vec<serde_json::Value>,
    /// Anthropic's code-execution container, which the next request names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
}

impl Echo {
    /// The parts `items` of a reply from `provider`.
    pub fn new(provider: impl Into<String>, items: Vec<serde_json::Value>) -> Self {
        Echo { provider: provider.into(), items, container: None }
    }

    /// The echo of `provider`, if `echo` is one.
    #[cfg(any(feature = "anthropic", feature = "openai"))]
    pub(crate) fn of<'a>(echo: Option<&'a Echo>, provider: &str) -> Option<&'a Echo> {
        echo.filter(|e| e.provider == provider)
    }
}

impl AssistantMessage {
    /// A message with text only.
    pub fn text(content: impl Into<String>) -> Self {
        AssistantMessage { content: Some(content.into()), ..AssistantMessage::default() }
    }

    /// A message with tool calls only.
    pub fn calls(tool_calls: Vec<ToolCall>) -> Self {
        AssistantMessage { tool_calls, ..AssistantMessage::default() }
    }

    /// A refusal: the model declined to answer.
    pub fn refused(refusal: impl Into<String>) -> Self {
        AssistantMessage { refusal: Some(refusal.into()), ..AssistantMessage::default() }
    }
}

/// Gemini's signature in the shape of its OpenAI-compatible API:
/// `{"google": {"thought_signature": "..."}}` (the value of an `extra_content` field).
mod google_signature {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize, Default)]
    pub(super) struct Extra {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        google: Option<Google>,
    }

    #[derive(Serialize, Deserialize)]
    struct Google {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thought_signature: Option<String>,
    }

    impl Extra {
        pub(super) fn of(signature: Option<&str>) -> Option<Extra> {
            let thought_signature = Some(signature?.to_string());
            Some(Extra { google: Some(Google { thought_signature }) })
        }

        pub(super) fn signature(self) -> Option<String> {
            self.google?.thought_signature
        }
    }

    pub fn serialize<S: Serializer>(signature: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        Extra::of(signature.as_deref()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        Ok(Option::<Extra>::deserialize(d)?.and_then(Extra::signature))
    }
}

/// `ToolCall` in its Chat Completions shape:
/// `{"id", "type": "function", "function": {"name", "arguments"}}`, and
/// `"extra_content": {"google": {"thought_signature"}}` for a call that has one.
mod wire_calls {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::google_signature::Extra;
    use crate::call::ToolCall;

    #[derive(Serialize, Deserialize)]
    struct Wire<'a> {
        #[serde(borrow)]
        id: std::borrow::Cow<'a, str>,
        #[serde(rename = "type", default = "function")]
        kind: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        function: Function<'a>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extra_content: Option<Extra>,
    }

    #[derive(Serialize, Deserialize)]
    struct Function<'a> {
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        arguments: std::borrow::Cow<'a, str>,
    }

    fn function() -> std::borrow::Cow<'static, str> {
        "function".into()
    }

    pub fn serialize<S: Serializer>(calls: &[ToolCall], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(calls.iter().map(|c| Wire {
            id: c.id.as_str().into(),
            kind: "function".into(),
            function: Function { name: c.name.as_str().into(), arguments: c.arguments.as_str().into() },
            extra_content: Extra::of(c.thought_signature.as_deref()),
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ToolCall>, D::Error> {
        let wire = Vec::<Wire<'de>>::deserialize(d)?;
        Ok(wire
            .into_iter()
            .map(|w| ToolCall {
                thought_signature: w.extra_content.and_then(Extra::signature),
                ..ToolCall::new(w.id.into_owned(), w.function.name.into_owned(), w.function.arguments.into_owned())
            })
            .collect())
    }
}
