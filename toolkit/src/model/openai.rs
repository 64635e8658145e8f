//! A client for the OpenAI Chat Completions API and the servers that speak it.

use std::fmt;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::http::{Auth, Defaults, Settings, Transport, head, unique};
use super::sse::{self, Chunks, Problem};
use super::{
    AssistantMessage, FinishReason, Message, Model, ModelError, ModelEvent, ModelReply, ModelRequest, ModelStream,
    Usage,
};
use crate::{Target, ToolCall};

/// Where both OpenAI clients (Chat Completions and Responses) take their settings from.
pub(crate) const OPENAI_DEFAULTS: Defaults = Defaults {
    key_variable: "OPENAI_API_KEY",
    base_variable: "OPENAI_BASE_URL",
    base_url: "https://api.openai.com/v1",
    model: "gpt-4o-mini",
    auth: Auth::Bearer,
};

/// A model behind an OpenAI-compatible Chat Completions endpoint: OpenAI, DeepSeek,
/// Ollama, vLLM, LM Studio, and any server implementing `POST {base}/chat/completions`.
/// Available with the feature `openai`.
///
/// Configured from the builder, or else from the environment:
///
/// | setting | builder | environment | default |
/// |---|---|---|---|
/// | base URL | [`base_url`](OpenAiCompatibleBuilder::base_url) | `OPENAI_BASE_URL` | `https://api.openai.com/v1` |
/// | API key | [`api_key`](OpenAiCompatibleBuilder::api_key) | `OPENAI_API_KEY` (or [`key_variable`](OpenAiCompatibleBuilder::key_variable)) | none: an error naming the variable |
/// | model | [`model`](OpenAiCompatibleBuilder::model) | `TOOLKIT_MODEL` | `gpt-4o-mini` |
///
/// For a local server that needs no key (Ollama, vLLM), set any non-empty key, for
/// example `OPENAI_API_KEY=ollama`.
///
/// Each request sends the tool specs in the Chat Completions shape (strict when the
/// request asks for it), `tool_choice` and `parallel_tool_calls`, and parses every
/// tool call of the reply. A 408, 409, 429 or 5xx (but 501), or a connection closed
/// before the response, is retried with exponential backoff and full jitter, honouring
/// `Retry-After` / `retry-after-ms` (up to
/// [`max_retry_wait`](OpenAiCompatibleBuilder::max_retry_wait), 60 s by default; a
/// longer wait returns the error at once); a request that gets no complete response
/// within the timeout fails with [`ModelError::Timeout`], and is not retried (it
/// already took the whole timeout). A refused connection fails at once with the URL.
///
/// Gemini's OpenAI-compatible API adds thought signatures
/// (`extra_content.google.thought_signature`, on a tool call or on the message) that
/// Gemini 3 wants back: they are kept ([`ToolCall::thought_signature`],
/// [`AssistantMessage::thought_signature`]) and sent back as they came.
///
/// The key is only ever sent in the `Authorization` header: it is scrubbed from every
/// error message (a provider may echo it back) and never logged or printed by `Debug`.
///
/// ```no_run
/// use toolkit::model::OpenAiCompatible;
/// // OPENAI_API_KEY, and optionally OPENAI_BASE_URL and TOOLKIT_MODEL, from the environment:
/// let model = OpenAiCompatible::from_env()?;
/// // Or explicitly, for DeepSeek:
/// let deepseek = OpenAiCompatible::builder()
///     .base_url("https://api.deepseek.com/v1")
///     .key_variable("DEEPSEEK_API_KEY")
///     .model("deepseek-chat")
///     .build()?;
/// # Ok::<(), toolkit::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct OpenAiCompatible {
    transport: Transport,
}

/// Builds an [`OpenAiCompatible`] client.
#[derive(Default)]
pub struct OpenAiCompatibleBuilder {
    settings: Settings,
}

impl OpenAiCompatible {
    super::http::client_accessors!(builder: OpenAiCompatibleBuilder, path: "{base}/chat/completions");

    /// Sends one request, retrying 429 and 5xx.
    async fn send(&self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let body = Body::of(&self.transport.model, &request);
        let text = self.transport.post(&body).await?;
        parse_reply(&text)
    }
}

