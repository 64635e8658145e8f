//! Why a model request failed: [`ModelError`], whose messages name what to fix (the
//! variable to set, the endpoint, the provider's own words with the key scrubbed out).

use std::time::Duration;

/// `; the provider asked to wait 17s` for an error that said how long to wait.
fn asked_to_wait(wait: &Option<Duration>) -> String {
    match wait {
        None => String::new(),
        Some(wait) if wait.as_secs() >= 365 * 24 * 3600 => "; the provider asked to wait over a year".into(),
        Some(wait) => format!("; the provider asked to wait {wait:?}"),
    }
}

/// Why a model request failed. No variant ever holds an API key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// No API key was given and none is in the environment.
    #[error("no API key: set the {variable} environment variable (or run offline with a ScriptedModel)")]
    MissingKey {
        /// The variable to set.
        variable: &'static str,
    },
    /// The server rejected the key (401 or 403).
    #[error("the API key was rejected by {url} ({status}): {message}; check {variable}")]
    Unauthorized {
        /// The endpoint.
        url: String,
        /// 401 or 403.
        status: u16,
        /// The provider's message, with the key scrubbed out.
        message: String,
        /// The variable the key comes from.
        variable: &'static str,
    },
    /// The model does not exist there (404).
    #[error("model `{model}` was not found at {url} (404): {message}; check TOOLKIT_MODEL")]
    ModelNotFound {
        /// The model asked for.
        model: String,
        /// The endpoint.
        url: String,
        /// The provider's message.
        message: String,
    },
    /// Still rate limited (429) after every retry, or asked to wait longer than the
    /// client's `max_retry_wait` (then after one attempt: see `retry_after`).
    #[error("rate limited by {url} (429) after {attempts} attempts: {message}{}", asked_to_wait(.retry_after))]
    RateLimited {
        /// The endpoint.
        url: String,
        /// Requests made.
        attempts: u32,
        /// The provider's message.
        message: String,
        /// The wait the provider asked for in its last answer (`Retry-After`,
        /// `retry-after-ms`, or Gemini's `RetryInfo.retryDelay`), if it said. When it is
        /// longer than the client's `max_retry_wait`, the request was not retried:
        /// wait this long before asking again.
        retry_after: Option<Duration>,
    },
    /// A server error (5xx) after every retry (501 at once: it is not retried), or an
    /// answer that asked to wait longer than the client's `max_retry_wait` (then after
    /// one attempt: see `retry_after`).
    #[error("server error from {url} ({status}) after {attempts} attempts: {message}{}", asked_to_wait(.retry_after))]
    Server {
        /// The endpoint.
        url: String,
        /// The last status.
        status: u16,
        /// Requests made.
        attempts: u32,
        /// The provider's message.
        message: String,
        /// The wait the provider asked for in its last answer, if it said (as in
        /// [`RateLimited`](Self::RateLimited)).
        retry_after: Option<Duration>,
    },
    /// Any other refusal (400 for a schema the provider does not take, 422, ...).
    #[error("request rejected by {url} ({status}): {message}")]
    Rejected {
        /// The endpoint.
        url: String,
        /// The status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The server could not be reached at all (refused, unknown host, TLS, a malformed
    /// URL): not retried, since the address is most likely wrong.
    #[error("cannot reach {url}: {message}; check {variable}")]
    Unreachable {
        /// The endpoint.
        url: String,
        /// What the network stack said.
        message: String,
        /// The variable the base URL comes from (`OPENAI_BASE_URL`, ...).
        variable: &'static str,
    },
    /// The server was reached, but the connection closed (or broke) before the whole
    /// reply came, on every attempt. Retried like a 5xx: a model request is safe to send
    /// again. A streamed reply that breaks after it began is not this, but
    /// [`MalformedResponse`](Self::MalformedResponse) saying where it broke.
    #[error("the connection to {url} closed before a complete response, after {attempts} attempts: {message}")]
    ConnectionClosed {
        /// The endpoint.
        url: String,
        /// Requests made.
        attempts: u32,
        /// What the network stack said.
        message: String,
    },
    /// The provider reported an error in the middle of a streamed reply: Anthropic's
    /// `event: error`, an `error` object in an OpenAI or Gemini stream, the Responses
    /// API's `error` or `response.failed` event.
    ///
    /// An error the provider marks as transient (overloaded, an internal or server
    /// error, a rate limit, a timeout) is retried like a 5xx, with the same backoff and
    /// budget, but only while none of the reply has reached the caller. Once some has
    /// (`after_output`), the request is never retried: a retry would send the caller
    /// text or calls it already has, from a reply that may differ. The caller then
    /// decides, knowing that what it received is cut (the agent loop ends the run with
    /// this error; its transcript holds the turns before).
    #[error("{url} reported an error mid-stream ({kind}) after {attempts} attempts: {message}")]
    StreamError {
        /// The endpoint.
        url: String,
        /// The provider's type for it: Anthropic's `error.type` (`overloaded_error`),
        /// OpenAI's `type` or `code` (`server_error`), Gemini's `status`
        /// (`UNAVAILABLE`); `error` when it gave none.
        kind: String,
        /// The provider's message.
        message: String,
        /// Requests made.
        attempts: u32,
        /// Whether part of the reply had reached the caller before the error (then it
        /// was not retried).
        after_output: bool,
    },
    /// No complete response within the request timeout.
    #[error("no response from {url} within {timeout:?}")]
    Timeout {
        /// The endpoint.
        url: String,
        /// The request timeout.
        timeout: Duration,
    },
    /// The response is not a Chat Completions reply: not JSON, no choices, an unknown
    /// `finish_reason`.
    #[error("malformed response from the model: {message}")]
    MalformedResponse {
        /// What is wrong with it.
        message: String,
    },
    /// A [`ScriptedModel`](super::ScriptedModel) was asked for a turn it does not have, or a turn's
    /// expectation about the request failed.
    #[error("scripted model: {0}")]
    Script(String),
    /// Any other failure, from a [`Model`](super::Model) implemented elsewhere.
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
}
