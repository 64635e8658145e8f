//! A client for the Gemini API (`generateContent`).
//!
//! | toolkit | Gemini |
//! |---|---|
//! | `Message::System` | `systemInstruction` (several are joined by a blank line) |
//! | `Message::User` | a `user` content with a `text` part |
//! | `Message::Assistant` | a `model` content: a `text` part, then one `functionCall` part per call (`args` is the arguments object); each part with the `thoughtSignature` it came with |
//! | consecutive `Message::Tool` | one `user` content of `functionResponse` parts (`name` from the call it answers, `response: {"output": text}`, or `{"error": text}` for a failed call) |
//! | `ToolChoice::Auto` / `None` / `Required` / `Tool(name)` | `functionCallingConfig.mode` `AUTO` / `NONE` / `ANY` / `ANY` with `allowedFunctionNames: [name]` |
//! | tools | one `functionDeclarations` list of [`Target::Gemini`] exports (`parameters`, or `parametersJsonSchema` where the OpenAPI subset would cut the schema) |
//!
//! Gemini may leave out a call's `id`; the client then gives it one (`gemini-…`) for
//! the loop to pair the result with, and leaves it out again when sending the history
//! back.
//!
//! Thought signatures (Gemini 3 puts one on the first function call of a reply, and may
//! put one on its text; Gemini 3 refuses the next request if a call's is missing) are
//! kept where they came and sent back exactly: a call's on that call
//! ([`ToolCall::thought_signature`]), the text's on the message
//! ([`AssistantMessage::thought_signature`]), streamed or not. The text of a reply is
//! one string here, so a signature that came on any of its text parts goes back on the
//! one text part it is sent as.
//!
//! `finishReason` maps `STOP` to [`FinishReason::Stop`] (or `ToolCalls` when the
//! reply has calls), `MAX_TOKENS` to `Length`, the safety reasons (`SAFETY`,
//! `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`) to `ContentFilter`, and any
//! other to `Other` with its name; a prompt blocked before any candidate is
//! `ContentFilter` with no text. Parallel calls cannot be switched off in Gemini's API:
//! `parallel_tool_calls: false` is not sent. A typed answer asks for
//! `responseMimeType: application/json` with `responseJsonSchema`.

use std::fmt;

use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use std::collections::VecDeque;

use super::error_text::head;
use super::http::{Auth, Defaults, Settings, Transport, unique};
use super::sse::{self, Chunks, Problem};
use super::{AssistantMessage, FinishReason, Message, Model, ModelError, ModelReply, ModelRequest, ToolChoice, Usage};
use super::{ModelEvent, ModelStream};
use crate::{call::ToolCall, schema::Target};

const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";
const DEFAULT_MODEL: &str = "gemini-2.5-flash";
/// The prefix of ids this client makes up for calls Gemini sent without one.
const MADE_UP_ID: &str = "gemini-";

/// Gemini, through `POST {base}/models/{model}:generateContent`. Available with the
/// feature `gemini`.
///
/// | setting | builder | environment | default |
/// |---|---|---|---|
/// | base URL | [`base_url`](GeminiBuilder::base_url) | `GEMINI_BASE_URL` | `https://generativelanguage.googleapis.com/v1beta` |
/// | API key | [`api_key`](GeminiBuilder::api_key) | `GEMINI_API_KEY` | none: an error naming the variable |
/// | model | [`model`](GeminiBuilder::model) | `TOOLKIT_MODEL` | `gemini-2.5-flash` |
///
/// The key is sent as `x-goog-api-key` (never in the URL); retries, timeouts and errors
/// are those of every HTTP client here.
///
/// ```no_run
/// use toolkit::model::Gemini;
/// let gemini = Gemini::from_env()?; // GEMINI_API_KEY
/// # Ok::<(), toolkit::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct Gemini {
    transport: Transport,
}

/// Builds a [`Gemini`] client.
#[derive(Default)]
pub struct GeminiBuilder {
    settings: Settings,
}

