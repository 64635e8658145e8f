//! The conversation, in the Chat Completions wire format: the one format every provider
//! of that API reads, so a transcript can be sent, stored and replayed as is (the other
//! clients translate it).
//!
//! A failed tool call's `is_error: true` is kept beside that format on its `role: "tool"`
//! message, written only when true, so a transcript without failures is plain Chat
//! Completions: Anthropic takes it as `is_error`, Gemini as the error form of a function
//! response; the Chat Completions client leaves it out.

use serde::{Deserialize, Serialize};

use crate::{ToolCall, ToolResult};

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

/// `ToolCall` in its Chat Completions shape:
/// `{"id", "type": "function", "function": {"name", "arguments"}}`.
mod wire_calls {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::ToolCall;

    #[derive(Serialize, Deserialize)]
    struct Wire<'a> {
        #[serde(borrow)]
        id: std::borrow::Cow<'a, str>,
        #[serde(rename = "type", default = "function")]
        kind: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        function: Function<'a>,
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
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ToolCall>, D::Error> {
        let wire = Vec::<Wire<'de>>::deserialize(d)?;
        Ok(wire
            .into_iter()
            .map(|w| ToolCall::new(w.id.into_owned(), w.function.name.into_owned(), w.function.arguments.into_owned()))
            .collect())
    }
}
