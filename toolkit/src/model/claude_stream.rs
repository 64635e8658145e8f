//! A streamed Messages-API reply: each content block as it started, its text and
//! input filled in by the deltas, read at `message_stop` as a whole reply is read
//! ([`reply_of`]), so a streamed reply and a plain one become the same message (the
//! blocks a provider needs back kept in its echo).

use std::collections::VecDeque;

use serde_json::Value;

use super::claude_reply::{final_answer, reply_of};
use super::http::unique;
use super::sse::{Chunks, Problem};
use super::{ModelEvent, ResponseFormat, Usage};

/// A streamed Messages-API reply being put together.
#[derive(Default, Clone)]
pub(super) struct ClaudeChunks {
    /// Content blocks by index, as they started, with the input JSON of `tool_use` and
    /// `server_tool_use` blocks so far.
    blocks: Vec<Option<(Value, String)>>,
    stop_reason: Option<String>,
    input_tokens: u64,
    output_tokens: u64,
    /// The code-execution container the reply names, if any.
    container: Option<String>,
    /// A typed run's format: its `final_answer` becomes the text at the end.
    typed: Option<ResponseFormat>,
}

const MAX_BLOCKS: usize = 1024;

impl ClaudeChunks {
    /// The chunks of a reply, typed by `typed` when the run asks for an answer's shape.
    pub(super) fn new(typed: Option<ResponseFormat>) -> Self {
        ClaudeChunks { typed, ..ClaudeChunks::default() }
    }
}

