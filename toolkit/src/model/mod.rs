//! Language models, as the agent loop sees them: a [`Model`] takes the conversation and
//! the tool specs and replies with text or tool calls.
//!
//! - [`ScriptedModel`] replays a fixed conversation: every example runs offline with it,
//!   and every test is deterministic.
//! - `OpenAiCompatible` (feature `openai`) speaks the Chat Completions API: OpenAI,
//!   DeepSeek, Ollama, vLLM, and any server that implements it.
//! - `OpenAiResponses` (feature `openai`) speaks the OpenAI Responses API.
//! - `Anthropic` (feature `anthropic`) speaks the Anthropic Messages API (Claude).
//! - `Gemini` (feature `gemini`) speaks the Gemini API (`generateContent`).
//!
//! The HTTP clients share one transport: 408, 409, 429, 5xx but 501, a connection
//! closed before the reply, and an error a stream reports as transient before any of
//! the reply reached the caller are retried with backoff, honouring the provider's
//! wait (`retry-after`, Gemini's `RetryInfo`) up to a limit; a missing key, a refused
//! connection or a timeout fails at once with a message naming the variable or the
//! URL; the key never appears in an error, and a provider's error page is cut to a
//! readable head.
//!
//! The conversation is kept in the Chat Completions wire format ([`Message`]), the one
//! format every provider of that API reads, so a transcript can be sent, stored and
//! replayed as is.
//!
//! A tool result's [parts](crate::parts) go in each API's shape ([the
//! table](crate::parts#what-each-api-gets)).
//!
//! # Why `Model` is object-safe
//!
//! An agent holds its model as `Arc<dyn Model>`: a program picks the model at run time
//! (a real client when a key is set, a scripted one otherwise) without every type that
//! holds an agent becoming generic over it. The price is one boxed future per model
//! turn, which is nothing next to a network round trip or a scripted reply.

use std::fmt;
use std::ops::AddAssign;
use std::sync::Arc;

/// The future a [`Model`] returns (re-exported so implementations need no other crate).
pub use futures_util::future::BoxFuture;
/// The stream traits, for reading [`Model::stream`] and
/// [`Agent::run_stream`](crate::agent::Agent::run_stream) (`.next().await`) with no
/// other crate.
pub use futures_util::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::ToolSpec;

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(feature = "openai")]
mod chat_stream;
#[cfg(feature = "anthropic")]
mod claude_reply;
#[cfg(feature = "anthropic")]
mod claude_stream;
#[cfg(feature = "openai")]
mod embeddings;
mod error;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod error_text;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod http;
mod message;
#[cfg(feature = "openai")]
mod openai;
#[cfg(feature = "openai")]
mod openai_wire;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod parts_wire;
#[cfg(feature = "openai")]
mod responses;
#[cfg(feature = "openai")]
mod responses_reply;
#[cfg(feature = "openai")]
mod responses_stream;
#[cfg(feature = "openai")]
mod responses_tools;
mod scripted;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod sse;
mod stream;

#[cfg(feature = "anthropic")]
#[cfg_attr(docsrs, doc(cfg(feature = "anthropic")))]
pub use anthropic::{Anthropic, AnthropicBuilder};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use embeddings::{OpenAiEmbeddings, OpenAiEmbeddingsBuilder};
pub use error::ModelError;
#[cfg(feature = "gemini")]
#[cfg_attr(docsrs, doc(cfg(feature = "gemini")))]
pub use gemini::{Gemini, GeminiBuilder};
pub use message::{AssistantMessage, Echo, Message};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use openai::{OpenAiCompatible, OpenAiCompatibleBuilder};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use responses::{OpenAiResponses, OpenAiResponsesBuilder};
pub use scripted::{RecordedRequest, ScriptedModel, Turn};
pub use stream::{ModelEvent, ModelStream, collect};

/// A language model that can call tools.
///
/// Implement it for a provider with another wire format; the agent loop only needs
/// this one method.
pub trait Model: Send + Sync {
    /// Sends the conversation and the tools; returns the model's next message.
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>>;

    /// The model's name, for spans and logs (default: `"model"`).
    fn name(&self) -> &str {
        "model"
    }

    /// Whether the provider searches deferred tools itself (Anthropic's tool search):
    /// an agent run then sends it every tool, the deferred ones marked
    /// ([`ToolSpec::deferred`](crate::ToolSpec::deferred)), instead of toolkit's
    /// `search_tools` and the tools found so far (see [`search`](crate::search)).
    /// Default: `false`.
    fn searches_tools(&self) -> bool {
        false
    }

    /// Sends the conversation and the tools; the reply as it is written. The default
    /// gives the whole reply of [`complete`](Self::complete) at once; clients that can
    /// stream override it. Dropping the stream cancels the request.
    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        use futures_util::StreamExt;
        futures_util::stream::once(self.complete(request))
            .flat_map(|reply| {
                let events = match reply {
                    Ok(reply) => stream::replay(reply),
                    Err(e) => vec![Err(e)],
                };
                futures_util::stream::iter(events)
            })
            .boxed()
    }
}

