//! A Responses-API reply read into toolkit's: its `output` items become the message
//! (`output_text` parts its text, `refusal` parts its refusal, `function_call` and
//! `custom_tool_call` items its calls), the items that rebuilding would lose kept in its
//! [`Echo`], `status` and `incomplete_details` the finish reason, and usage. Read from a
//! whole reply, and from a stream's final event.

use serde::Deserialize;
use serde_json::Value;

use super::error_text::head;
use super::http::unique;
use super::openai_wire::Custom;
use super::{AssistantMessage, Echo, FinishReason, ModelError, ModelReply, Usage};
use crate::call::ToolCall;

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    incomplete_details: Option<Incomplete>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    output: Vec<Value>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

/// The provider of [`Echo`]s this client makes and reads.
pub(super) const ECHO: &str = "openai-responses";

/// Whether rebuilding a reply from its text and calls would lose `item`: a program
/// (programmatic tool calling), its output, a call a program made (its `caller`), or
/// the API's tool search and the namespaced calls after it.
fn needs_echo(item: &Value) -> bool {
    if super::responses_tools::searched(item) {
        return true;
    }
    match item["type"].as_str() {
        Some("program" | "program_output") => true,
        Some("function_call" | "custom_tool_call") => item.get("caller").is_some_and(|c| c["type"] != "direct"),
        _ => false,
    }
}

#[derive(Deserialize)]
struct Incomplete {
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Item {
    Message {
        #[serde(default)]
        content: Vec<Part>,
    },
    FunctionCall {
        #[serde(default)]
        call_id: Option<String>,
        #[serde(default)]
        id: Option<String>,
        name: String,
        #[serde(default)]
        arguments: String,
    },
    /// A call to a free-form (custom) tool: its text.
    CustomToolCall {
        #[serde(default)]
        call_id: Option<String>,
        #[serde(default)]
        id: Option<String>,
        name: String,
        #[serde(default)]
        input: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    OutputText {
        text: String,
    },
    Refusal {
        refusal: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

/// A call's id: its `call_id` (what its output names), else its item `id`, else one made
/// up (the loop pairs results by id).
fn call_id_of(call_id: Option<String>, id: Option<String>) -> String {
    call_id.or(id).filter(|id| !id.is_empty()).unwrap_or_else(|| format!("call_{}", unique()))
}

/// Parses a Responses-API reply; the calls of `custom` tools carry their text as the
/// tool's parameter.
pub(super) fn parse_reply(text: &str, custom: &Custom) -> Result<ModelReply, ModelError> {
    let reply: Reply = serde_json::from_str(text).map_err(|e| ModelError::MalformedResponse {
        message: format!("{e}; the response began: {}", head(text, 200)),
    })?;
    if reply.status.as_deref() == Some("failed") {
        let message = reply
            .error
            .as_ref()
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("no reason given")
            .to_string();
        return Err(ModelError::MalformedResponse { message: format!("the response failed: {message}") });
    }
    let mut content = String::new();
    let mut refusal = None;
    let mut tool_calls = Vec::new();
    // Everything but reasoning (which a `store: false` request cannot name again)
    // goes back when an item would be lost by rebuilding.
    let echo = reply
        .output
        .iter()
        .any(needs_echo)
        .then(|| Echo::new(ECHO, reply.output.iter().filter(|i| i["type"] != "reasoning").cloned().collect()));
    for item in &reply.output {
        // A known item that does not read (a call without its name) is an error, not
        // a call dropped in silence; an unknown type is `Other`.
        let item = Item::deserialize(item).map_err(|e| ModelError::MalformedResponse {
            message: format!("an output item this client cannot read ({e}): {}", head(&item.to_string(), 200)),
        })?;
        match item {
            Item::Message { content: parts } => {
                for part in parts {
                    match part {
                        Part::OutputText { text } => content.push_str(&text),
                        Part::Refusal { refusal: text } => refusal = Some(text),
                        Part::Other => {}
                    }
                }
            }
            Item::FunctionCall { call_id, id, name, arguments } => {
                tool_calls.push(ToolCall::new(call_id_of(call_id, id), name, arguments));
            }
            Item::CustomToolCall { call_id, id, name, input } => {
                let arguments = custom.arguments(&name, &input);
                tool_calls.push(ToolCall::new(call_id_of(call_id, id), name, arguments));
            }
            Item::Other => {}
        }
    }
    let incomplete = reply.incomplete_details.and_then(|d| d.reason);
    let finish_reason = match (reply.status.as_deref(), incomplete.as_deref()) {
        _ if !tool_calls.is_empty() => FinishReason::ToolCalls,
        (Some("incomplete"), Some("max_output_tokens")) => FinishReason::Length,
        (Some("incomplete"), Some("content_filter")) => FinishReason::ContentFilter,
        (Some("incomplete"), Some(other)) => FinishReason::Other(other.to_string()),
        _ => FinishReason::Stop,
    };
    let usage = reply.usage.map_or_else(Usage::default, |u| Usage::new(u.input_tokens, u.output_tokens));
    let message = AssistantMessage {
        content: (!content.is_empty()).then_some(content),
        tool_calls,
        refusal,
        echo,
        ..Default::default()
    };
    Ok(ModelReply { message, finish_reason, usage })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_map_items_and_incomplete_reasons() {
        let reply = parse_reply(
            r#"{"id":"resp_1","object":"response","status":"completed","output":[
                {"type":"reasoning","id":"rs_1","summary":[]},
                {"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Sure.","annotations":[]}]},
                {"type":"function_call","id":"fc_1","call_id":"call_1","name":"add","arguments":"{\"a\":1}","status":"completed"}],
              "usage":{"input_tokens":9,"output_tokens":4,"total_tokens":13}}"#,
            &Custom::default(),
        )
        .unwrap();
        assert_eq!(reply.message.content.as_deref(), Some("Sure."));
        assert_eq!(reply.message.tool_calls, [ToolCall::new("call_1", "add", r#"{"a":1}"#)]);
        assert_eq!(reply.finish_reason, FinishReason::ToolCalls);
        assert_eq!(reply.usage, Usage::new(9, 4));
        let cut = parse_reply(
            r#"{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[
                {"type":"message","content":[{"type":"output_text","text":"Part"}]}]}"#,
            &Custom::default(),
        )
        .unwrap();
        assert_eq!(cut.finish_reason, FinishReason::Length);
        let refused = parse_reply(
            r#"{"status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"No."}]}]}"#,
            &Custom::default(),
        )
        .unwrap();
        assert_eq!(refused.message.refusal.as_deref(), Some("No."));
        let failed = parse_reply(
            r#"{"status":"failed","error":{"code":"server_error","message":"boom"},"output":[]}"#,
            &Custom::default(),
        );
        assert!(failed.unwrap_err().to_string().contains("boom"));
    }

    #[test]
    fn a_call_item_without_its_name_is_an_error_not_a_dropped_call() {
        let e = parse_reply(
            r#"{"status":"completed","output":[{"type":"function_call","call_id":"c1","arguments":"{}"}]}"#,
            &Custom::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("an output item this client cannot read"), "{e}");
        let unknown =
            parse_reply(r#"{"status":"completed","output":[{"type":"web_search_call","id":"w"}]}"#, &Custom::default());
        assert!(unknown.unwrap().message.tool_calls.is_empty(), "an unknown item type is skipped");
    }
}
