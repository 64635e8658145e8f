//! A client for the Anthropic Messages API (Claude).
//!
//! The conversation stays in toolkit's one format ([`Message`]); this module writes it
//! as Messages-API blocks and reads the reply back:
//!
//! | toolkit | Messages API |
//! |---|---|
//! | `Message::System` | the top-level `system` (several are joined by a blank line) |
//! | `Message::User` | a `user` message with a `text` block |
//! | `Message::Assistant` | an `assistant` message: a `text` block, then one `tool_use` block per call (`input` is the arguments object) |
//! | consecutive `Message::Tool` | one `user` message of `tool_result` blocks, in order (the API wants every result of a turn in the next message), with `is_error: true` for a failed call |
//! | `ToolChoice::Auto` / `None` / `Required` / `Tool(name)` | `tool_choice` `auto` / `none` / `any` / `tool` |
//! | `parallel_tool_calls: false` | `disable_parallel_tool_use: true` |
//! | tools | [`Target::Anthropic`] exports (`name`, `description`, `input_schema`, `input_examples` with the `anthropic-beta: advanced-tool-use-2025-11-20` header, `allowed_callers`) |
//! | deferred tools ([`search`](crate::search)) | every tool sent, the deferred ones with `defer_loading: true`, and Anthropic's `tool_search_tool_bm25_20251119` instead of toolkit's `search_tools` (with the `advanced-tool-use-2025-11-20` beta); its `server_tool_use` and `tool_search_tool_result` blocks go back in the message's echo |
//! | a typed answer ([`ResponseFormat`](super::ResponseFormat)) | a `final_answer` tool whose input is the answer, and `tool_choice: any` |
//!
//! `stop_reason` maps to [`FinishReason`](super::FinishReason): `end_turn` and `stop_sequence` are `Stop`,
//! `tool_use` is `ToolCalls`, `max_tokens` is `Length`, `refusal` is `ContentFilter`,
//! and any other (`pause_turn`, ...) is `Other` with its name.
//!
//! Programmatic tool calling ([`Callers`](crate::Callers)): a request whose tools
//! programs may call also carries the code-execution tool (`code_execution_20260120`).
//! A reply with blocks that rebuilding the message from its text and calls would lose
//! (`server_tool_use`, `code_execution_tool_result`, a `tool_use` whose `caller` is a
//! program, thinking) keeps all its blocks and its `container` in
//! [`AssistantMessage::echo`](super::AssistantMessage::echo): the next request sends them back exactly and names the
//! container. The calls a program makes are ordinary tool calls to the toolbox.

use std::fmt;

use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::claude_reply::{ECHO, FINAL_ANSWER, final_answer, reply_of};
use super::claude_stream::ClaudeChunks;
use super::error_text::head;
use super::http::{Auth, Defaults, Settings, Transport};
use super::sse;
use super::{Echo, Message, Model, ModelError, ModelReply, ModelRequest, ModelStream, ToolChoice, Usage};
use crate::schema::ANTHROPIC_CODE_EXECUTION;
use crate::schema::Target;
use crate::search::SEARCH_TOOLS;

