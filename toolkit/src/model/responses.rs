//! A client for the OpenAI Responses API.
//!
//! | toolkit | Responses API |
//! |---|---|
//! | `Message::System` | `instructions` (several are joined by a blank line) |
//! | `Message::User` | an input message `{"role": "user", "content": ...}` |
//! | `Message::Assistant` | an assistant message for its text, then one `function_call` item per call |
//! | `Message::Tool` | a `function_call_output` item (`call_id`, `output`; the API has no error flag: a failure is told by its text) |
//! | `ToolChoice::Auto` / `None` / `Required` / `Tool(name)` | `tool_choice` `auto` / `none` / `required` / `{"type": "function", "name"}` |
//! | tools | [`Target::OpenAiResponses`](crate::Target::OpenAiResponses) exports (`strict` per tool, or for all when the request asks) |
//! | a reply with a program (programmatic tool calling) | its output items but reasoning, sent back exactly ([`AssistantMessage::echo`](super::AssistantMessage::echo)); the tools programs may call come with `allowed_callers` and `output_schema`, and the request with the `programmatic_tool_calling` tool |
//! | a call to a free-form tool | a `custom_tool_call` item (`input`: the parameter's text), its result a `custom_tool_call_output` |
//! | deferred tools and [`Namespace`](crate::search::Namespace)s, with [`tool_search`](OpenAiResponsesBuilder::tool_search) on | every tool sent: deferred ones with `defer_loading: true`, a namespace's tools in one `namespace` tool, the hosted `tool_search` in place of toolkit's `search_tools`; `tool_search_call` and `tool_search_output` items go back in the echo, and calls to namespaced tools (and their outputs) name the namespace |
//!
//! Requests are sent with `store: false`: the conversation is toolkit's, sent whole each
//! turn, and nothing is kept on the provider's side. The reply's `output` items become
//! the message: `output_text` parts its text, `refusal` parts its refusal,
//! `function_call` items its calls (by `call_id`), `custom_tool_call` items the calls
//! of free-form tools (their `input` text as the tool's one parameter); `reasoning` and
//! other items are skipped. `status: "incomplete"` maps `max_output_tokens` to
//! [`FinishReason::Length`](super::FinishReason::Length) and `content_filter` to [`FinishReason::ContentFilter`](super::FinishReason::ContentFilter).

use std::fmt;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::ModelStream;
use super::http::{Settings, Transport};
use super::openai_wire::Custom;
use super::responses_reply::{ECHO, parse_reply};
use super::responses_stream::ResponsesChunks;
use super::sse;
use super::{Echo, Message, Model, ModelError, ModelReply, ModelRequest, ToolChoice};

/// A model behind the OpenAI Responses API (`POST {base}/responses`). Available with
/// the feature `openai`; configured like [`OpenAiCompatible`](super::OpenAiCompatible)
/// (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `TOOLKIT_MODEL`), with the same retries and
/// errors.
///
/// ```no_run
/// use toolkit::model::OpenAiResponses;
/// let model = OpenAiResponses::from_env()?;
/// # Ok::<(), toolkit::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct OpenAiResponses {
    transport: Transport,
    /// The API searches deferred tools itself (`tool_search`), and takes namespaces.
    tool_search: bool,
}

/// Builds an [`OpenAiResponses`] client.
#[derive(Default)]
pub struct OpenAiResponsesBuilder {
    settings: Settings,
    tool_search: bool,
}

impl OpenAiResponses {
    super::http::client_accessors!(builder: OpenAiResponsesBuilder, path: "{base}/responses");

    async fn send(&self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let fitted = self.transport.fit(request.messages);
        let body = body(&self.transport.model, &request.with_messages(&fitted), self.tool_search);
        let text = self.transport.post(&body).await?;
        parse_reply(&text, &Custom::of(request.tools))
    }
}

