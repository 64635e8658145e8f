//! What every HTTP model client shares: one POST with the key, retries with backoff
//! (honouring the provider's hint: `retry-after`, `retry-after-ms`, Gemini's
//! `RetryInfo`), and errors that name the endpoint and the variable to fix, with the key
//! scrubbed out and the provider's words cut to a readable head. A client adds only its
//! wire format.
//!
//! What is retried: 408, 409, 429 and 5xx but 501 (the answers a provider may not give
//! next time), and a connection that closed before the whole reply came (the server was
//! reached; a model request is safe to send again). Not retried: other 4xx (the request
//! is wrong, and stays wrong), 501 (the server does not do this, and will not), a
//! refused connection or an unknown host (the address is wrong: failing fast names the
//! variable to fix), a timeout (it already took the whole timeout).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::Serialize;

use super::ModelError;
use super::error_text::{MESSAGE_CHARS, head_with_ellipsis, provider_message, retry_delay};

/// The longest wait a provider's hint is honoured for, unless the builder says
/// otherwise: a longer one is not waited for, the error is returned at once.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// How a client sends its key.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(all(feature = "openai", any(feature = "anthropic", feature = "gemini"))), allow(dead_code))]
pub(crate) enum Auth {
    /// `Authorization: Bearer KEY` (OpenAI and compatible servers).
    Bearer,
    /// The key in a header of its own (`x-api-key` for Anthropic, `x-goog-api-key`
    /// for Gemini).
    Header(&'static str),
}

/// One endpoint, its key and its retry policy.
#[derive(Clone)]
pub(crate) struct Transport {
    pub(crate) http: reqwest::Client,
    pub(crate) url: String,
    pub(crate) api_key: String,
    pub(crate) auth: Auth,
    /// Headers every request carries (`anthropic-version`, say).
    pub(crate) headers: Vec<(&'static str, String)>,
    /// The environment variables that configure the client, for error messages.
    pub(crate) key_variable: &'static str,
    pub(crate) base_variable: &'static str,
    pub(crate) model: String,
    pub(crate) timeout: Duration,
    pub(crate) max_retries: u32,
    pub(crate) backoff: Duration,
    pub(crate) max_backoff: Duration,
    /// The longest retry hint waited for.
    pub(crate) max_retry_wait: Duration,
    /// The kinds of part the model takes in a tool result (`None`: all its API takes).
    pub(crate) result_parts: Option<Vec<crate::parts::PartKind>>,
}

/// The settings every HTTP client's builder has.
#[derive(Default, Clone)]
pub(crate) struct Settings {
    pub(crate) base_url: Option<String>,
    pub(crate) api_key: Option<String>,
    pub(crate) key_variable: Option<&'static str>,
    pub(crate) model: Option<String>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) connect_timeout: Option<Duration>,
    pub(crate) max_retries: Option<u32>,
    pub(crate) backoff: Option<Duration>,
    pub(crate) max_backoff: Option<Duration>,
    pub(crate) max_retry_wait: Option<Duration>,
    pub(crate) result_parts: Option<Vec<crate::parts::PartKind>>,
}

/// The setters every HTTP client's builder shares (over its `settings: Settings`),
/// documented with that client's variables and defaults.
macro_rules! builder_setters {
    (key: $key:literal, base: $base:literal, base_default: $base_default:literal, model_default: $model:literal) => {
        #[doc = concat!("The API's base URL (default: `", $base, "`, else `", $base_default, "`).")]
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.settings.base_url = Some(url.into());
            self
        }

        #[doc = concat!("The API key (default: from `", $key, "`).")]
        pub fn api_key(mut self, key: impl Into<String>) -> Self {
            self.settings.api_key = Some(key.into());
            self
        }

        #[doc = concat!("Reads the key from this environment variable instead of `", $key, "`.")]
        pub fn key_variable(mut self, variable: &'static str) -> Self {
            self.settings.key_variable = Some(variable);
            self
        }

        #[doc = concat!("The model (default: `TOOLKIT_MODEL`, else `", $model, "`).")]
        pub fn model(mut self, model: impl Into<String>) -> Self {
            self.settings.model = Some(model.into());
            self
        }

        /// How long one request may take, response body included (default 60 s). A
        /// streamed reply may take longer: the timeout applies until its headers, then
        /// to each wait between two of its events.
        pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.timeout = Some(timeout);
            self
        }