impl Chunks for ClaudeChunks {
    fn event(&mut self, name: &str, data: &str, out: &mut VecDeque<ModelEvent>) -> Result<bool, Problem> {
        let event: Value = match name {
            "message_start"
            | "content_block_start"
            | "content_block_delta"
            | "message_delta"
            | "message_stop"
            | "error" => serde_json::from_str(data).map_err(|e| format!("not a Messages API event: {e}"))?,
            // `ping`, `content_block_stop`, and types added later.
            _ => return Ok(false),
        };
        let index = || event["index"].as_u64().map(|i| i as usize).filter(|i| *i < MAX_BLOCKS);
        match name {
            "error" => {
                // `{"type": "error", "error": {"type": "overloaded_error", "message": ...}}`
                return Err(Problem::reported(&[&event["error"]["type"]], &event["error"]["message"]));
            }
            "message_start" => {
                let usage = &event["message"]["usage"];
                self.input_tokens = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
                    .iter()
                    .filter_map(|k| usage[*k].as_u64())
                    .fold(0, u64::saturating_add);
                self.note_container(&event["message"]["container"]);
            }
            "content_block_start" => {
                let index = index().ok_or("a content block without a valid index")?;
                if self.blocks.len() <= index {
                    self.blocks.resize_with(index + 1, || None);
                }
                let mut block = event["content_block"].clone();
                if block["type"] == "tool_use" {
                    if block["id"].as_str().is_none_or(str::is_empty) {
                        block["id"] = Value::String(format!("toolu_{}", unique()));
                    }
                    out.push_back(ModelEvent::ToolCallDelta {
                        index,
                        id: block["id"].as_str().map(str::to_string),
                        name: block["name"].as_str().map(str::to_string),
                        arguments: String::new(),
                    });
                }
                self.blocks[index] = Some((block, String::new()));
            }
            "content_block_delta" => {
                let index = index().ok_or("a delta without a valid index")?;
                let delta = &event["delta"];
                let Some(Some((block, input))) = self.blocks.get_mut(index) else {
                    return Err(format!("a delta for block {index}, which never started").into());
                };
                match delta["type"].as_str() {
                    Some("text_delta") => {
                        let text = delta["text"].as_str().unwrap_or_default();
                        let so_far = block["text"].as_str().unwrap_or_default();
                        block["text"] = Value::String(format!("{so_far}{text}"));
                        if !text.is_empty() && self.typed.is_none() {
                            out.push_back(ModelEvent::TextDelta(text.to_string()));
                        }
                    }
                    Some("input_json_delta") => {
                        let fragment = delta["partial_json"].as_str().unwrap_or_default();
                        input.push_str(fragment);
                        if block["type"] == "tool_use" {
                            out.push_back(ModelEvent::ToolCallDelta {
                                index,
                                id: None,
                                name: None,
                                arguments: fragment.to_string(),
                            });
                        }
                    }
                    // A thinking block's text and signature: kept for the echo.
                    Some("thinking_delta") => append(block, "thinking", &delta["thinking"]),
                    Some("signature_delta") => append(block, "signature", &delta["signature"]),
                    // Citations and the like.
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = event["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(reason.to_string());
                }
                if let Some(output) = event["usage"]["output_tokens"].as_u64() {
                    self.output_tokens = output;
                }
                self.note_container(&event["delta"]["container"]);
            }
            _ => {
                // message_stop
                self.flush(out)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn end(&mut self, _out: &mut VecDeque<ModelEvent>) -> bool {
        false
    }
}

/// Appends a delta's string to a block's field.
fn append(block: &mut Value, field: &str, piece: &Value) {
    let so_far = block[field].as_str().unwrap_or_default();
    block[field] = Value::String(format!("{so_far}{}", piece.as_str().unwrap_or_default()));
}

impl ClaudeChunks {
    fn note_container(&mut self, container: &Value) {
        if let Some(id) = container["id"].as_str().or(container.as_str()) {
            self.container = Some(id.to_string());
        }
    }

    /// The whole reply, read as a non-streamed reply is: its calls, echo, usage and
    /// finish.
    fn flush(&mut self, out: &mut VecDeque<ModelEvent>) -> Result<(), Problem> {
        let content: Vec<Value> = std::mem::take(&mut self.blocks)
            .into_iter()
            .flatten()
            .map(|(mut block, input)| {
                if matches!(block["type"].as_str(), Some("tool_use" | "server_tool_use")) && !input.trim().is_empty() {
                    // Input that is not JSON stays as written, for the toolbox to refuse.
                    block["input"] = serde_json::from_str(&input).unwrap_or(Value::String(input));
                }
                block
            })
            .collect();
        let usage = Usage::new(self.input_tokens, self.output_tokens);
        let mut reply = reply_of(content, self.stop_reason.as_deref(), usage, self.container.take())?;
        if let Some(format) = &self.typed {
            reply = final_answer(reply, format);
            if let Some(answer) = reply.message.content.take() {
                out.push_back(ModelEvent::TextDelta(answer));
            }
        }
        out.extend(reply.message.tool_calls.into_iter().map(ModelEvent::ToolCall));
        if let Some(echo) = reply.message.echo {
            out.push_back(ModelEvent::Echo(echo));
        }
        out.push_back(ModelEvent::Usage(reply.usage));
        out.push_back(ModelEvent::Finished(reply.finish_reason));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A streamed thinking block comes back whole, signature included, in the echo.
    #[test]
    fn thinking_and_its_signature_are_assembled_for_the_echo() {
        let events = [
            ("message_start", r#"{"type":"message_start","message":{"usage":{"input_tokens":5}}}"#),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Add "}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"them."}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig=="}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"add","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ];
        let (mut chunks, mut out) = (ClaudeChunks::default(), VecDeque::new());
        for (name, data) in events {
            chunks.event(name, data, &mut out).unwrap();
        }
        let echo = out.iter().find_map(|e| if let ModelEvent::Echo(echo) = e { Some(echo.clone()) } else { None });
        let echo = echo.expect("a reply with thinking is echoed");
        assert_eq!(
            echo.items[0],
            serde_json::json!({"type": "thinking", "thinking": "Add them.", "signature": "sig=="})
        );
        assert_eq!(
            echo.items[1],
            serde_json::json!({"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 1}})
        );
        assert!(out.iter().any(|e| matches!(e, ModelEvent::ToolCall(call) if call.arguments == r#"{"a":1}"#)));
    }
}