const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
const DEFAULT_MODEL: &str = "claude-sonnet-4-5";
/// The API version every request names (`anthropic-version`).
const API_VERSION: &str = "2023-06-01";
const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Claude, through the Anthropic Messages API (`POST {base}/v1/messages`). Available
/// with the feature `anthropic`.
///
/// | setting | builder | environment | default |
/// |---|---|---|---|
/// | base URL | [`base_url`](AnthropicBuilder::base_url) | `ANTHROPIC_BASE_URL` | `https://api.anthropic.com` |
/// | API key | [`api_key`](AnthropicBuilder::api_key) | `ANTHROPIC_API_KEY` | none: an error naming the variable |
/// | model | [`model`](AnthropicBuilder::model) | `TOOLKIT_MODEL` | `claude-sonnet-4-5` |
/// | output limit | [`max_tokens`](AnthropicBuilder::max_tokens) | | 4096 |
///
/// Retries, timeouts and errors are those of every HTTP client here: a 408, 409, 429,
/// 5xx (but 501) or 529 (overloaded), a connection closed before the response, and an
/// `overloaded_error` (or `api_error`, `rate_limit_error`) event before any of a
/// streamed reply is retried with backoff, honouring `retry-after`; a missing key,
/// refused connection or timeout fails at once with a message naming what to fix; the
/// key (sent as `x-api-key`) is scrubbed from every message.
///
/// ```no_run
/// use toolkit::model::Anthropic;
/// let claude = Anthropic::from_env()?; // ANTHROPIC_API_KEY
/// let haiku = Anthropic::builder().model("claude-haiku-4-5").max_tokens(1024).build()?;
/// # Ok::<(), toolkit::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct Anthropic {
    transport: Transport,
    max_tokens: u32,
    cache_tools: bool,
}

/// Builds an [`Anthropic`] client.
#[derive(Default)]
pub struct AnthropicBuilder {
    settings: Settings,
    max_tokens: Option<u32>,
    cache_tools: bool,
}

impl Anthropic {
    super::http::client_accessors!(builder: AnthropicBuilder, path: "{base}/v1/messages");

    async fn send(&self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let fitted = self.transport.fit(request.messages);
        let body = body(&self.transport.model, self.max_tokens, self.cache_tools, &request.with_messages(&fitted));
        let text = self.transport_for(&request).post(&body).await?;
        let reply = parse_reply(&text)?;
        Ok(match request.response_format {
            Some(format) => final_answer(reply, format),
            None => reply,
        })
    }
}

impl Anthropic {
    /// The transport for a request: with the `anthropic-beta` feature its tools use
    /// (`input_examples` is in `advanced-tool-use-2025-11-20`), added to any the client
    /// was built with.
    fn transport_for(&self, request: &ModelRequest<'_>) -> std::borrow::Cow<'_, Transport> {
        if !request.tools.iter().any(|spec| !spec.examples.is_empty() || spec.deferred) {
            return std::borrow::Cow::Borrowed(&self.transport);
        }
        let mut transport = self.transport.clone();
        match transport.headers.iter_mut().find(|(name, _)| name.eq_ignore_ascii_case("anthropic-beta")) {
            Some((_, value)) if value.split(',').any(|b| b.trim() == ADVANCED_TOOL_USE) => {}
            Some((_, value)) => *value = format!("{value},{ADVANCED_TOOL_USE}"),
            None => transport.headers.push(("anthropic-beta", ADVANCED_TOOL_USE.to_owned())),
        }
        std::borrow::Cow::Owned(transport)
    }
}

/// The beta of tool examples and tool search.
const ADVANCED_TOOL_USE: &str = "advanced-tool-use-2025-11-20";

/// Anthropic's tool search tool (BM25 over the deferred tools' definitions).
const TOOL_SEARCH: &str = "tool_search_tool_bm25_20251119";

impl Model for Anthropic {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(self.send(request))
    }

    /// Streams the reply (`stream: true`): `text_delta`s as text, `input_json_delta`s
    /// assembled per `tool_use` block, `message_delta`'s stop reason and usage; `ping`
    /// and event types this client does not know are skipped, as the API asks. A typed
    /// run's `final_answer` comes at the end, whole.
    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        let fitted = self.transport.fit(request.messages);
        let mut body = body(&self.transport.model, self.max_tokens, self.cache_tools, &request.with_messages(&fitted));
        body["stream"] = Value::Bool(true);
        let typed = request.response_format.cloned();
        let chunks = ClaudeChunks::new(typed);
        sse::stream(&self.transport_for(&request), &body, chunks)
    }

    fn name(&self) -> &str {
        &self.transport.model
    }

    /// Anthropic's tool search: deferred tools go with `defer_loading: true`, and the
    /// request carries its BM25 tool search tool instead of toolkit's `search_tools`.
    fn searches_tools(&self) -> bool {
        true
    }
}