        /// How long connecting may take (default 10 s).
        pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.connect_timeout = Some(timeout);
            self
        }

        /// How many times a request is retried (default 3): after a 408, 409, 429 or
        /// 5xx other than 501, a connection closed before the whole reply came, or an
        /// error the provider reports as transient (overloaded, internal error, rate
        /// limit) at the start of a streamed reply, before any of it reached the caller.
        pub fn max_retries(mut self, retries: u32) -> Self {
            self.settings.max_retries = Some(retries);
            self
        }

        /// The longest wait a provider may ask for before a retry and have it honoured
        /// (default 60 s): `Retry-After`, `retry-after-ms`, or the `retryDelay` of
        /// Gemini's `RetryInfo` in the error body. A provider that asks for longer is not
        /// retried: the error ([`RateLimited`](crate::model::ModelError::RateLimited) or
        /// [`Server`](crate::model::ModelError::Server)) comes back at once, its
        /// `retry_after` saying how long the provider asked to wait.
        pub fn max_retry_wait(mut self, wait: std::time::Duration) -> Self {
            self.settings.max_retry_wait = Some(wait);
            self
        }

        /// The first retry's backoff (default 500 ms) and the most any backoff may be
        /// (default 20 s); each retry doubles it, with jitter.
        pub fn backoff(mut self, first: std::time::Duration, max: std::time::Duration) -> Self {
            self.settings.backoff = Some(first);
            self.settings.max_backoff = Some(max);
            self
        }

        /// The kinds of [part](crate::parts) this model takes in a tool result (default:
        /// every kind its API takes). A part of another kind is not sent; the model reads a
        /// line naming it instead (`[image/png image, 12.4 KiB] (not shown: this model
        /// takes no images)`). `[]` for a model that takes text only.
        pub fn result_parts(mut self, kinds: impl IntoIterator<Item = crate::parts::PartKind>) -> Self {
            self.settings.result_parts = Some(kinds.into_iter().collect());
            self
        }
    };
}
pub(crate) use builder_setters;

/// The constructors and accessors every HTTP client shares (over its `transport`):
/// `builder`, `from_env`, `model` and `url`, the last documented with the client's path.
macro_rules! client_accessors {
    (builder: $builder:ty, path: $path:literal) => {
        /// A builder; unset fields come from the environment when built.
        pub fn builder() -> $builder {
            <$builder>::default()
        }

        /// A client configured from the environment (the variables in the type's docs).
        pub fn from_env() -> Result<Self, ModelError> {
            Self::builder().build()
        }

        /// The model's name, as sent.
        pub fn model(&self) -> &str {
            &self.transport.model
        }

        #[doc = concat!("The endpoint requests go to (`", $path, "`).")]
        pub fn url(&self) -> &str {
            &self.transport.url
        }
    };
}
pub(crate) use client_accessors;

/// Where a client's settings come from when the builder leaves them unset.
pub(crate) struct Defaults {
    pub(crate) key_variable: &'static str,
    pub(crate) base_variable: &'static str,
    pub(crate) base_url: &'static str,
    pub(crate) model: &'static str,
    pub(crate) auth: Auth,
}

impl Settings {
    /// The transport, with `path` appended to the base URL; [`ModelError::MissingKey`]
    /// names the variable to set.
    pub(crate) fn build(self, defaults: Defaults, path: &str) -> Result<Transport, ModelError> {
        let key_variable = self.key_variable.unwrap_or(defaults.key_variable);
        let api_key = self
            .api_key
            .or_else(|| std::env::var(key_variable).ok())
            .filter(|k| !k.trim().is_empty())
            .ok_or(ModelError::MissingKey { variable: key_variable })?;
        let base_url = self
            .base_url
            .or_else(|| std::env::var(defaults.base_variable).ok().filter(|u| !u.trim().is_empty()))
            .unwrap_or_else(|| defaults.base_url.to_string());
        let model = self
            .model
            .or_else(|| std::env::var("TOOLKIT_MODEL").ok().filter(|m| !m.trim().is_empty()))
            .unwrap_or_else(|| defaults.model.to_string());
        let http = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout.unwrap_or(Duration::from_secs(10)))
            .build()
            .map_err(|e| ModelError::Other(Box::new(e)))?;
        Ok(Transport {
            http,
            url: format!("{}{path}", base_url.trim_end_matches('/')),
            api_key,
            auth: defaults.auth,
            headers: Vec::new(),
            key_variable,
            base_variable: defaults.base_variable,
            model,
            timeout: self.timeout.unwrap_or(Duration::from_secs(60)),
            max_retries: self.max_retries.unwrap_or(3),
            backoff: self.backoff.unwrap_or(Duration::from_millis(500)),
            max_backoff: self.max_backoff.unwrap_or(Duration::from_secs(20)),
            max_retry_wait: self.max_retry_wait.unwrap_or(MAX_RETRY_WAIT),
            result_parts: self.result_parts,
        })
    }
}

