//! A client for the OpenAI Chat Completions API and the servers that speak it.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{AssistantMessage, FinishReason, Message, Model, ModelError, ModelReply, ModelRequest, Usage};
use crate::{Target, ToolCall};

const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
const DEFAULT_MODEL: &str = "gpt-4o-mini";
/// A `Retry-After` longer than this is not waited for: the error is returned at once.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

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
/// tool call of the reply. A 429 or 5xx is retried with exponential backoff and full
/// jitter, honouring `Retry-After` / `retry-after-ms` (up to 60 s; a longer wait
/// returns the error at once); a request that gets no complete response within the
/// timeout fails with [`ModelError::Timeout`], and is not retried (it already took the
/// whole timeout). A refused connection fails at once with the URL.
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
    http: reqwest::Client,
    url: String,
    api_key: String,
    key_variable: &'static str,
    model: String,
    timeout: Duration,
    max_retries: u32,
    backoff: Duration,
    max_backoff: Duration,
}

/// Builds an [`OpenAiCompatible`] client.
#[derive(Default)]
pub struct OpenAiCompatibleBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    key_variable: Option<&'static str>,
    model: Option<String>,
    timeout: Option<Duration>,
    connect_timeout: Option<Duration>,
    max_retries: Option<u32>,
    backoff: Option<Duration>,
    max_backoff: Option<Duration>,
}

impl OpenAiCompatible {
    /// A builder; unset fields come from the environment when built.
    pub fn builder() -> OpenAiCompatibleBuilder {
        OpenAiCompatibleBuilder::default()
    }

    /// A client configured from the environment (see the table above).
    pub fn from_env() -> Result<Self, ModelError> {
        Self::builder().build()
    }

    /// The model's name, as sent.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The endpoint requests go to (`{base}/chat/completions`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends one request, retrying 429 and 5xx.
    async fn send(&self, request: ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let body = Body::of(&self.model, &request);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let sent = self
                .http
                .post(&self.url)
                .bearer_auth(&self.api_key)
                .timeout(self.timeout)
                .json(&body)
                .send()
                .await
                .map_err(|e| self.network_error(e))?;
            let status = sent.status();
            let headers = sent.headers().clone();
            let text = sent.text().await.map_err(|e| self.network_error(e))?;
            if status.is_success() {
                return parse_reply(&text);
            }
            let message = self.scrub(&provider_message(&text));
            let retryable = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
            if retryable && attempt <= self.max_retries {
                let delay = match retry_after(&headers) {
                    Some(wait) if wait > MAX_RETRY_AFTER => None,
                    Some(wait) => Some(wait),
                    None => Some(self.backoff_for(attempt)),
                };
                if let Some(delay) = delay {
                    tracing::warn!(
                        status = status.as_u16(),
                        attempt,
                        delay_ms = delay.as_millis() as u64,
                        "model request failed; retrying"
                    );
                    tokio::time::sleep(delay).await;
                    continue;
                }
            }
            return Err(self.status_error(status, attempt, message));
        }
    }

    fn status_error(&self, status: StatusCode, attempts: u32, message: String) -> ModelError {
        let url = self.url.clone();
        match status.as_u16() {
            401 | 403 => {
                ModelError::Unauthorized { url, status: status.as_u16(), message, variable: self.key_variable }
            }
            404 => ModelError::ModelNotFound { model: self.model.clone(), url, message },
            429 => ModelError::RateLimited { url, attempts, message },
            s if status.is_server_error() => ModelError::Server { url, status: s, attempts, message },
            s => ModelError::Rejected { url, status: s, message },
        }
    }

    fn network_error(&self, e: reqwest::Error) -> ModelError {
        if e.is_timeout() {
            return ModelError::Timeout { url: self.url.clone(), timeout: self.timeout };
        }
        // The error chain says why (refused, DNS, TLS); the URL says where.
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        ModelError::Unreachable { url: self.url.clone(), message: self.scrub(&message) }
    }

    /// Exponential backoff with full jitter: a random wait in `[d/2, d]`, where `d`
    /// doubles per attempt up to the maximum.
    fn backoff_for(&self, attempt: u32) -> Duration {
        let d = self.backoff.saturating_mul(1 << (attempt - 1).min(16)).min(self.max_backoff);
        let half = d / 2;
        half + half.mul_f64(jitter())
    }

    /// Removes the key from a message (providers echo keys back in 401 messages).
    fn scrub(&self, message: &str) -> String {
        if self.api_key.len() >= 4 { message.replace(&self.api_key, "[redacted]") } else { message.to_string() }
    }
}

impl Model for OpenAiCompatible {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(self.send(request))
    }

    fn name(&self) -> &str {
        &self.model
    }
}

impl fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatible")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &"[redacted]")
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