impl Gemini {
    super::http::client_accessors!(builder: GeminiBuilder, path: "{base}/models/{model}:generateContent");

    async fn send(&self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let fitted = self.transport.fit(request.messages);
        let body = body(&request.with_messages(&fitted));
        let text = self.transport.post(&body).await?;
        parse_reply(&text)
    }
}

impl Model for Gemini {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(self.send(request))
    }

    /// Streams the reply through `streamGenerateContent?alt=sse`: each event is a
    /// `generateContent` reply of its own (text parts as deltas; function calls come
    /// whole); the reply is complete when a candidate gives its `finishReason`.
    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        let mut transport = self.transport.clone();
        transport.url = stream_url(&transport.url);
        let fitted = self.transport.fit(request.messages);
        sse::stream(&transport, &body(&request.with_messages(&fitted)), GeminiChunks::default())
    }

    fn name(&self) -> &str {
        &self.transport.model
    }
}

impl fmt::Debug for Gemini {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.transport.debug(f, "Gemini").finish()
    }
}

impl GeminiBuilder {
    super::http::builder_setters!(
        key: "GEMINI_API_KEY",
        base: "GEMINI_BASE_URL",
        base_default: "https://generativelanguage.googleapis.com/v1beta",
        model_default: "gemini-2.5-flash"
    );

