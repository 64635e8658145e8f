//! OpenAI's embeddings API (`POST {base}/embeddings`), and the servers that speak it
//! (vLLM, Ollama, LM Studio, text-embeddings-inference, LiteLLM): an [`Embedder`] for
//! `search_tools` ([`Toolbox::with_embedder`](crate::Toolbox::with_embedder)).

use std::fmt;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::ModelError;
use super::http::{Settings, Transport};
use super::openai::OPENAI_DEFAULTS;
use crate::search::{EmbedError, Embedder};

/// The model unless the builder or `TOOLKIT_EMBEDDING_MODEL` says otherwise.
const DEFAULT_MODEL: &str = "text-embedding-3-small";

/// A client of an OpenAI-style embeddings endpoint: the same key, base URL, retries and
/// error messages as [`OpenAiCompatible`](super::OpenAiCompatible), its own model
/// (`TOOLKIT_EMBEDDING_MODEL`, else `text-embedding-3-small`).
///
/// ```no_run
/// use toolkit::model::OpenAiEmbeddings;
/// use toolkit::prelude::*;
///
/// /// Reserve a table at a restaurant.
/// #[tool(defer)]
/// fn make_reservation(restaurant: String, people: u32) -> String {
///     format!("{people} at {restaurant}")
/// }
///
/// // OPENAI_API_KEY (and OPENAI_BASE_URL) from the environment; or a local server:
/// let local = OpenAiEmbeddings::builder()
///     .base_url("http://localhost:11434/v1")
///     .api_key("ollama")
///     .model("nomic-embed-text")
///     .build()?;
/// let tools = toolbox![make_reservation].with_embedder(local);
/// # Ok::<(), toolkit::model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct OpenAiEmbeddings {
    transport: Transport,
    dimensions: Option<u32>,
}

/// Builds an [`OpenAiEmbeddings`] client.
#[derive(Default)]
pub struct OpenAiEmbeddingsBuilder {
    settings: Settings,
    dimensions: Option<u32>,
}

impl OpenAiEmbeddings {
    /// A builder; unset fields come from the environment when built.
    pub fn builder() -> OpenAiEmbeddingsBuilder {
        OpenAiEmbeddingsBuilder::default()
    }

    /// A client configured from the environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
    /// `TOOLKIT_EMBEDDING_MODEL`).
    pub fn from_env() -> Result<Self, ModelError> {
        Self::builder().build()
    }

    /// The endpoint requests go to (`{base}/embeddings`).
    pub fn url(&self) -> &str {
        &self.transport.url
    }

    /// The vectors of `texts`, in order.
    pub async fn vectors(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let body = Request {
            model: &self.transport.model,
            input: texts,
            encoding_format: "float",
            dimensions: self.dimensions,
        };
        let text = self.transport.post(&body).await?;
        let reply: Reply = serde_json::from_str(&text).map_err(|e| ModelError::MalformedResponse {
            message: format!("no embeddings in it ({e}): {}", super::error_text::head_with_ellipsis(&text, 200)),
        })?;
        let mut data = reply.data;
        data.sort_by_key(|d| d.index);
        if data.len() != texts.len() || data.iter().enumerate().any(|(i, d)| d.index != i) {
            return Err(ModelError::MalformedResponse {
                message: format!("{} embeddings (indexed 0 to n-1) for {} texts", data.len(), texts.len()),
            });
        }
        Ok(data.into_iter().map(|d| d.embedding).collect())
    }
}

impl Embedder for OpenAiEmbeddings {
    fn model(&self) -> &str {
        &self.transport.model
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        Box::pin(async move { self.vectors(texts).await.map_err(|e| EmbedError(e.to_string())) })
    }
}

impl fmt::Debug for OpenAiEmbeddings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.transport.debug(f, "OpenAiEmbeddings").field("dimensions", &self.dimensions).finish()
    }
}

impl OpenAiEmbeddingsBuilder {
    /// The API's base URL (default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.settings.base_url = Some(url.into());
        self
    }

    /// The API key (default: from `OPENAI_API_KEY`).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.settings.api_key = Some(key.into());
        self
    }

    /// Reads the key from this environment variable instead of `OPENAI_API_KEY`.
    pub fn key_variable(mut self, variable: &'static str) -> Self {
        self.settings.key_variable = Some(variable);
        self
    }

    /// The model (default: `TOOLKIT_EMBEDDING_MODEL`, else `text-embedding-3-small`).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.settings.model = Some(model.into());
        self
    }

    /// Asks for vectors of this length (OpenAI's `text-embedding-3-*` shorten theirs;
    /// other servers may refuse it). Default: the model's own.
    pub fn dimensions(mut self, dimensions: u32) -> Self {
        self.dimensions = Some(dimensions);
        self
    }

    /// How long one request may take (default 60 s).
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.settings.timeout = Some(timeout);
        self
    }

    /// Retries of a 408, 409, 429 or 5xx answer, with backoff (default 3).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.settings.max_retries = Some(retries);
        self
    }

    /// The client; [`ModelError::MissingKey`] when no key is given or in the environment.
    pub fn build(mut self) -> Result<OpenAiEmbeddings, ModelError> {
        let model = self
            .settings
            .model
            .take()
            .or_else(|| std::env::var("TOOLKIT_EMBEDDING_MODEL").ok().filter(|m| !m.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_MODEL.to_owned());
        self.settings.model = Some(model);
        Ok(OpenAiEmbeddings {
            transport: self.settings.build(OPENAI_DEFAULTS, "/embeddings")?,
            dimensions: self.dimensions,
        })
    }
}

/// The request body.
#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    input: &'a [String],
    encoding_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<u32>,
}

#[derive(Deserialize)]
struct Reply {
    data: Vec<Datum>,
}

#[derive(Deserialize)]
struct Datum {
    index: usize,
    embedding: Vec<f32>,
}