impl Transport {
    /// The `Debug` of a client on this transport, named `name`: its URL, model, timeout
    /// and retries, and its key redacted. The client adds its own fields and finishes.
    pub(crate) fn debug<'f, 'b>(
        &self,
        f: &'f mut std::fmt::Formatter<'b>,
        name: &str,
    ) -> std::fmt::DebugStruct<'f, 'b> {
        let mut d = f.debug_struct(name);
        d.field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &"[redacted]")
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries);
        d
    }

    /// POSTs `body` as JSON, retrying what [`retryable`] says and a connection that
    /// broke before the whole reply came; the body of the first success (at most
    /// [`MAX_REPLY`] bytes: a larger one is refused, not read into memory).
    pub(crate) async fn post<B: Serialize + ?Sized>(&self, body: &B) -> Result<String, ModelError> {
        let mut attempts = 0;
        let read = |response: reqwest::Response| async move {
            read_at_most(response, MAX_REPLY).await.map_err(Failure::Network)
        };
        let (text, cut) = self.send(body, Covers::Response, &mut attempts, read).await?;
        if cut {
            return Err(ModelError::MalformedResponse {
                message: format!("the reply is larger than {} MiB; it was not read", MAX_REPLY >> 20),
            });
        }
        Ok(text)
    }

    /// POSTs `body` as JSON for a stream, retrying as [`post`](Self::post) does; the
    /// first successful response, its body unread. The timeout covers the wait for its
    /// headers only (the caller times each wait between its events). `attempts` counts
    /// the requests made, across calls: a stream that is asked for again (after an
    /// error the provider reported before any output) shares one budget of retries.
    pub(crate) async fn send_streaming<B: Serialize + ?Sized>(
        &self,
        body: &B,
        attempts: &mut u32,
    ) -> Result<reqwest::Response, ModelError> {
        self.send(body, Covers::Headers, attempts, |response| std::future::ready(Ok(response))).await
    }

    /// POSTs `body` as JSON until an attempt succeeds or may not be retried; `read`
    /// takes a successful response (the body read within the timeout, for
    /// [`Covers::Response`]).
    async fn send<B, T, F, Fut>(
        &self,
        body: &B,
        covers: Covers,
        attempts: &mut u32,
        mut read: F,
    ) -> Result<T, ModelError>
    where
        B: Serialize + ?Sized,
        F: FnMut(reqwest::Response) -> Fut,
        Fut: std::future::Future<Output = Result<T, Failure>>,
    {
        loop {
            *attempts += 1;
            let attempt = *attempts;
            let failure = match self.attempt(body, covers).await {
                Ok(response) => match read(response).await {
                    Ok(reply) => return Ok(reply),
                    Err(failure) => failure,
                },
                Err(failure) => failure,
            };
            let retry = attempt <= self.max_retries;
            let delay = match failure {
                Failure::Network(e) => match self.network_error(e) {
                    ModelError::ConnectionClosed { message, .. } if retry => {
                        tracing::warn!(attempt, %message, "the connection closed before a response; retrying");
                        self.backoff_for(attempt)
                    }
                    ModelError::ConnectionClosed { url, message, .. } => {
                        return Err(ModelError::ConnectionClosed { url, attempts: attempt, message });
                    }
                    other => return Err(other),
                },
                Failure::Final(e) => return Err(e),
                Failure::Status { status, message, wait } => {
                    let too_long = wait.is_some_and(|wait| wait > self.max_retry_wait);
                    if !retryable(status) || !retry || too_long {
                        return Err(self.status_error(status, attempt, message, wait));
                    }
                    let delay = wait.unwrap_or_else(|| self.backoff_for(attempt));
                    tracing::warn!(
                        status = status.as_u16(),
                        attempt,
                        delay_ms = delay.as_millis() as u64,
                        "model request failed; retrying"
                    );
                    delay
                }
            };
            tokio::time::sleep(delay).await;
        }
    }

    /// One request, to its response's headers: the response when its status is a
    /// success, else why not.
    async fn attempt<B: Serialize + ?Sized>(&self, body: &B, covers: Covers) -> Result<reqwest::Response, Failure> {
        let mut request = self.http.post(&self.url).json(body);
        if covers == Covers::Response {
            request = request.timeout(self.timeout);
        }
        request = match self.auth {
            Auth::Bearer => request.bearer_auth(&self.api_key),
            Auth::Header(name) => request.header(name, &self.api_key),
        };
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        let sent = match tokio::time::timeout(self.timeout, request.send()).await {
            Ok(sent) => sent.map_err(Failure::Network)?,
            Err(_) => return Err(Failure::Final(self.timed_out())),
        };
        let status = sent.status();
        if status.is_success() {
            return Ok(sent);
        }
        let headers = sent.headers().clone();
        // Only the start of an error body is kept (its message), so only that is read,
        // within the timeout (a stream's request has none of its own). A body that
        // breaks off still leaves the status to go by.
        let text = match tokio::time::timeout(self.timeout, read_at_most(sent, MAX_ERROR_BODY)).await {
            Ok(Ok((text, _))) => text,
            Ok(Err(e)) if e.is_timeout() => return Err(Failure::Final(self.timed_out())),
            Ok(Err(_)) => String::new(),
            Err(_) => return Err(Failure::Final(self.timed_out())),
        };
        let message = head_with_ellipsis(&self.scrub(&provider_message(&text)), MESSAGE_CHARS);
        let wait = retry_after(&headers).or_else(|| retry_delay(&text));
        Err(Failure::Status { status, message, wait })
    }

    fn status_error(
        &self,
        status: StatusCode,
        attempts: u32,
        message: String,
        retry_after: Option<Duration>,
    ) -> ModelError {
        let url = self.url.clone();
        match status.as_u16() {
            401 | 403 => {
                ModelError::Unauthorized { url, status: status.as_u16(), message, variable: self.key_variable }
            }
            404 => ModelError::ModelNotFound { model: self.model.clone(), url, message },
            429 => ModelError::RateLimited { url, attempts, message, retry_after },
            s if status.is_server_error() => ModelError::Server { url, status: s, attempts, message, retry_after },
            s => ModelError::Rejected { url, status: s, message },
        }
    }

    /// No response (or, in a stream, no next event) within the timeout.
    pub(crate) fn timed_out(&self) -> ModelError {
        ModelError::Timeout { url: self.url.clone(), timeout: self.timeout }
    }

    /// What a failure of the network means: a timeout, a server that could not be
    /// reached ([`ModelError::Unreachable`]: refused, DNS, TLS, a malformed URL), or one
    /// that was reached and whose connection then closed or broke before the whole
    /// reply came ([`ModelError::ConnectionClosed`], counted as one attempt).
    pub(crate) fn network_error(&self, e: reqwest::Error) -> ModelError {
        if e.is_timeout() {
            return self.timed_out();
        }
        // The error chain says why (refused, DNS, TLS, closed); the URL says where.
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        let message = self.scrub(&message);
        let url = self.url.clone();
        // A request error that is not a connect error happened once connected: the
        // exchange broke (hyper's "connection closed before message completed", a reset).
        if !e.is_connect() && (e.is_request() || e.is_body()) {
            return ModelError::ConnectionClosed { url, attempts: 1, message };
        }
        ModelError::Unreachable { url, message, variable: self.base_variable }
    }

    /// Exponential backoff with full jitter: a random wait in `[d/2, d]`, where `d`
    /// doubles per attempt up to the maximum.
    pub(crate) fn backoff_for(&self, attempt: u32) -> Duration {
        let d = self.backoff.saturating_mul(1 << (attempt - 1).min(16)).min(self.max_backoff);
        let half = d / 2;
        half + half.mul_f64(jitter())
    }

    /// Removes the key from a message (providers echo keys back in 401 messages).
    pub(crate) fn scrub(&self, message: &str) -> String {
        if self.api_key.len() >= 4 { message.replace(&self.api_key, "[redacted]") } else { message.to_string() }
    }
}