    /// The client, or [`ModelError::MissingKey`] naming the variable to set.
    pub fn build(self) -> Result<Gemini, ModelError> {
        let model = self
            .settings
            .model
            .clone()
            .or_else(|| std::env::var("TOOLKIT_MODEL").ok().filter(|m| !m.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let defaults = Defaults {
            key_variable: "GEMINI_API_KEY",
            base_variable: "GEMINI_BASE_URL",
            base_url: DEFAULT_BASE_URL,
            model: DEFAULT_MODEL,
            auth: Auth::Header("x-goog-api-key"),
        };
        let settings = Settings { model: Some(model.clone()), ..self.settings };
        Ok(Gemini { transport: settings.build(defaults, &format!("/models/{model}:generateContent"))? })
    }
}

/// The request body.
fn body(request: &ModelRequest<'_>) -> Value {
    let mut body = Map::new();
    let (system, contents) = contents(request.messages);
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": system}]}));
    }
    body.insert("contents".into(), Value::Array(contents));
    if !request.tools.is_empty() {
        // Gemini restricts calls to named functions only when a call is required;
        // otherwise only the allowed tools are sent.
        let emulated = matches!(request.tool_choice, ToolChoice::Allowed { required: false, .. });
        let declarations: Vec<Value> = request
            .tools
            .iter()
            .filter(|spec| !emulated || request.tool_choice.sendable(spec))
            .map(|spec| spec.export(Target::Gemini))
            .collect();
        body.insert("tools".into(), json!([{"functionDeclarations": declarations}]));
        let config = match request.tool_choice {
            ToolChoice::Auto => json!({"mode": "AUTO"}),
            ToolChoice::None => json!({"mode": "NONE"}),
            ToolChoice::Required => json!({"mode": "ANY"}),
            ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
            ToolChoice::Allowed { tools, required: true } => json!({"mode": "ANY", "allowedFunctionNames": tools}),
            ToolChoice::Allowed { required: false, .. } => json!({"mode": "AUTO"}),
        };
        body.insert("toolConfig".into(), json!({"functionCallingConfig": config}));
    }
    if let Some(format) = request.response_format {
        let schema = crate::schema::gemini::json_schema(&format.schema);
        body.insert(
            "generationConfig".into(),
            json!({"responseMimeType": "application/json", "responseJsonSchema": schema}),
        );
    }
    Value::Object(body)
}

/// The system text, and the conversation as Gemini contents (same-role neighbours
/// merged into one content of several parts).
fn contents(conversation: &[Message]) -> (String, Vec<Value>) {
    let mut system = Vec::new();
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut names: Vec<(&str, &str)> = Vec::new();
    let mut push = |role: &'static str, parts: Vec<Value>| match out.last_mut() {
        Some((last, existing)) if *last == role => existing.extend(parts),
        _ => out.push((role, parts)),
    };
    for message in conversation {
        match message {
            Message::System { content } => system.push(content.as_str()),
            Message::User { content } => push("user", vec![json!({"text": content})]),
            Message::Assistant(assistant) => {
                let mut parts = Vec::new();
                let text = assistant.content.as_deref().unwrap_or_default();
                if !text.is_empty() || assistant.thought_signature.is_some() {
                    let mut part = json!({"text": text});
                    if let Some(signature) = &assistant.thought_signature {
                        part["thoughtSignature"] = Value::from(signature.as_str());
                    }
                    parts.push(part);
                }
                for call in &assistant.tool_calls {
                    names.push((call.id.as_str(), call.name.as_str()));
                    let args = serde_json::from_str::<Value>(&call.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    let mut function_call = json!({"name": call.name, "args": args});
                    if !call.id.starts_with(MADE_UP_ID) {
                        function_call["id"] = Value::from(call.id.as_str());
                    }
                    let mut part = json!({"functionCall": function_call});
                    if let Some(signature) = &call.thought_signature {
                        part["thoughtSignature"] = Value::from(signature.as_str());
                    }
                    parts.push(part);
                }
                if parts.is_empty() {
                    parts.push(json!({"text": assistant.refusal.as_deref().unwrap_or("")}));
                }
                push("model", parts);
            }
            Message::Tool { tool_call_id, content, is_error, parts } => {
                let name = names.iter().rev().find(|(id, _)| id == tool_call_id).map_or("", |(_, name)| *name);
                // Gemini's documented keys: `output` for a result, `error` for a failure.
                let key = if *is_error { "error" } else { "output" };
                let (content, inline) = super::parts_wire::gemini_parts(content, parts);
                let mut response = json!({"name": name, "response": {key: content}});
                if let Some(inline) = inline {
                    response["parts"] = inline;
                }
                if !tool_call_id.starts_with(MADE_UP_ID) {
                    response["id"] = Value::from(tool_call_id.as_str());
                }
                push("user", vec![json!({"functionResponse": response})]);
            }
        }
    }
    let contents = out.into_iter().map(|(role, parts)| json!({"role": role, "parts": parts})).collect();
    (system.join("\n\n"), contents)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reply {
    #[serde(default)]
    candidates: Vec<Candidate>,
    #[serde(default)]
    prompt_feedback: Option<Value>,
    #[serde(default)]
    usage_metadata: Option<WireUsage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    parts: Vec<Part>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(default)]
    function_call: Option<FunctionCall>,
    #[serde(default)]
    thought_signature: Option<String>,
}

#[derive(Deserialize)]
struct FunctionCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    args: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireUsage {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    thoughts_token_count: u64,
}

/// The streaming endpoint of a `...:generateContent` URL.
fn stream_url(url: &str) -> String {
    let base = url.strip_suffix(":generateContent").unwrap_or(url);
    format!("{base}:streamGenerateContent?alt=sse")
}

/// A streamed Gemini reply: each event a reply of its own.
#[derive(Default, Clone)]
struct GeminiChunks {
    calls: Vec<ToolCall>,
    usage: Usage,
    finish: Option<FinishReason>,
}

impl Chunks for GeminiChunks {
    fn event(&mut self, _name: &str, data: &str, out: &mut VecDeque<ModelEvent>) -> Result<bool, Problem> {
        let value: Value = serde_json::from_str(data).map_err(|e| format!("not a Gemini reply: {e}"))?;
        if let Some(error) = value.get("error") {
            // `{"error": {"code": 503, "message", "status": "UNAVAILABLE"}}`
            return Err(Problem::reported(&[&error["status"], &error["code"]], &error["message"]));
        }
        if value.get("candidates").is_none() && value.get("promptFeedback").is_none() {
            // A chunk with only usage (or nothing this client reads).
            return Ok(false);
        }
        let reply = parse_reply(data).map_err(|e| e.to_string())?;
        if let Some(text) = reply.message.content.filter(|t| !t.is_empty()) {
            out.push_back(ModelEvent::TextDelta(text));
        }
        if let Some(signature) = reply.message.thought_signature {
            out.push_back(ModelEvent::ThoughtSignature(signature));
        }
        for call in reply.message.tool_calls {
            out.push_back(ModelEvent::ToolCallDelta {
                index: self.calls.len(),
                id: Some(call.id.clone()),
                name: Some(call.name.clone()),
                arguments: call.arguments.clone(),
            });
            self.calls.push(call);
        }
        if reply.usage != Usage::default() {
            self.usage = reply.usage;
        }
        // Every chunk says why it stopped once it has; the last says it for good.
        let stopped = serde_json::from_str::<Value>(data)
            .ok()
            .and_then(|v| v["candidates"][0]["finishReason"].as_str().map(str::to_string));
        if stopped.is_some() {
            self.finish = Some(reply.finish_reason);
        }
        Ok(false)
    }