impl Model for OpenAiResponses {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(self.send(request))
    }

    /// Streams the reply (`stream: true`): `response.output_text.delta` as text,
    /// `response.function_call_arguments.delta` (`response.custom_tool_call_input.delta`
    /// for a free-form tool: its text) per output item, and the whole
    /// response at `response.completed` (or `response.incomplete`), read as
    /// [`complete`](Model::complete) reads one; `response.failed` and `error` are errors,
    /// and other event types are skipped.
    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        let fitted = self.transport.fit(request.messages);
        let mut body = body(&self.transport.model, &request.with_messages(&fitted), self.tool_search);
        body["stream"] = Value::Bool(true);
        let chunks = ResponsesChunks::new(Custom::of(request.tools));
        sse::stream(&self.transport, &body, chunks)
    }

    fn name(&self) -> &str {
        &self.transport.model
    }

    /// With [`tool_search`](OpenAiResponsesBuilder::tool_search) on, the API's hosted
    /// tool search finds the deferred tools (sent with `defer_loading: true`).
    fn searches_tools(&self) -> bool {
        self.tool_search
    }
}

impl fmt::Debug for OpenAiResponses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.transport.debug(f, "OpenAiResponses").field("tool_search", &self.tool_search).finish()
    }
}

impl OpenAiResponsesBuilder {
    super::http::builder_setters!(
        key: "OPENAI_API_KEY",
        base: "OPENAI_BASE_URL",
        base_default: "https://api.openai.com/v1",
        model_default: "gpt-4o-mini"
    );

    /// Lets the API search the toolbox's deferred tools itself, for models that have
    /// tool search (`gpt-5.4` and later): every tool is sent, the deferred ones with
    /// `defer_loading: true`, the tools of each [`Namespace`](crate::search::Namespace)
    /// inside one `namespace` tool, and the hosted `tool_search` tool in place of
    /// toolkit's `search_tools`. Off by default (toolkit's `search_tools` then serves
    /// every model); the API's `tool_search_call` and `tool_search_output` items go back
    /// in the message's echo.
    pub fn tool_search(mut self, on: bool) -> Self {
        self.tool_search = on;
        self
    }

    /// The client, or [`ModelError::MissingKey`] naming the variable to set.
    pub fn build(self) -> Result<OpenAiResponses, ModelError> {
        Ok(OpenAiResponses {
            transport: self.settings.build(super::openai::OPENAI_DEFAULTS, "/responses")?,
            tool_search: self.tool_search,
        })
    }
}

