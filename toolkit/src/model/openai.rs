//! A client for the OpenAI Chat Completions API and the servers that speak it.

use std::fmt;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::chat_stream::ChatChunks;
use super::error_text::head;
use super::http::{Auth, Defaults, Settings, Transport, unique};
use super::openai_wire::{Custom, WireUsage, google_signature};
use super::sse;
use super::{
    AssistantMessage, FinishReason, Message, Model, ModelError, ModelReply, ModelRequest, ModelStream, ToolChoice,
    Usage,
};
use crate::{call::ToolCall, schema::Target};

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
/// A free-form tool ([`ToolSpec::freeform`](crate::ToolSpec::freeform)) is sent as a custom tool; the model's
/// custom call (`{"type": "custom", "custom": {"name", "input"}}`) becomes a [`ToolCall`]
/// whose arguments hold the text under the tool's parameter, and goes back the same way
/// in the conversation.
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
        let fitted = self.transport.fit(request.messages);
        let body = Body::of(&self.transport.model, &request.with_messages(&fitted));
        let text = self.transport.post(&body).await?;
        parse_reply(&text, &body.messages.1)
    }
}

impl Model for OpenAiCompatible {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(self.send(request))
    }

    /// Streams the reply (`stream: true`, with usage): text deltas, tool-call fragments
    /// assembled by `index`, usage, then the finish reason at `data: [DONE]`.
    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        let fitted = self.transport.fit(request.messages);
        let mut body = Body::of(&self.transport.model, &request.with_messages(&fitted));
        body.stream = Some(true);
        body.stream_options = Some(serde_json::json!({"include_usage": true}));
        let chunks = ChatChunks::new(body.messages.1.clone());
        sse::stream(&self.transport, &body, chunks)
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
        let custom = Custom::of(request.tools);
        let named = |name: &String| match custom.get(name) {
            Some(_) => serde_json::json!({"type": "custom", "custom": {"name": name}}),
            None => serde_json::json!({"type": "function", "function": {"name": name}}),
        };
        let tool_choice = match request.tool_choice {
            ToolChoice::Tool(name) => named(name),
            ToolChoice::Allowed { tools, required } => serde_json::json!({
                "type": "allowed_tools",
                "allowed_tools": {"mode": super::allowed_mode(*required), "tools": tools.iter().map(named).collect::<Vec<_>>()}
            }),
            other => other.to_json(),
        };
        Body {
            model,
            messages: ChatMessages(request.messages, custom),
            tool_choice: with_tools.then_some(tool_choice),
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
/// and Gemini's OpenAI-compatible API wants them back. A call to a free-form tool goes
/// as a custom call, `{"id", "type": "custom", "custom": {"name", "input"}}`; another
/// API's [`echo`](AssistantMessage::echo) is left out.
struct ChatMessages<'a>(&'a [Message], Custom);

