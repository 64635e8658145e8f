//! A Messages-API reply read into toolkit's message: the text of its `text` blocks, a
//! call per `tool_use` block, the blocks a rebuilt message would lose kept in its echo,
//! the stop reason; a typed run's `final_answer` call read as the answer. Shared by the
//! plain and the streamed reply.

use serde::Deserialize;
use serde_json::Value;

use super::http::unique;
use super::{AssistantMessage, Echo, FinishReason, ModelReply, ResponseFormat, Usage};
use crate::call::ToolCall;

/// The tool a typed run's answer comes in (Anthropic's idiom for structured output).
pub(super) const FINAL_ANSWER: &str = "final_answer";

/// A reply whose only call is the `final_answer` tool becomes the answer: its input (or
/// the `value` it wraps) as the text, finished.
pub(super) fn final_answer(mut reply: ModelReply, format: &ResponseFormat) -> ModelReply {
    let [call] = reply.message.tool_calls.as_slice() else { return reply };
    if call.name != FINAL_ANSWER {
        return reply;
    }
    let input: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
    let wrapped = format.schema.get("type").and_then(Value::as_str) != Some("object");
    let answer = if wrapped { input.get("value").cloned().unwrap_or(Value::Null) } else { input };
    reply.message.tool_calls.clear();
    reply.message.content = Some(answer.to_string());
    reply.finish_reason = FinishReason::Stop;
    reply
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    ToolUse {
        #[serde(default)]
        id: Option<String>,
        name: String,
        #[serde(default)]
        input: Value,
    },
    #[serde(other)]
    Other,
}

/// The provider of [`Echo`]s this client makes and reads.
pub(super) const ECHO: &str = "anthropic";

/// Whether rebuilding a reply from its text and calls would lose `block`: anything but
/// text and a direct `tool_use` (a call from a program names its `caller`; server tool
/// blocks, code-execution results and thinking go back as they came).
fn needs_echo(block: &Value) -> bool {
    match block["type"].as_str() {
        Some("text") => false,
        Some("tool_use") => block.get("caller").is_some_and(|c| c["type"] != "direct"),
        _ => true,
    }
}

/// A reply from its content blocks (as they came), stop reason, usage and container:
/// the text of its `text` blocks, a call per `tool_use` block, and, when a block would
/// be lost by rebuilding the message, every block and the container in its echo. A
/// known block that does not read is an error.
pub(super) fn reply_of(
    content: Vec<Value>,
    stop_reason: Option<&str>,
    usage: Usage,
    container: Option<String>,
) -> Result<ModelReply, String> {
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for block in &content {
        // A known block that does not read (a `tool_use` without its name) is an error,
        // not a call dropped in silence; an unknown type is `Other`.
        let read = Block::deserialize(block).map_err(|e| {
            let text = block.to_string();
            format!("a content block this client cannot read ({e}): {}", text.chars().take(200).collect::<String>())
        })?;
        match read {
            Block::Text { text: piece } => text.push_str(&piece),
            Block::ToolUse { id, name, input } => {
                let id = id.filter(|id| !id.is_empty()).unwrap_or_else(|| format!("toolu_{}", unique()));
                let arguments = match input {
                    Value::Null => "{}".to_string(),
                    // Streamed input that was not JSON, as the model wrote it.
                    Value::String(raw) => raw,
                    other => other.to_string(),
                };
                tool_calls.push(ToolCall::new(id, name, arguments));
            }
            Block::Other => {}
        }
    }
    let finish_reason = stop_reason_of(stop_reason, !tool_calls.is_empty());
    let echo = content.iter().any(needs_echo).then(|| Echo { container, ..Echo::new(ECHO, content) });
    let message =
        AssistantMessage { content: (!text.is_empty()).then_some(text), tool_calls, echo, ..Default::default() };
    Ok(ModelReply { message, finish_reason, usage })
}

/// `stop_reason` as a [`FinishReason`].
fn stop_reason_of(reason: Option<&str>, has_calls: bool) -> FinishReason {
    match reason {
        Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("refusal") => FinishReason::ContentFilter,
        Some(other) => {
            tracing::warn!(stop_reason = %other, "the model stopped for a reason this client does not know; the reply is kept");
            FinishReason::Other(other.to_string())
        }
        None if has_calls => FinishReason::ToolCalls,
        None => FinishReason::Stop,
    }
}