/// The request body.
fn body(model: &str, request: &ModelRequest<'_>, tool_search: bool) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model));
    let custom = Custom::of(request.tools);
    // The ids of calls sent as custom: their results are custom outputs.
    let mut custom_calls: Vec<&str> = Vec::new();
    // With tool search, a call to a namespaced tool and its output name the namespace.
    let mut namespaced: Vec<(&str, &str)> = Vec::new();
    let namespaces = if tool_search { request.namespaces } else { &[] };
    let mut instructions = Vec::new();
    let mut input = Vec::new();
    for message in request.messages {
        match message {
            Message::System { content } => instructions.push(content.as_str()),
            Message::User { content } => input.push(json!({"role": "user", "content": content})),
            Message::Assistant(assistant) => {
                // A reply with items only this API reads goes back exactly as it came.
                if let Some(echo) = Echo::of(assistant.echo.as_ref(), ECHO) {
                    for item in &echo.items {
                        if item["type"] == "custom_tool_call"
                            && let Some(id) = item["call_id"].as_str()
                        {
                            custom_calls.push(id);
                        }
                        if let (Some(id), Some(namespace)) = (item["call_id"].as_str(), item["namespace"].as_str()) {
                            namespaced.push((id, namespace));
                        }
                    }
                    input.extend(echo.items.iter().cloned());
                    continue;
                }
                if let Some(text) = assistant.content.as_deref().filter(|t| !t.is_empty()) {
                    input.push(json!({"role": "assistant", "content": text}));
                }
                for call in &assistant.tool_calls {
                    if let Some(freeform) = custom.get(&call.name) {
                        custom_calls.push(&call.id);
                        input.push(json!({
                            "type": "custom_tool_call", "call_id": call.id, "name": call.name,
                            "input": freeform.input(&call.arguments)
                        }));
                        continue;
                    }
                    let mut item = json!({
                        "type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments
                    });
                    if let Some(namespace) = super::responses_tools::namespace_of(namespaces, &call.name) {
                        item["namespace"] = Value::from(namespace.name());
                        namespaced.push((&call.id, namespace.name()));
                    }
                    input.push(item);
                }
            }
            Message::Tool { tool_call_id, content, parts, .. } => {
                let kind = if custom_calls.contains(&tool_call_id.as_str()) {
                    "custom_tool_call_output"
                } else {
                    "function_call_output"
                };
                let output = super::parts_wire::responses_output(content, parts);
                let mut item = json!({"type": kind, "call_id": tool_call_id, "output": output});
                if let Some(&(_, namespace)) = namespaced.iter().find(|(id, _)| *id == tool_call_id.as_str()) {
                    item["namespace"] = Value::from(namespace);
                }
                input.push(item);
            }
        }
    }
    if !instructions.is_empty() {
        body.insert("instructions".into(), Value::String(instructions.join("\n\n")));
    }
    body.insert("input".into(), Value::Array(input));
    if !request.tools.is_empty() {
        let tools = super::responses_tools::tools(request, tool_search);
        body.insert("tools".into(), Value::Array(tools));
        let named = |name: &String| {
            let kind = if custom.get(name).is_some() { "custom" } else { "function" };
            json!({"type": kind, "name": name})
        };
        let choice = match request.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => named(name),
            ToolChoice::Allowed { tools, required } => json!({
                "type": "allowed_tools",
                "mode": super::allowed_mode(*required),
                "tools": tools.iter().map(named).collect::<Vec<_>>()
            }),
        };
        body.insert("tool_choice".into(), choice);
        body.insert("parallel_tool_calls".into(), Value::Bool(request.parallel_tool_calls));
    }
    if let Some(format) = request.response_format {
        let (schema, strict) = format.openai();
        let format = json!({"type": "json_schema", "name": format.name, "schema": schema, "strict": strict});
        body.insert("text".into(), json!({"format": format}));
    }
    body.insert("store".into(), Value::Bool(false));
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use super::super::AssistantMessage;
    use super::*;
    use crate::call::ToolCall;

    #[test]
    fn conversations_become_input_items() {
        let conversation = [
            Message::system("Be brief."),
            Message::user("Add."),
            Message::Assistant(AssistantMessage::calls(vec![ToolCall::new("c1", "add", r#"{"a":1}"#)])),
            Message::Tool { tool_call_id: "c1".into(), content: "2".into(), is_error: false, parts: vec![] },
        ];
        let body = body("m", &ModelRequest::new(&conversation, &[]), false);
        assert_eq!(body["instructions"], "Be brief.");
        assert_eq!(
            body["input"],
            json!([
                {"role": "user", "content": "Add."},
                {"type": "function_call", "call_id": "c1", "name": "add", "arguments": "{\"a\":1}"},
                {"type": "function_call_output", "call_id": "c1", "output": "2"}
            ])
        );
        assert_eq!(body["store"], false);
        assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
    }

    #[test]
    fn tools_go_strict_when_asked_with_the_choice_in_responses_shape() {
        let spec = crate::spec::ToolSpec::new(
            "add",
            "Add.",
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}),
        );
        let specs = [&spec];
        let messages = [Message::user("hi")];
        let choice = ToolChoice::Tool("add".into());
        let request = ModelRequest::new(&messages, &specs).tool_choice(&choice).parallel_tool_calls(false).strict(true);
        let body = body("m", &request, false);
        assert_eq!(body["tools"][0]["strict"], true);
        assert_eq!(body["tools"][0]["name"], "add");
        assert_eq!(body["tool_choice"], json!({"type": "function", "name": "add"}));
        assert_eq!(body["parallel_tool_calls"], false);
        let plain = super::body("m", &ModelRequest::new(&messages, &specs), false);
        assert_eq!(plain["tools"][0]["strict"], false);
        assert_eq!(plain["tool_choice"], "auto");
    }
}