impl<M: Model + ?Sized> Model for Arc<M> {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        (**self).complete(request)
    }

    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        (**self).stream(request)
    }

    fn name(&self) -> &str {
        (**self).name()
    }

    fn searches_tools(&self) -> bool {
        (**self).searches_tools()
    }
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        (**self).complete(request)
    }

    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        (**self).stream(request)
    }

    fn name(&self) -> &str {
        (**self).name()
    }

    fn searches_tools(&self) -> bool {
        (**self).searches_tools()
    }
}

/// One request to a model: the conversation so far and the tools it may call.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ModelRequest<'a> {
    /// The conversation, oldest first.
    pub messages: &'a [Message],
    /// The tools the model may call (empty: no tools are sent).
    pub tools: &'a [&'a ToolSpec],
    /// Whether, and which, tools the model must call.
    pub tool_choice: &'a ToolChoice,
    /// Whether the model may ask for several calls in one message.
    pub parallel_tool_calls: bool,
    /// Send every tool in strict mode (OpenAI Structured Outputs) rather than only the
    /// tools that ask for it.
    pub strict: bool,
    /// The shape the final answer must take, if any (a typed run: each client asks for
    /// it in its provider's native way).
    pub response_format: Option<&'a ResponseFormat>,
    /// The toolbox's namespaces ([`Namespace`](crate::search::Namespace)): a client whose
    /// API groups tools (OpenAI Responses with tool search) sends the tools in them as
    /// groups; others send every tool on its own.
    pub namespaces: &'a [crate::search::Namespace],
}

/// The shape a final answer must take: a JSON value of this schema. Each client asks
/// for it natively: OpenAI Chat `response_format` (`json_schema`, strict when the schema
/// can be), Responses `text.format`, Gemini `responseMimeType` + `responseJsonSchema`,
/// Anthropic a `final_answer` tool the model is made to call to finish (its input is the
/// answer).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResponseFormat {
    /// A name for the schema (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// The canonical JSON Schema of the answer.
    pub schema: Value,
}

impl ResponseFormat {
    /// The format of `T`'s JSON Schema, named after the type.
    ///
    /// ```
    /// #[derive(schemars::JsonSchema)]
    /// struct Weather { city: String, celsius: f64 }
    /// let format = toolkit::model::ResponseFormat::of::<Weather>();
    /// assert_eq!(format.name, "Weather");
    /// assert_eq!(format.schema["required"], serde_json::json!(["city", "celsius"]));
    /// ```
    pub fn of<T: schemars::JsonSchema + ?Sized>() -> Self {
        let name: String = T::schema_name()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
            .take(64)
            .collect();
        let name = if name.is_empty() { "answer".to_string() } else { name };
        ResponseFormat { name, schema: crate::schema::builder::output_schema::<T>() }
    }

    /// A format of any schema.
    pub fn new(name: impl Into<String>, schema: Value) -> Self {
        ResponseFormat { name: name.into(), schema }
    }

    /// The schema for OpenAI's strict structured outputs when it can be strict, else the
    /// plain one; and whether it is strict.
    #[cfg(feature = "openai")]
    pub(crate) fn openai(&self) -> (Value, bool) {
        if crate::schema::openai::problems(&self.schema).is_empty() {
            (crate::schema::openai::strict_schema(&self.schema), true)
        } else {
            (self.schema.clone(), false)
        }
    }
}

impl<'a> ModelRequest<'a> {
    /// A request with automatic tool choice, parallel calls allowed, not strict.
    pub fn new(messages: &'a [Message], tools: &'a [&'a ToolSpec]) -> Self {
        ModelRequest {
            messages,
            tools,
            tool_choice: &ToolChoice::Auto,
            parallel_tool_calls: true,
            strict: false,
            response_format: None,
            namespaces: &[],
        }
    }

    /// Names the namespaces the tools are grouped in.
    pub fn namespaces(mut self, namespaces: &'a [crate::search::Namespace]) -> Self {
        self.namespaces = namespaces;
        self
    }

    /// Asks for a final answer of this shape.
    pub fn response_format(mut self, format: &'a ResponseFormat) -> Self {
        self.response_format = Some(format);
        self
    }

    /// Sets the tool choice.
    pub fn tool_choice(mut self, choice: &'a ToolChoice) -> Self {
        self.tool_choice = choice;
        self
    }

    /// Allows or forbids several calls per message.
    pub fn parallel_tool_calls(mut self, parallel: bool) -> Self {
        self.parallel_tool_calls = parallel;
        self
    }

    /// Sends every tool in strict mode.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The `role: "tool"` messages at the end of the conversation (the results of the
    /// previous turn's calls), as `(tool_call_id, content)`.
    pub fn tool_results(&self) -> Vec<(&'a str, &'a str)> {
        trailing_tool_results(self.messages)
    }
}

/// The `role: "tool"` messages that end `messages`, in order.
pub(crate) fn trailing_tool_results(messages: &[Message]) -> Vec<(&str, &str)> {
    let start = messages.iter().rposition(|m| !matches!(m, Message::Tool { .. })).map_or(0, |i| i + 1);
    messages[start..]
        .iter()
        .filter_map(|m| match m {
            Message::Tool { tool_call_id, content, .. } => Some((tool_call_id.as_str(), content.as_str())),
            _ => None,
        })
        .collect()
}

/// The model's answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelReply {
    /// What the model said: text, tool calls, or both.
    pub message: AssistantMessage,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// Tokens used by this request.
    pub usage: Usage,
}