impl fmt::Debug for Anthropic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.transport.debug(f, "Anthropic").field("max_tokens", &self.max_tokens).finish()
    }
}

impl AnthropicBuilder {
    super::http::builder_setters!(
        key: "ANTHROPIC_API_KEY",
        base: "ANTHROPIC_BASE_URL",
        base_default: "https://api.anthropic.com",
        model_default: "claude-sonnet-4-5"
    );

    /// Marks the last of the tools a request sends with a prompt-cache breakpoint
    /// (`cache_control: {"type": "ephemeral"}`), so Anthropic caches the tool definitions
    /// (they come first in the prompt) and later turns read them at a tenth of the input
    /// price. Off by default: the first request writes the cache at 1.25 times the price,
    /// which pays off from the second turn of a run; a prefix shorter than the model's
    /// minimum (1,024 tokens for most models) is not cached and costs nothing extra. The
    /// typed-answer tool of a run with a response format comes after the breakpoint.
    pub fn cache_tools(mut self, cache: bool) -> Self {
        self.cache_tools = cache;
        self
    }

    /// The most tokens one reply may have (`max_tokens`, which the API requires;
    /// default 4096).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The client, or [`ModelError::MissingKey`] naming the variable to set.
    pub fn build(self) -> Result<Anthropic, ModelError> {
        let defaults = Defaults {
            key_variable: "ANTHROPIC_API_KEY",
            base_variable: "ANTHROPIC_BASE_URL",
            base_url: DEFAULT_BASE_URL,
            model: DEFAULT_MODEL,
            auth: Auth::Header("x-api-key"),
        };
        let mut transport = self.settings.build(defaults, "/v1/messages")?;
        transport.headers.push(("anthropic-version", API_VERSION.to_string()));
        Ok(Anthropic {
            transport,
            max_tokens: self.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            cache_tools: self.cache_tools,
        })
    }
}

/// The request body.
fn body(model: &str, max_tokens: u32, cache_tools: bool, request: &ModelRequest<'_>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model));
    body.insert("max_tokens".into(), Value::from(max_tokens));
    let (system, messages) = messages(request.messages);
    if !system.is_empty() {
        body.insert("system".into(), Value::String(system));
    }
    body.insert("messages".into(), Value::Array(messages));
    // Deferred tools: Anthropic's own tool search finds them (`defer_loading`), in
    // place of toolkit's `search_tools`.
    let deferring = request.tools.iter().any(|spec| spec.deferred);
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .filter(|spec| !(deferring && spec.name == SEARCH_TOOLS))
        // No `allowed_tools` here: only the allowed tools are sent.
        .filter(|spec| request.tool_choice.sendable(spec))
        .map(|spec| {
            let mut tool = spec.export(Target::Anthropic);
            if spec.deferred {
                tool["defer_loading"] = Value::Bool(true);
            }
            tool
        })
        .collect();
    if deferring {
        tools.insert(0, json!({"type": TOOL_SEARCH, "name": "tool_search_tool_bm25"}));
    }
    // Programmatic tool calling: the code-execution tool the programs run in, and the
    // container a previous reply's program runs in (the API wants it named while calls
    // from it are pending).
    if request.tools.iter().any(|spec| spec.programmable(Target::Anthropic)) {
        tools.insert(0, json!({"type": ANTHROPIC_CODE_EXECUTION, "name": "code_execution"}));
    }
    let container = request.messages.iter().rev().find_map(|m| match m {
        Message::Assistant(a) => Echo::of(a.echo.as_ref(), ECHO).and_then(|e| e.container.clone()),
        _ => None,
    });
    if let Some(container) = container {
        body.insert("container".into(), Value::String(container));
    }
    // The breakpoint goes on the last tool sent in full (deferred ones are not).
    if cache_tools && let Some(Value::Object(last)) = tools.iter_mut().rev().find(|t| t.get("defer_loading").is_none())
    {
        last.insert("cache_control".into(), json!({"type": "ephemeral"}));
    }
    if let Some(format) = request.response_format {
        tools.push(json!({
            "name": FINAL_ANSWER,
            "description": "Give your final answer. Call this when you are done, instead of answering in text.",
            "input_schema": answer_schema(&format.schema),
        }));
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
        let mut choice = match request.tool_choice {
            // With a typed answer, the model must call a tool: its own, or the answer.
            ToolChoice::Auto if request.response_format.is_some() => json!({"type": "any"}),
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
            ToolChoice::Allowed { required: true, .. } => json!({"type": "any"}),
            ToolChoice::Allowed { .. } if request.response_format.is_some() => json!({"type": "any"}),
            ToolChoice::Allowed { .. } => json!({"type": "auto"}),
        };
        // `none` takes no parallelism flag.
        if !request.parallel_tool_calls && *request.tool_choice != ToolChoice::None {
            choice["disable_parallel_tool_use"] = Value::Bool(true);
        }
        body.insert("tool_choice".into(), choice);
    }
    Value::Object(body)
}