/// Why an attempt failed.
pub(crate) enum Failure {
    /// The network failed ([`Transport::network_error`] says how).
    Network(reqwest::Error),
    /// An answer with an error status: the provider's message (scrubbed, cut) and the
    /// wait it asked for, if any.
    Status { status: StatusCode, message: String, wait: Option<Duration> },
    /// A failure no retry can help.
    Final(ModelError),
}

/// Whether an answer with this status may be different next time: 408 (the request
/// timed out), 409 (a conflict, which OpenAI's and Anthropic's SDKs retry too), 429, and
/// 5xx but 501 (Not Implemented: the server does not do this, and will not).
pub(crate) fn retryable(status: StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 409 | 429) || (status.is_server_error() && status != StatusCode::NOT_IMPLEMENTED)
}

/// What a request's timeout covers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Covers {
    /// The whole response, body included.
    Response,
    /// The wait for the response's headers (a stream's events are timed one by one).
    Headers,
}

/// The largest reply body read (a model's reply is kilobytes; a misconfigured base URL
/// or a hostile server could send gigabytes).
pub(crate) const MAX_REPLY: usize = 64 << 20;
/// How much of an error body is read for its message.
const MAX_ERROR_BODY: usize = 64 << 10;

/// The body as text, read up to `limit` bytes; `true` when it was longer (the rest is
/// not read: the connection is dropped).
async fn read_at_most(mut response: reqwest::Response, limit: usize) -> Result<(String, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = limit - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((String::from_utf8_lossy(&body).into_owned(), true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((String::from_utf8_lossy(&body).into_owned(), false))
}

/// `retry-after-ms` (OpenAI) or `Retry-After` in seconds. A wait too long for a
/// `Duration` (`1e300`, `inf`) reads as [`Duration::MAX`]: over any `max_retry_wait`, so
/// not waited for. Negative and unreadable values are ignored.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<f64>().ok());
    let wait = |secs: f64| Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
    if let Some(ms) = get("retry-after-ms").filter(|ms| *ms >= 0.0) {
        return Some(wait(ms / 1000.0));
    }
    get("retry-after").filter(|s| *s >= 0.0).map(wait)
}

/// A number unique in this process, for ids a server left out.
pub(crate) fn unique() -> u64 {
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
    fn retry_after_reads_both_headers_and_never_panics_on_a_wait_out_of_range() {
        let read = |name: &'static str, value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(name, value.parse().unwrap());
            retry_after(&headers)
        };
        assert_eq!(read("retry-after-ms", "250"), Some(Duration::from_millis(250)));
        assert_eq!(read("retry-after", " 2 "), Some(Duration::from_secs(2)));
        assert_eq!(read("retry-after", "0.5"), Some(Duration::from_millis(500)));
        // Too long for a `Duration`: read as the longest wait, which is never waited for.
        for huge in ["1e300", "inf", "1e25"] {
            assert_eq!(read("retry-after", huge), Some(Duration::MAX), "{huge}");
            assert_eq!(read("retry-after-ms", huge), Some(Duration::MAX), "{huge}");
        }
        assert!(read("retry-after", "1e300").unwrap() > MAX_RETRY_WAIT);
        // Negative, not a number, or an HTTP date: no wait from the header.
        for ignored in ["-1", "NaN", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"] {
            assert_eq!(read("retry-after", ignored), None, "{ignored}");
        }
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn retried_statuses() {
        let retried: Vec<u16> = (400..600).filter(|s| retryable(StatusCode::from_u16(*s).unwrap())).collect::<Vec<_>>();
        let mut expected = vec![408, 409, 429, 500];
        expected.extend(502..600);
        assert_eq!(retried, expected);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let settings = Settings {
            api_key: Some("k".into()),
            base_url: Some("http://127.0.0.1:9".into()),
            backoff: Some(Duration::from_millis(100)),
            max_backoff: Some(Duration::from_millis(350)),
            ..Settings::default()
        };
        let defaults = Defaults {
            key_variable: "KEY",
            base_variable: "BASE",
            base_url: "http://127.0.0.1:9",
            model: "m",
            auth: Auth::Bearer,
        };
        let transport = settings.build(defaults, "/x").unwrap();
        for _ in 0..50 {
            let first = transport.backoff_for(1);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100), "{first:?}");
            let third = transport.backoff_for(3);
            assert!(third >= Duration::from_millis(175) && third <= Duration::from_millis(350), "{third:?}");
        }
    }
}