/// Why a model stopped writing (`finish_reason`). Providers add reasons (DeepSeek's
/// `insufficient_system_resource`, say): one this crate does not know is
/// [`Other`](Self::Other) with its wire name, and the reply is kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// A natural end: the message is the answer.
    Stop,
    /// The message asks for tool calls.
    ToolCalls,
    /// The output hit the token limit and is cut.
    Length,
    /// The provider's content filter withheld (part of) the output.
    ContentFilter,
    /// A reason this crate does not know, by its wire name.
    #[serde(untagged)]
    Other(String),
}

impl FinishReason {
    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Other(name) => name,
        }
    }

    /// Parses a wire name; `function_call` (the legacy name) is [`ToolCalls`](Self::ToolCalls),
    /// and a name this crate does not know is [`Other`](Self::Other).
    ///
    /// ```
    /// use toolkit::model::FinishReason;
    /// assert_eq!(FinishReason::parse("stop"), FinishReason::Stop);
    /// assert_eq!(
    ///     FinishReason::parse("insufficient_system_resource"),
    ///     FinishReason::Other("insufficient_system_resource".into())
    /// );
    /// ```
    pub fn parse(name: &str) -> Self {
        match name {
            "stop" => FinishReason::Stop,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "length" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for FinishReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Tokens used, as providers count them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the request.
    pub prompt_tokens: u64,
    /// Tokens in the reply.
    pub completion_tokens: u64,
    /// Their sum, as the provider reports it.
    pub total_tokens: u64,
}

impl Usage {
    /// Usage of `prompt` request tokens and `completion` reply tokens.
    pub fn new(prompt: u64, completion: u64) -> Self {
        Usage { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt.saturating_add(completion) }
    }
}

/// Counts add up saturating: a provider's count is not trusted not to overflow.
impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(other.completion_tokens);
        self.total_tokens = self.total_tokens.saturating_add(other.total_tokens);
    }
}

/// OpenAI's `mode` of an `allowed_tools` choice.
pub(crate) fn allowed_mode(required: bool) -> &'static str {
    if required { "required" } else { "auto" }
}

/// Whether, and which, tools the model must call (`tool_choice`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// The model decides (the default).
    #[default]
    Auto,
    /// The model must not call tools.
    None,
    /// The model must call at least one tool.
    Required,
    /// The model must call this tool.
    Tool(String),
    /// The model may call only these tools (and must call one when `required`), while
    /// every tool stays in the request: OpenAI's `allowed_tools`, which keeps the
    /// prompt cache; Gemini's `allowedFunctionNames` when `required`. Where the provider
    /// has no such field (Anthropic; Gemini when not `required`), only these tools are
    /// sent.
    Allowed {
        /// The names of the tools the model may call.
        tools: Vec<String>,
        /// Whether it must call one of them.
        required: bool,
    },
}

impl ToolChoice {
    /// The `tool_choice` field of a Chat Completions request.
    ///
    /// ```
    /// use toolkit::model::ToolChoice;
    /// assert_eq!(ToolChoice::Required.to_json(), "required");
    /// assert_eq!(
    ///     ToolChoice::Tool("get_weather".into()).to_json().to_string(),
    ///     r#"{"type":"function","function":{"name":"get_weather"}}"#
    /// );
    /// ```
    pub fn to_json(&self) -> Value {
        match self {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
            ToolChoice::Allowed { tools, required } => {
                let tools: Vec<Value> =
                    tools.iter().map(|name| json!({"type": "function", "function": {"name": name}})).collect();
                json!({"type": "allowed_tools", "allowed_tools": {"mode": allowed_mode(*required), "tools": tools}})
            }
        }
    }

    /// True when the model is made to call a tool (`required`, a named tool, or one of
    /// the allowed tools when they are required).
    pub fn forces_a_call(&self) -> bool {
        matches!(self, ToolChoice::Required | ToolChoice::Tool(_) | ToolChoice::Allowed { required: true, .. })
    }

    /// The tools a request may send when the provider has no `allowed_tools`: only the
    /// allowed ones (all of them for any other choice).
    #[cfg(any(feature = "anthropic", feature = "gemini"))]
    pub(crate) fn sendable(&self, spec: &ToolSpec) -> bool {
        match self {
            ToolChoice::Allowed { tools, .. } => tools.contains(&spec.name),
            _ => true,
        }
    }
}