/// The answer's schema as a tool's input: an object, so a non-object answer is wrapped
/// as `{"value": ...}`.
fn answer_schema(schema: &Value) -> Value {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return schema.clone();
    }
    let mut wrapped = json!({"type": "object", "properties": {"value": schema}, "required": ["value"]});
    if let Some(defs) = schema.get("$defs") {
        wrapped["$defs"] = defs.clone();
        wrapped["properties"]["value"].as_object_mut().map(|v| v.remove("$defs"));
    }
    wrapped
}

/// The system text, and the conversation as Messages-API messages (same-role neighbours
/// merged into one message of several blocks, as the API wants roles to alternate).
fn messages(conversation: &[Message]) -> (String, Vec<Value>) {
    let mut system = Vec::new();
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, blocks: Vec<Value>| match out.last_mut() {
        Some((last, existing)) if *last == role => existing.extend(blocks),
        _ => out.push((role, blocks)),
    };
    for message in conversation {
        match message {
            Message::System { content } => system.push(content.as_str()),
            Message::User { content } => push("user", vec![json!({"type": "text", "text": content})]),
            Message::Tool { tool_call_id, content, is_error, parts } => {
                let content = super::parts_wire::anthropic_content(content, parts);
                let mut block = json!({"type": "tool_result", "tool_use_id": tool_call_id, "content": content});
                if *is_error {
                    block["is_error"] = Value::Bool(true);
                }
                push("user", vec![block]);
            }
            Message::Assistant(assistant) => {
                // A reply with parts only this API reads goes back exactly as it came.
                if let Some(echo) = Echo::of(assistant.echo.as_ref(), ECHO) {
                    push("assistant", echo.items.clone());
                    continue;
                }
                let mut blocks = Vec::new();
                if let Some(text) = assistant.content.as_deref().filter(|t| !t.is_empty()) {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for call in &assistant.tool_calls {
                    // `input` must be an object; arguments that are not one (a model's
                    // malformed call, kept in the history) go as an empty object.
                    let input = serde_json::from_str::<Value>(&call.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}));
                }
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": assistant.refusal.as_deref().unwrap_or("")}));
                }
                push("assistant", blocks);
            }
        }
    }
    let messages = out.into_iter().map(|(role, content)| json!({"role": role, "content": content})).collect();
    (system.join("\n\n"), messages)
}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    content: Vec<Value>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Option<WireUsage>,
    /// The code-execution container (`{"id", "expires_at"}`), with programmatic tool
    /// calling.
    #[serde(default)]
    container: Option<Value>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