impl Serialize for ChatMessages<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;

        struct Chat<'a>(&'a Message, &'a Custom);
        impl Serialize for Chat<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.0 {
                    Message::Tool { tool_call_id, content, parts, .. } => {
                        let mut map = s.serialize_map(Some(3))?;
                        map.serialize_entry("role", "tool")?;
                        map.serialize_entry("tool_call_id", tool_call_id)?;
                        if parts.is_empty() {
                            map.serialize_entry("content", content)?;
                        } else {
                            map.serialize_entry("content", &super::parts_wire::chat_tool_text(content, parts))?;
                        }
                        map.end()
                    }
                    Message::Assistant(assistant)
                        if assistant.echo.is_some()
                            || assistant.tool_calls.iter().any(|c| self.1.get(&c.name).is_some()) =>
                    {
                        let mut value = serde_json::to_value(self.0).map_err(serde::ser::Error::custom)?;
                        // Another API's parts are nothing to this one.
                        if let Some(message) = value.as_object_mut() {
                            message.remove("echo");
                        }
                        if let Some(Value::Array(wire)) = value.get_mut("tool_calls") {
                            for (wire, call) in wire.iter_mut().zip(&assistant.tool_calls) {
                                if let Some(freeform) = self.1.get(&call.name) {
                                    let input = freeform.input(&call.arguments);
                                    *wire = serde_json::json!({
                                        "id": call.id, "type": "custom",
                                        "custom": {"name": call.name, "input": input}
                                    });
                                }
                            }
                        }
                        value.serialize(s)
                    }
                    other => other.serialize(s),
                }
            }
        }
        // A turn's tool results with parts are followed by one user message carrying them
        // (a tool message takes text only, and nothing may come between the results).
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        let messages = self.0;
        for (i, message) in messages.iter().enumerate() {
            seq.serialize_element(&Chat(message, &self.1))?;
            let ends_results =
                matches!(message, Message::Tool { .. }) && !matches!(messages.get(i + 1), Some(Message::Tool { .. }));
            if ends_results {
                let start = messages[..i].iter().rposition(|m| !matches!(m, Message::Tool { .. })).map_or(0, |p| p + 1);
                let results = messages[start..=i].iter().filter_map(|m| match m {
                    Message::Tool { tool_call_id, parts, .. } if !parts.is_empty() => {
                        Some((tool_call_id.as_str(), parts.as_slice()))
                    }
                    _ => None,
                });
                if let Some(attachments) = super::parts_wire::chat_attachments(results) {
                    seq.serialize_element(&attachments)?;
                }
            }
        }
        seq.end()
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

#[derive(Deserialize)]
struct WireCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    extra_content: Option<Value>,
    /// A function call's name and arguments; absent from a custom call.
    #[serde(default)]
    function: Option<WireFunction>,
    /// A custom (free-form) call's name and text.
    #[serde(default)]
    custom: Option<WireCustom>,
}

#[derive(Deserialize)]
struct WireCustom {
    name: String,
    #[serde(default)]
    input: String,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    /// A JSON string per the API; some servers send the object itself.
    #[serde(default)]
    arguments: Value,
}

/// Parses a Chat Completions reply: the first choice's message, its tool calls (a
/// custom call's text as its tool's parameter), the finish reason and the usage.
fn parse_reply(text: &str, custom: &Custom) -> Result<ModelReply, ModelError> {
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
            let (name, arguments) = match (c.function, c.custom) {
                (_, Some(call)) => {
                    let arguments = custom.arguments(&call.name, &call.input);
                    (call.name, arguments)
                }
                (Some(function), None) => {
                    let arguments = match function.arguments {
                        Value::String(s) => s,
                        Value::Null => String::new(),
                        other => other.to_string(),
                    };
                    (function.name, arguments)
                }
                (None, None) => {
                    let message = format!("tool call `{id}` has neither a `function` nor a `custom` part");
                    return Err(ModelError::MalformedResponse { message });
                }
            };
            let thought_signature = google_signature(c.extra_content.as_ref());
            Ok(ToolCall { thought_signature, ..ToolCall::new(id, name, arguments) })
        })
        .collect::<Result<_, _>>()?;
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
        echo: None,
    };
    Ok(ModelReply { message, finish_reason, usage })
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
            &Custom::default(),
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
        let reply = parse_reply(
            r#"{"choices":[{"message":{"content":"hi"},"finish_reason":"cosmic_ray"}]}"#,
            &Custom::default(),
        )
        .unwrap();
        assert_eq!(reply.finish_reason, FinishReason::Other("cosmic_ray".into()));
        assert_eq!(reply.message.content.as_deref(), Some("hi"));
        let e = parse_reply(r#"{"choices":[]}"#, &Custom::default()).unwrap_err();
        assert!(e.to_string().contains("no choices"), "{e}");
        let e = parse_reply("<html>bad gateway</html>", &Custom::default()).unwrap_err();
        assert!(e.to_string().contains("<html>bad gateway"), "{e}");
    }

    #[test]
    fn a_call_with_neither_function_nor_custom_is_an_error() {
        let e = parse_reply(
            r#"{"choices":[{"message":{"tool_calls":[{"id":"c1","type":"mystery"}]},"finish_reason":"tool_calls"}]}"#,
            &Custom::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("tool call `c1` has neither"), "{e}");
    }
}
