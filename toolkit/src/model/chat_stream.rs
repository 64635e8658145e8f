//! A streamed Chat Completions reply: its chunks put together into text, refusal and
//! tool-call events, the calls assembled by `index` (or by id, for servers that number
//! every call 0), usage, and the finish reason at `data: [DONE]`.

use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::Value;

use super::http::unique;
use super::openai_wire::{Custom, WireUsage, google_signature};
use super::sse::{Chunks, Problem};
use super::{FinishReason, ModelEvent, Usage};
use crate::call::ToolCall;

/// One streamed Chat Completions chunk.
#[derive(Deserialize)]
struct StreamChunk {
    #[serde(default)]
    choices: Vec<StreamChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct StreamChoice {
    #[serde(default)]
    delta: Option<StreamDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct StreamDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Vec<StreamCall>,
    #[serde(default)]
    extra_content: Option<Value>,
}

#[derive(Deserialize)]
struct StreamCall {
    #[serde(default)]
    index: usize,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<StreamFunction>,
    /// A custom call's name (first piece) and next piece of its text.
    #[serde(default)]
    custom: Option<StreamCustom>,
    #[serde(default)]
    extra_content: Option<Value>,
}

#[derive(Deserialize)]
struct StreamCustom {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    input: Option<String>,
}

#[derive(Deserialize)]
struct StreamFunction {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

/// A streamed reply being put together: the calls in the order they began (id, name,
/// arguments, thought signature), the finish reason, usage.
#[derive(Default, Clone)]
pub(super) struct ChatChunks {
    calls: Vec<(Option<String>, String, String, Option<String>)>,
    /// For each `index` the server used, the call its pieces go to now (`usize::MAX`:
    /// none yet). Usually the same number; not for servers that give every call index 0
    /// (or none), whose calls are told apart by their ids.
    lanes: Vec<usize>,
    finish: Option<String>,
    usage: Usage,
    /// The request's free-form tools; a call to one assembles its text, which becomes
    /// its arguments at the end.
    custom: Custom,
}

/// More calls than this in one reply is no reply a model writes: a hostile stream.
const MAX_STREAMED_CALLS: usize = 1024;

impl Chunks for ChatChunks {
    fn event(&mut self, name: &str, data: &str, out: &mut VecDeque<ModelEvent>) -> Result<bool, Problem> {
        if name != "message" {
            // Chat Completions sends unnamed events only; others are not for this client.
            return Ok(false);
        }
        if data.trim() == "[DONE]" {
            self.flush(out);
            return Ok(true);
        }
        let chunk: StreamChunk =
            serde_json::from_str(data).map_err(|e| format!("not a Chat Completions chunk: {e}"))?;
        if let Some(error) = chunk.error {
            // `{"error": {"message", "type", "code"}}`; some servers send the message alone.
            if let Value::String(message) = &error {
                return Err(Problem::reported(&[], &Value::String(message.clone())));
            }
            return Err(Problem::reported(&[&error["type"], &error["code"]], &error["message"]));
        }
        if let Some(u) = chunk.usage {
            self.usage = Usage {
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
                total_tokens: u.total_tokens.unwrap_or(u.prompt_tokens.saturating_add(u.completion_tokens)),
            };
        }
        let Some(choice) = chunk.choices.into_iter().next() else { return Ok(false) };
        if let Some(delta) = choice.delta {
            if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                out.push_back(ModelEvent::TextDelta(text));
            }
            if let Some(text) = delta.refusal.filter(|t| !t.is_empty()) {
                out.push_back(ModelEvent::RefusalDelta(text));
            }
            if let Some(signature) = google_signature(delta.extra_content.as_ref()) {
                out.push_back(ModelEvent::ThoughtSignature(signature));
            }
            for call in delta.tool_calls {
                if call.index >= MAX_STREAMED_CALLS {
                    return Err(format!("a tool call at index {} (at most {MAX_STREAMED_CALLS})", call.index).into());
                }
                if self.lanes.len() <= call.index {
                    self.lanes.resize(call.index + 1, usize::MAX);
                }
                let lane = &mut self.lanes[call.index];
                // A new call at this index: the first, or one with an id other than the
                // call there (a server that numbers every call 0 starts each with its id).
                let new = *lane == usize::MAX
                    || matches!((&call.id, &self.calls[*lane].0), (Some(id), Some(open)) if id != open);
                if new {
                    if self.calls.len() >= MAX_STREAMED_CALLS {
                        return Err(format!("more than {MAX_STREAMED_CALLS} tool calls in one reply").into());
                    }
                    *lane = self.calls.len();
                    self.calls.push(Default::default());
                }
                let index = *lane;
                let slot = &mut self.calls[index];
                if call.id.is_some() {
                    slot.0.clone_from(&call.id);
                }
                if let Some(signature) = google_signature(call.extra_content.as_ref()) {
                    slot.3 = Some(signature);
                }
                let (name, fragment) = match (call.function, call.custom) {
                    (_, Some(custom)) => (custom.name, custom.input),
                    (Some(f), None) => (f.name, f.arguments),
                    (None, None) => (None, None),
                };
                if let Some(name) = &name {
                    slot.1.clone_from(name);
                }
                let fragment = fragment.unwrap_or_default();
                slot.2.push_str(&fragment);
                out.push_back(ModelEvent::ToolCallDelta { index, id: call.id, name, arguments: fragment });
            }
        }
        if let Some(reason) = choice.finish_reason {
            self.finish = Some(reason);
        }
        Ok(false)
    }

    fn end(&mut self, out: &mut VecDeque<ModelEvent>) -> bool {
        // Some servers close the stream without `[DONE]`: complete if it said why it stopped.
        if self.finish.is_none() {
            return false;
        }
        self.flush(out);
        true
    }
}

impl ChatChunks {
    /// The chunks of a request whose free-form tools are `custom`.
    pub(super) fn new(custom: Custom) -> Self {
        ChatChunks { custom, ..ChatChunks::default() }
    }

    fn flush(&mut self, out: &mut VecDeque<ModelEvent>) {
        let calls = std::mem::take(&mut self.calls);
        self.lanes.clear();
        let any_calls = calls.iter().any(|(_, name, ..)| !name.is_empty());
        for (i, (id, name, arguments, thought_signature)) in
            calls.into_iter().enumerate().filter(|(_, (_, name, ..))| !name.is_empty())
        {
            let id = id.filter(|id| !id.is_empty()).unwrap_or_else(|| format!("call_{}_{i}", unique()));
            // A free-form tool's pieces are its text.
            let arguments =
                if self.custom.get(&name).is_some() { self.custom.arguments(&name, &arguments) } else { arguments };
            out.push_back(ModelEvent::ToolCall(ToolCall { thought_signature, ..ToolCall::new(id, name, arguments) }));
        }
        out.push_back(ModelEvent::Usage(self.usage));
        let reason = match self.finish.take() {
            Some(name) => FinishReason::parse(&name),
            None if any_calls => FinishReason::ToolCalls,
            None => FinishReason::Stop,
        };
        out.push_back(ModelEvent::Finished(reason));
    }
}