    fn end(&mut self, out: &mut VecDeque<ModelEvent>) -> bool {
        let Some(finish) = self.finish.take() else { return false };
        let finish = if self.calls.is_empty() { finish } else { FinishReason::ToolCalls };
        out.extend(std::mem::take(&mut self.calls).into_iter().map(ModelEvent::ToolCall));
        out.push_back(ModelEvent::Usage(self.usage));
        out.push_back(ModelEvent::Finished(finish));
        true
    }
}

/// Parses a `generateContent` reply.
fn parse_reply(text: &str) -> Result<ModelReply, ModelError> {
    let reply: Reply = serde_json::from_str(text).map_err(|e| ModelError::MalformedResponse {
        message: format!("{e}; the response began: {}", head(text, 200)),
    })?;
    let usage = reply.usage_metadata.map_or_else(Usage::default, |u| {
        Usage::new(u.prompt_token_count, u.candidates_token_count.saturating_add(u.thoughts_token_count))
    });
    let Some(candidate) = reply.candidates.into_iter().next() else {
        if reply.prompt_feedback.as_ref().is_some_and(|f| f.get("blockReason").is_some()) {
            let message = AssistantMessage::default();
            return Ok(ModelReply { message, finish_reason: FinishReason::ContentFilter, usage });
        }
        return Err(ModelError::MalformedResponse { message: "the reply has no candidates".into() });
    };
    let mut content = String::new();
    let mut tool_calls = Vec::new();
    let mut text_signature = None;
    for part in candidate.content.map(|c| c.parts).unwrap_or_default() {
        let Part { text, thought, function_call, thought_signature } = part;
        let thought_signature = thought_signature.filter(|s| !s.is_empty());
        if let Some(call) = function_call {
            let id = call.id.filter(|id| !id.is_empty()).unwrap_or_else(|| format!("{MADE_UP_ID}{}", unique()));
            let arguments = if call.args.is_null() { "{}".to_string() } else { call.args.to_string() };
            tool_calls.push(ToolCall { thought_signature, ..ToolCall::new(id, call.name, arguments) });
            continue;
        }
        // Any other part's signature (text, often empty, or a thought) goes back on the text.
        if thought_signature.is_some() {
            text_signature = thought_signature;
        }
        if let Some(text) = text.filter(|_| thought != Some(true)) {
            content.push_str(&text);
        }
    }
    let finish_reason = match candidate.finish_reason.as_deref() {
        _ if !tool_calls.is_empty() => FinishReason::ToolCalls,
        None | Some("STOP" | "FINISH_REASON_UNSPECIFIED") => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY") => {
            FinishReason::ContentFilter
        }
        Some(other) => {
            tracing::warn!(finish_reason = %other, "the model stopped for a reason this client does not know; the reply is kept");
            FinishReason::Other(other.to_string())
        }
    };
    let message = AssistantMessage {
        content: (!content.is_empty()).then_some(content),
        tool_calls,
        refusal: None,
        thought_signature: text_signature,
        echo: None,
    };
    Ok(ModelReply { message, finish_reason, usage })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_carry_the_name_of_their_call_and_made_up_ids_stay_home() {
        let conversation = [
            Message::system("Be brief."),
            Message::user("Add and multiply."),
            Message::Assistant(AssistantMessage::calls(vec![
                ToolCall::new("gemini-7", "add", r#"{"a":1}"#),
                ToolCall::new("fc_2", "mul", r#"{"a":2}"#),
            ])),
            Message::Tool { tool_call_id: "gemini-7".into(), content: "2".into(), is_error: false, parts: vec![] },
            Message::Tool { tool_call_id: "fc_2".into(), content: "4".into(), is_error: false, parts: vec![] },
        ];
        let (system, contents) = contents(&conversation);
        assert_eq!(system, "Be brief.");
        assert_eq!(contents.len(), 3);
        assert_eq!(contents[1]["role"], "model");
        assert_eq!(contents[1]["parts"][0], json!({"functionCall": {"name": "add", "args": {"a": 1}}}));
        assert_eq!(contents[1]["parts"][1]["functionCall"]["id"], "fc_2");
        assert_eq!(
            contents[2],
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "add", "response": {"output": "2"}}},
                {"functionResponse": {"name": "mul", "response": {"output": "4"}, "id": "fc_2"}}
            ]})
        );
    }

    #[test]
    fn tool_choice_becomes_the_function_calling_mode() {
        let spec = crate::spec::ToolSpec::new(
            "add",
            "Add.",
            json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
        );
        let specs = [&spec];
        let messages = [Message::user("hi")];
        for (choice, config) in [
            (ToolChoice::Auto, json!({"mode": "AUTO"})),
            (ToolChoice::None, json!({"mode": "NONE"})),
            (ToolChoice::Required, json!({"mode": "ANY"})),
            (ToolChoice::Tool("add".into()), json!({"mode": "ANY", "allowedFunctionNames": ["add"]})),
        ] {
            let body = body(&ModelRequest::new(&messages, &specs).tool_choice(&choice));
            assert_eq!(body["toolConfig"]["functionCallingConfig"], config, "{choice:?}");
            assert_eq!(body["tools"][0]["functionDeclarations"][0]["name"], "add");
        }
        assert!(body(&ModelRequest::new(&messages, &[])).get("toolConfig").is_none());
    }

    #[test]
    fn replies_map_parts_reasons_and_blocked_prompts() {
        let reply = parse_reply(
            r#"{"candidates":[{"content":{"role":"model","parts":[
                {"text":"thinking...","thought":true},{"text":"Sure."},
                {"functionCall":{"name":"add","args":{"a":1}}}]},"finishReason":"STOP"}],
              "usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"totalTokenCount":13}}"#,
        )
        .unwrap();
        assert_eq!(reply.message.content.as_deref(), Some("Sure."));
        assert_eq!(reply.message.tool_calls[0].name, "add");
        assert!(reply.message.tool_calls[0].id.starts_with(MADE_UP_ID));
        assert_eq!(reply.finish_reason, FinishReason::ToolCalls);
        assert_eq!(reply.usage, Usage::new(9, 4));
        let cut = parse_reply(r#"{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"MAX_TOKENS"}]}"#);
        assert_eq!(cut.unwrap().finish_reason, FinishReason::Length);
        let blocked = parse_reply(r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#).unwrap();
        assert_eq!(blocked.finish_reason, FinishReason::ContentFilter);
        assert!(parse_reply(r#"{"candidates":[]}"#).is_err());
    }
}