impl OpenAiCompatibleBuilder {
    /// The API's base URL, for example `http://localhost:11434/v1` for Ollama (default:
    /// `OPENAI_BASE_URL`, else OpenAI's).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API key (default: from `OPENAI_API_KEY`).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Reads the key from this environment variable instead of `OPENAI_API_KEY`.
    pub fn key_variable(mut self, variable: &'static str) -> Self {
        self.key_variable = Some(variable);
        self
    }

    /// The model (default: `TOOLKIT_MODEL`, else `gpt-4o-mini`).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// How long one request may take, response body included (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How long connecting may take (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// How many times a 429 or 5xx is retried (default 3).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = Some(retries);
        self
    }

    /// The first retry's backoff (default 500 ms) and the most any backoff may be
    /// (default 20 s); each retry doubles it, with jitter.
    pub fn backoff(mut self, first: Duration, max: Duration) -> Self {
        self.backoff = Some(first);
        self.max_backoff = Some(max);
        self
    }

    /// The client, or [`ModelError::MissingKey`] naming the variable to set.
    pub fn build(self) -> Result<OpenAiCompatible, ModelError> {
        let key_variable = self.key_variable.unwrap_or("OPENAI_API_KEY");
        let api_key = self
            .api_key
            .or_else(|| std::env::var(key_variable).ok())
            .filter(|k| !k.trim().is_empty())
            .ok_or(ModelError::MissingKey { variable: key_variable })?;
        let base_url = self
            .base_url
            .or_else(|| std::env::var("OPENAI_BASE_URL").ok().filter(|u| !u.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let model = self
            .model
            .or_else(|| std::env::var("TOOLKIT_MODEL").ok().filter(|m| !m.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let http = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout.unwrap_or(Duration::from_secs(10)))
            .build()
            .map_err(|e| ModelError::Other(Box::new(e)))?;
        Ok(OpenAiCompatible {
            http,
            url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
            api_key,
            key_variable,
            model,
            timeout: self.timeout.unwrap_or(Duration::from_secs(60)),
            max_retries: self.max_retries.unwrap_or(3),
            backoff: self.backoff.unwrap_or(Duration::from_millis(500)),
            max_backoff: self.max_backoff.unwrap_or(Duration::from_secs(20)),
        })
    }
}

/// The request body.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: &'a [Message],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
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
            messages: request.messages,
            tool_choice: with_tools.then(|| request.tool_choice.to_json()),
            parallel_tool_calls: with_tools.then_some(request.parallel_tool_calls),
            tools,
        }
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
}

#[derive(Deserialize)]
struct WireCall {
    #[serde(default)]
    id: Option<String>,
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
            ToolCall::new(id, c.function.name, arguments)
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
        total_tokens: u.total_tokens.unwrap_or(u.prompt_tokens + u.completion_tokens),
    });
    let message = AssistantMessage { content: choice.message.content, tool_calls, refusal: choice.message.refusal };
    Ok(ModelReply { message, finish_reason, usage })
}

/// The provider's error message (`{"error": {"message": ...}}`), else the body's head.
fn provider_message(text: &str) -> String {
    #[derive(Deserialize)]
    struct Envelope {
        error: Inner,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Inner {
        Object { message: String },
        Text(String),
    }
    match serde_json::from_str::<Envelope>(text) {
        Ok(Envelope { error: Inner::Object { message } | Inner::Text(message) }) => message,
        Err(_) if text.trim().is_empty() => "(empty response body)".into(),
        Err(_) => head(text, 200).to_string(),
    }
}

/// `retry-after-ms` (OpenAI) or `Retry-After` in seconds.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<f64>().ok());
    if let Some(ms) = get("retry-after-ms").filter(|ms| ms.is_finite() && *ms >= 0.0) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    get("retry-after").filter(|s| s.is_finite() && *s >= 0.0).map(Duration::from_secs_f64)
}

fn head(text: &str, chars: usize) -> &str {
    text.char_indices().nth(chars).map_or(text, |(i, _)| &text[..i])
}

fn unique() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A number in `[0, 1)` for jitter: a hash of the clock and a counter is enough here
/// (spreading retries, not cryptography).
fn jitter() -> f64 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos() as u64).unwrap_or(0);
    let mut x = nanos ^ unique().wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64
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

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let client = OpenAiCompatible::builder()
            .api_key("k")
            .base_url("http://127.0.0.1:9")
            .backoff(Duration::from_millis(100), Duration::from_millis(350))
            .build()
            .unwrap();
        for _ in 0..50 {
            let first = client.backoff_for(1);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100), "{first:?}");
            let third = client.backoff_for(3);
            assert!(third >= Duration::from_millis(175) && third <= Duration::from_millis(350), "{third:?}");
        }
    }
}
