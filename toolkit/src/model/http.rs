//! What every HTTP model client shares: one POST with the key, retries of 429 and 5xx
//! with backoff (honouring `retry-after`), and errors that name the endpoint and the
//! variable to fix, with the key scrubbed out. A client adds only its wire format.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};

use super::ModelError;

/// A `Retry-After` longer than this is not waited for: the error is returned at once.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

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

        /// How many times a 429 or 5xx is retried (default 3).
        pub fn max_retries(mut self, retries: u32) -> Self {
            self.settings.max_retries = Some(retries);
            self
        }

        /// The first retry's backoff (default 500 ms) and the most any backoff may be
        /// (default 20 s); each retry doubles it, with jitter.
        pub fn backoff(mut self, first: std::time::Duration, max: std::time::Duration) -> Self {
            self.settings.backoff = Some(first);
            self.settings.max_backoff = Some(max);
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

    /// POSTs `body` as JSON, retrying 429 and 5xx; the body of the first success (at
    /// most [`MAX_REPLY`] bytes: a larger one is refused, not read into memory).
    pub(crate) async fn post<B: Serialize + ?Sized>(&self, body: &B) -> Result<String, ModelError> {
        let response = self.send(body, Covers::Response).await?;
        let (text, cut) = read_at_most(response, MAX_REPLY).await.map_err(|e| self.network_error(e))?;
        if cut {
            return Err(ModelError::MalformedResponse {
                message: format!("the reply is larger than {} MiB; it was not read", MAX_REPLY >> 20),
            });
        }
        Ok(text)
    }

    /// POSTs `body` as JSON for a stream, retrying 429 and 5xx; the first successful
    /// response, its body unread. The timeout covers the wait for its headers only (the
    /// caller times each wait between its events).
    pub(crate) async fn send_streaming<B: Serialize + ?Sized>(
        &self,
        body: &B,
    ) -> Result<reqwest::Response, ModelError> {
        self.send(body, Covers::Headers).await
    }

    /// POSTs `body` as JSON, retrying 429 and 5xx; the first successful response, its
    /// body unread, the timeout covering what `covers` says.
    async fn send<B: Serialize + ?Sized>(&self, body: &B, covers: Covers) -> Result<reqwest::Response, ModelError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
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
                Ok(sent) => sent.map_err(|e| self.network_error(e))?,
                Err(_) => return Err(self.timed_out()),
            };
            let status = sent.status();
            if status.is_success() {
                return Ok(sent);
            }
            let headers = sent.headers().clone();
            // Only the start of an error body is kept (its message), so only that is read,
            // within the timeout (a stream's request has none of its own).
            let (text, _) = match tokio::time::timeout(self.timeout, read_at_most(sent, MAX_ERROR_BODY)).await {
                Ok(read) => read.map_err(|e| self.network_error(e))?,
                Err(_) => return Err(self.timed_out()),
            };
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

    /// No response (or, in a stream, no next event) within the timeout.
    pub(crate) fn timed_out(&self) -> ModelError {
        ModelError::Timeout { url: self.url.clone(), timeout: self.timeout }
    }

    pub(crate) fn network_error(&self, e: reqwest::Error) -> ModelError {
        if e.is_timeout() {
            return self.timed_out();
        }
        // The error chain says why (refused, DNS, TLS); the URL says where.
        let mut message = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        ModelError::Unreachable { url: self.url.clone(), message: self.scrub(&message), variable: self.base_variable }
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

/// The provider's error message (`{"error": {"message": ...}}`, which OpenAI, Anthropic
/// and Gemini all use), else the body's head.
pub(crate) fn provider_message(text: &str) -> String {
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
/// `Duration` (`1e300`, `inf`) reads as [`Duration::MAX`]: over [`MAX_RETRY_AFTER`], so not
/// waited for. Negative and unreadable values are ignored.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<f64>().ok());
    let wait = |secs: f64| Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
    if let Some(ms) = get("retry-after-ms").filter(|ms| *ms >= 0.0) {
        return Some(wait(ms / 1000.0));
    }
    get("retry-after").filter(|s| *s >= 0.0).map(wait)
}

/// The first `chars` characters of `text`.
pub(crate) fn head(text: &str, chars: usize) -> &str {
    text.char_indices().nth(chars).map_or(text, |(i, _)| &text[..i])
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
        assert!(read("retry-after", "1e300").unwrap() > MAX_RETRY_AFTER);
        // Negative, not a number, or an HTTP date: no wait from the header.
        for ignored in ["-1", "NaN", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"] {
            assert_eq!(read("retry-after", ignored), None, "{ignored}");
        }
        assert_eq!(retry_after(&HeaderMap::new()), None);
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
