//! A streamed Responses-API reply: text, refusal and tool-call deltas as their events
//! come (a call's arguments, or a free-form tool's input, by the output index of its
//! item), then the reply itself from the final `response.completed` (or `incomplete`)
//! event: the calls whole, the echo, usage and the finish reason.

use std::collections::VecDeque;

use serde_json::Value;

use super::ModelEvent;
use super::openai_wire::Custom;
use super::responses_reply::parse_reply;
use super::sse::{Chunks, Problem};

/// A streamed Responses-API reply: deltas as they come, the reply itself from the
/// final event.
#[derive(Default, Clone)]
pub(super) struct ResponsesChunks {
    /// Output indexes of function calls, in the order they were added.
    calls: Vec<u64>,
    /// Whether refusal deltas came (then the final response's refusal is not sent again).
    refused: bool,
    /// The request's free-form tools, whose calls' text becomes arguments.
    custom: Custom,
}

impl ResponsesChunks {
    /// The reader of a reply to a request whose free-form tools are `custom`.
    pub(super) fn new(custom: Custom) -> Self {
        ResponsesChunks { custom, ..ResponsesChunks::default() }
    }
}

impl Chunks for ResponsesChunks {
    fn event(&mut self, name: &str, data: &str, out: &mut VecDeque<ModelEvent>) -> Result<bool, Problem> {
        let event: Value = serde_json::from_str(data).map_err(|e| format!("not a Responses API event: {e}"))?;
        // The type is in the data; the `event:` line, when sent, says the same.
        let kind = event["type"].as_str().unwrap_or(name);
        match kind {
            "response.output_text.delta" => {
                let text = event["delta"].as_str().unwrap_or_default();
                if !text.is_empty() {
                    out.push_back(ModelEvent::TextDelta(text.to_string()));
                }
            }
            "response.output_item.added"
                if event["item"]["type"] == "function_call" || event["item"]["type"] == "custom_tool_call" =>
            {
                let output_index = event["output_index"].as_u64().unwrap_or(self.calls.len() as u64);
                self.calls.push(output_index);
                out.push_back(ModelEvent::ToolCallDelta {
                    index: self.calls.len() - 1,
                    id: event["item"]["call_id"].as_str().map(str::to_string),
                    name: event["item"]["name"].as_str().map(str::to_string),
                    arguments: String::new(),
                });
            }
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                let output_index = event["output_index"].as_u64();
                let index = self.calls.iter().position(|i| Some(*i) == output_index).unwrap_or(0);
                let fragment = event["delta"].as_str().unwrap_or_default().to_string();
                out.push_back(ModelEvent::ToolCallDelta { index, id: None, name: None, arguments: fragment });
            }
            "response.refusal.delta" => {
                let text = event["delta"].as_str().unwrap_or_default();
                if !text.is_empty() {
                    self.refused = true;
                    out.push_back(ModelEvent::RefusalDelta(text.to_string()));
                }
            }
            "response.completed" | "response.incomplete" => {
                let reply = parse_reply(&event["response"].to_string(), &self.custom).map_err(|e| e.to_string())?;
                // A refusal the deltas did not carry is in the final response.
                if let Some(refusal) = reply.message.refusal.filter(|_| !self.refused) {
                    out.push_back(ModelEvent::RefusalDelta(refusal));
                }
                out.extend(reply.message.tool_calls.into_iter().map(ModelEvent::ToolCall));
                if let Some(echo) = reply.message.echo {
                    out.push_back(ModelEvent::Echo(echo));
                }
                out.push_back(ModelEvent::Usage(reply.usage));
                out.push_back(ModelEvent::Finished(reply.finish_reason));
                return Ok(true);
            }
            "response.failed" => {
                let error = &event["response"]["error"];
                return Err(Problem::reported(&[&error["code"], &error["type"]], &error["message"]));
            }
            "error" => {
                // `{"type": "error", "code", "message"}`, or the error object nested.
                let error = if event["error"].is_object() { &event["error"] } else { &event };
                let kinds = [&error["code"], &error["type"]];
                let kinds: Vec<&Value> = kinds.into_iter().filter(|k| k.as_str() != Some("error")).collect();
                return Err(Problem::reported(&kinds, &error["message"]));
            }
            _ => {}
        }
        Ok(false)
    }

    fn end(&mut self, _out: &mut VecDeque<ModelEvent>) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_refusal_comes_once_from_its_deltas_or_from_the_final_response() {
        let completed = r#"{"type":"response.completed","response":{"status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"No."}]}]}}"#;
        let refusals = |events: &[(&str, &str)]| {
            let (mut chunks, mut out) = (ResponsesChunks::default(), VecDeque::new());
            for (name, data) in events {
                chunks.event(name, data, &mut out).unwrap();
            }
            out.into_iter()
                .filter_map(|e| if let ModelEvent::RefusalDelta(t) = e { Some(t) } else { None })
                .collect::<Vec<_>>()
        };
        let delta = r#"{"type":"response.refusal.delta","delta":"No."}"#;
        assert_eq!(refusals(&[("response.refusal.delta", delta), ("response.completed", completed)]), ["No."]);
        assert_eq!(refusals(&[("response.completed", completed)]), ["No."]);
    }
}