impl Model for OpenAiCompatible {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(self.send(request))
    }

    /// Streams the reply (`stream: true`, with usage): text deltas, tool-call fragments
    /// assembled by `index`, usage, then the finish reason at `data: [DONE]`.
    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        let mut body = Body::of(&self.transport.model, &request);
        body.stream = Some(true);
        body.stream_options = Some(serde_json::json!({"include_usage": true}));
        sse::stream(&self.transport, &body, ChatChunks::default())
    }

    fn name(&self) -> &str {
        &self.transport.model
    }
}

impl fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.transport.debug(f, "OpenAiCompatible").finish()
    }
}

impl OpenAiCompatibleBuilder {
    super::http::builder_setters!(
        key: "OPENAI_API_KEY",
        base: "OPENAI_BASE_URL",
        base_default: "https://api.openai.com/v1",
        model_default: "gpt-4o-mini"
    );

    /// The client, or [`ModelError::MissingKey`] naming the variable to set.
    pub fn build(self) -> Result<OpenAiCompatible, ModelError> {
        Ok(OpenAiCompatible { transport: self.settings.build(OPENAI_DEFAULTS, "/chat/completions")? })
    }
}

/// The request body.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: ChatMessages<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<Value>,
}

impl<'a> Body<'a> {
    fn of(model: &'a str, request: &ModelRequest<'a>) -> Self {
        let target = if request.strict { Target::OpenAiChatStrict } else { Target::OpenAiChat };
        let tools: Vec<Value> = request.tools.iter().map(|s| s.export(target)).collect();
        // `tool_choice` and `parallel_tool_calls` mean nothing without tools, and some
        // servers reject them then.
        let with_tools = !tools.is_empty();
        Body {
            model,
            messages: ChatMessages(request.messages),
            tool_choice: with_tools.then(|| request.tool_choice.to_json()),
            parallel_tool_calls: with_tools.then_some(request.parallel_tool_calls),
            tools,
            response_format: request.response_format.map(|format| {
                let (schema, strict) = format.openai();
                serde_json::json!({
                    "type": "json_schema",
                    "json_schema": {"name": format.name, "schema": schema, "strict": strict}
                })
            }),
            stream: None,
            stream_options: None,
        }
    }
}

/// The conversation as Chat Completions messages: as it serializes, but for a failed
/// call's `is_error`, which that API has no field for (some servers refuse fields they
/// do not know); the failure is in the message's text. Gemini's thought signatures
/// (`extra_content`) go as they are: they are only there when a reply carried them,
/// and Gemini's OpenAI-compatible API wants them back.
struct ChatMessages<'a>(&'a [Message]);

impl Serialize for ChatMessages<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;

        struct Chat<'a>(&'a Message);
        impl Serialize for Chat<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.0 {
                    Message::Tool { tool_call_id, content, .. } => {
                        let mut map = s.serialize_map(Some(3))?;
                        map.serialize_entry("role", "tool")?;
                        map.serialize_entry("tool_call_id", tool_call_id)?;
                        map.serialize_entry("content", content)?;
                        map.end()
                    }
                    other => other.serialize(s),
                }
            }
        }
        s.collect_seq(self.0.iter().map(Chat))
    }
}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: WireMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireCall>>,
    #[serde(default)]
    extra_content: Option<Value>,
}

/// The thought signature in an `extra_content` (Gemini's OpenAI-compatible API).
fn google_signature(extra_content: Option<&Value>) -> Option<String> {
    let signature = extra_content?.get("google")?.get("thought_signature")?.as_str()?;
    (!signature.is_empty()).then(|| signature.to_string())
}

#[derive(Deserialize)]
struct WireCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    extra_content: Option<Value>,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    /// A JSON string per the API; some servers send the object itself.
    #[serde(default)]
    arguments: Value,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    total_tokens: Option<u64>,
}