/// Parses a Messages-API reply.
fn parse_reply(text: &str) -> Result<ModelReply, ModelError> {
    let reply: Reply = serde_json::from_str(text).map_err(|e| ModelError::MalformedResponse {
        message: format!("{e}; the response began: {}", head(text, 200)),
    })?;
    let usage = reply.usage.map_or_else(Usage::default, |u| {
        // Cached prompt tokens are prompt tokens too.
        let prompt = u
            .input_tokens
            .saturating_add(u.cache_creation_input_tokens.unwrap_or(0))
            .saturating_add(u.cache_read_input_tokens.unwrap_or(0));
        Usage::new(prompt, u.output_tokens)
    });
    let container = reply.container.as_ref().and_then(|c| c["id"].as_str().or(c.as_str())).map(str::to_string);
    reply_of(reply.content, reply.stop_reason.as_deref(), usage, container)
        .map_err(|message| ModelError::MalformedResponse { message })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::ToolCall;
    use crate::model::{AssistantMessage, FinishReason};

    #[test]
    fn tool_results_of_one_turn_go_in_one_user_message_and_system_goes_on_top() {
        let conversation = [
            Message::system("Be brief."),
            Message::user("Add and multiply."),
            Message::Assistant(AssistantMessage {
                content: Some("On it.".into()),
                tool_calls: vec![ToolCall::new("t1", "add", r#"{"a":1}"#), ToolCall::new("t2", "mul", "not json")],
                ..Default::default()
            }),
            Message::Tool { tool_call_id: "t1".into(), content: "2".into(), is_error: false, parts: vec![] },
            Message::Tool { tool_call_id: "t2".into(), content: "error".into(), is_error: true, parts: vec![] },
            Message::user("Thanks."),
        ];
        let (system, messages) = messages(&conversation);
        assert_eq!(system, "Be brief.");
        assert_eq!(messages.len(), 3, "{messages:#?}");
        assert_eq!(
            messages[1]["content"][1],
            json!({"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 1}})
        );
        assert_eq!(messages[1]["content"][2]["input"], json!({}));
        let results = &messages[2]["content"];
        assert_eq!(results[0], json!({"type": "tool_result", "tool_use_id": "t1", "content": "2"}));
        assert_eq!(
            results[1],
            json!({"type": "tool_result", "tool_use_id": "t2", "content": "error", "is_error": true})
        );
        assert_eq!(results[2], json!({"type": "text", "text": "Thanks."}));
    }

    #[test]
    fn replies_map_blocks_stop_reasons_and_usage() {
        let reply = parse_reply(
            r#"{"id":"msg_1","type":"message","role":"assistant","content":[
                {"type":"thinking","thinking":"..."},
                {"type":"text","text":"Let me check."},
                {"type":"tool_use","id":"toolu_1","name":"add","input":{"a":1,"b":2}}],
              "stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":3}}"#,
        )
        .unwrap();
        assert_eq!(reply.message.content.as_deref(), Some("Let me check."));
        assert_eq!(reply.message.tool_calls, [ToolCall::new("toolu_1", "add", r#"{"a":1,"b":2}"#)]);
        assert_eq!(reply.finish_reason, FinishReason::ToolCalls);
        assert_eq!(reply.usage, Usage::new(13, 5));
        for (wire, reason) in [
            ("end_turn", FinishReason::Stop),
            ("max_tokens", FinishReason::Length),
            ("refusal", FinishReason::ContentFilter),
            ("pause_turn", FinishReason::Other("pause_turn".into())),
        ] {
            let text = format!(r#"{{"content":[{{"type":"text","text":"x"}}],"stop_reason":"{wire}"}}"#);
            assert_eq!(parse_reply(&text).unwrap().finish_reason, reason, "{wire}");
        }
        let e = parse_reply("<html>overloaded</html>").unwrap_err();
        assert!(e.to_string().contains("<html>overloaded"), "{e}");
    }

    #[test]
    fn a_tool_use_without_its_name_is_an_error_not_a_dropped_call() {
        let e = parse_reply(r#"{"content":[{"type":"tool_use","id":"t1","input":{}}],"stop_reason":"tool_use"}"#)
            .unwrap_err();
        assert!(e.to_string().contains("a content block this client cannot read"), "{e}");
    }
}