/// Parses a Chat Completions reply: the first choice's message, its tool calls, the
/// finish reason and the usage.
fn parse_reply(text: &str) -> Result<ModelReply, ModelError> {
    let reply: Reply = serde_json::from_str(text).map_err(|e| ModelError::MalformedResponse {
        message: format!("{e}; the response began: {}", head(text, 200)),
    })?;
    let Some(choice) = reply.choices.into_iter().next() else {
        return Err(ModelError::MalformedResponse { message: "the reply has no choices".into() });
    };
    let tool_calls: Vec<ToolCall> = choice
        .message
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            // Some servers omit ids; the loop pairs results by id, so each gets one.
            let id = c.id.filter(|id| !id.is_empty()).unwrap_or_else(|| format!("call_{}_{i}", unique()));
            let arguments = match c.function.arguments {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            };
            let thought_signature = google_signature(c.extra_content.as_ref());
            ToolCall { thought_signature, ..ToolCall::new(id, c.function.name, arguments) }
        })
        .collect();
    let finish_reason = match choice.finish_reason.as_deref() {
        Some(name) => {
            let reason = FinishReason::parse(name);
            if let FinishReason::Other(name) = &reason {
                tracing::warn!(finish_reason = %name, "the model stopped for a reason this client does not know; the reply is kept");
            }
            reason
        }
        // Missing (some servers): inferred from the message.
        None if tool_calls.is_empty() => FinishReason::Stop,
        None => FinishReason::ToolCalls,
    };
    let usage = reply.usage.map_or_else(Usage::default, |u| Usage {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        total_tokens: u.total_tokens.unwrap_or(u.prompt_tokens.saturating_add(u.completion_tokens)),
    });
    let message = AssistantMessage {
        content: choice.message.content,
        tool_calls,
        refusal: choice.message.refusal,
        thought_signature: google_signature(choice.message.extra_content.as_ref()),
    };
    Ok(ModelReply { message, finish_reason, usage })
}

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
    #[serde(default)]
    extra_content: Option<Value>,
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
struct ChatChunks {
    calls: Vec<(Option<String>, String, String, Option<String>)>,
    /// For each `index` the server used, the call its pieces go to now (`usize::MAX`:
    /// none yet). Usually the same number; not for servers that give every call index 0
    /// (or none), whose calls are told apart by their ids.
    lanes: Vec<usize>,
    finish: Option<String>,
    usage: Usage,
}

/// More calls than this in one reply is no reply a model writes: a hostile stream.
const MAX_STREAMED_CALLS: usize = 1024;

impl Chunks for ChatChunks {
    fn event(
        &mut self,
        name: &str,
        data: &str,
        out: &mut std::collections::VecDeque<ModelEvent>,
    ) -> Result<bool, Problem> {
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
                let (name, fragment) = call.function.map_or((None, None), |f| (f.name, f.arguments));
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

    fn end(&mut self, out: &mut std::collections::VecDeque<ModelEvent>) -> bool {
        // Some servers close the stream without `[DONE]`: complete if it said why it stopped.
        if self.finish.is_none() {
            return false;
        }
        self.flush(out);
        true
    }
}

impl ChatChunks {
    fn flush(&mut self, out: &mut std::collections::VecDeque<ModelEvent>) {
        let calls = std::mem::take(&mut self.calls);
        self.lanes.clear();
        let any_calls = calls.iter().any(|(_, name, ..)| !name.is_empty());
        for (i, (id, name, arguments, thought_signature)) in
            calls.into_iter().enumerate().filter(|(_, (_, name, ..))| !name.is_empty())
        {
            let id = id.filter(|id| !id.is_empty()).unwrap_or_else(|| format!("call_{}_{i}", unique()));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_several_calls_and_infers_ids() {
        let reply = parse_reply(
            r#"{"choices":[{"message":{"content":null,"tool_calls":[
                {"id":"a","type":"function","function":{"name":"x","arguments":"{\"k\":1}"}},
                {"type":"function","function":{"name":"y","arguments":{"k":2}}}]},
              "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
        )
        .unwrap();
        assert_eq!(reply.message.tool_calls.len(), 2);
        assert_eq!(reply.message.tool_calls[0].arguments, r#"{"k":1}"#);
        assert_eq!(reply.message.tool_calls[1].arguments, r#"{"k":2}"#);
        assert!(reply.message.tool_calls[1].id.starts_with("call_"));
        assert_eq!(reply.usage.total_tokens, 7);
    }

    #[test]
    fn an_unknown_finish_reason_keeps_the_reply_and_no_choices_is_an_error() {
        let reply = parse_reply(r#"{"choices":[{"message":{"content":"hi"},"finish_reason":"cosmic_ray"}]}"#).unwrap();
        assert_eq!(reply.finish_reason, FinishReason::Other("cosmic_ray".into()));
        assert_eq!(reply.message.content.as_deref(), Some("hi"));
        let e = parse_reply(r#"{"choices":[]}"#).unwrap_err();
        assert!(e.to_string().contains("no choices"), "{e}");
        let e = parse_reply("<html>bad gateway</html>").unwrap_err();
        assert!(e.to_string().contains("<html>bad gateway"), "{e}");
    }
}
