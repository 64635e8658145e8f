//! Tool search, for toolboxes too large to show the model in full.
//!
//! A tool marked deferred (`#[tool(defer)]`, [`ToolSpec::with_deferred`]) is not sent to
//! the model at first. Its toolbox then has one more tool, `search_tools`, which finds
//! deferred tools by what the model needs done ([`ToolIndex`]: BM25 over each tool's
//! name, description and parameters, with words cut at `snake_case`, `camelCase` and
//! digit boundaries, lowercased, lightly stemmed, and scripts written without spaces
//! read by character and pair). An agent run sends the tools that are not deferred,
//! `search_tools`, and every tool a `search_tools` call of the run has found, appended
//! in the order they were found: a found tool can be called from the next turn, and the
//! tools sent before stay exactly as they were (a provider's prompt cache keeps
//! working). `search_tools` is a tool like any other: hooks see its calls, records
//! record them.
//!
//! Words miss what is said in other words ("book a table" for
//! `make_restaurant_reservation`). Given an [`Embedder`]
//! ([`Toolbox::with_embedder`](crate::Toolbox::with_embedder); `OpenAiEmbeddings` for
//! OpenAI's API and the servers that speak it), `search_tools` ranks by meaning too: each
//! deferred tool's [`embedding_text`] is embedded once, each query as it comes, and the
//! ranking by words and the ranking by cosine are fused by reciprocal rank
//! ([`ToolIndex::search_with`]). An embedder that fails leaves the search to words (it
//! never fails a search). Vectors live with the toolbox; [`CachedEmbedder`] keeps them
//! in a [`Store`](crate::hooks::store::Store) (a file, Redis) so a restart, or another
//! process, embeds no tool twice. On a 1,090-tool set built from BFCL's data, recall@5 goes from
//! 0.878 (words) to 0.904 (words and all-MiniLM-L6-v2's vectors): `benches/README.md`.
//!
//! ```
//! use toolkit::prelude::*;
//! use toolkit::search::ToolIndex;
//!
//! /// Current weather for a city.
//! #[tool(defer)]
//! fn get_weather(city: String) -> String { format!("{city}: sunny") }
//!
//! /// Send an email to a colleague.
//! #[tool(defer)]
//! fn send_email(to: String, body: String) -> String { format!("sent to {to}") }
//!
//! let tools = toolbox![get_weather, send_email];
//! // `search_tools` comes with the first deferred tool.
//! assert_eq!(tools.names(), ["get_weather", "search_tools", "send_email"]);
//! let deferred: Vec<_> = tools.specs().into_iter().filter(|spec| spec.deferred).collect();
//! let index = ToolIndex::new(deferred.iter().copied());
//! let best = &index.search("How is the weather in Paris?", 3)[0];
//! assert_eq!(deferred[best.index].name, "get_weather");
//! ```

mod cache;
mod embed;
mod index;
mod namespace;
mod tokens;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};

pub use cache::CachedEmbedder;
pub use embed::{EmbedError, Embedder, embedding_text};
pub use index::{Hit, ToolIndex, VectorError};
pub use namespace::Namespace;

use crate::call::Output;
use crate::context::CallContext;
use crate::error::{ErrorKind, ToolError};
use crate::spec::{Annotations, ToolSpec};
use crate::tool::DynTool;

/// The name of the tool that finds deferred tools.
pub const SEARCH_TOOLS: &str = "search_tools";

/// How many tools a search returns unless the model asks otherwise, and at most.
const DEFAULT_LIMIT: u64 = 5;
const MAX_LIMIT: u64 = 20;

/// How much of a found tool's description the result shows, in characters.
const DESCRIPTION_CHARS: usize = 300;

/// How many namespaces `search_tools` names in its description, at most.
const NAMESPACES_SHOWN: usize = 40;

/// How many characters of a namespace's description `search_tools` shows.
const NAMESPACE_CHARS: usize = 160;

/// The deferred tools of a toolbox, indexed: shared by the toolbox, which adds to it,
/// and its `search_tools` tool, which reads it.
#[derive(Default)]
pub(crate) struct Catalog {
    inner: RwLock<Indexed>,
    /// What ranks by meaning too, if anything ([`Toolbox::with_embedder`](crate::Toolbox::with_embedder)).
    embedder: RwLock<Option<Arc<dyn Embedder>>>,
    /// One embedding of the tools at a time; when it last failed.
    embedding: tokio::sync::Mutex<Option<Instant>>,
}

#[derive(Default)]
struct Indexed {
    index: ToolIndex,
    /// Each indexed tool, in the index's order.
    tools: Vec<Entry>,
    /// A namespace changed what some tools are indexed by: the index is rebuilt before
    /// the next search.
    stale: bool,
}

/// One indexed tool: what a search shows of it, and the text it is found by.
struct Entry {
    name: String,
    description: String,
    namespace: Option<String>,
    fields: Vec<(f32, String)>,
    /// What it is embedded by ([`embedding_text`]); its vector is the index's.
    text: String,
}

/// How many texts go to the embedder at once.
const EMBED_BATCH: usize = 64;

/// After the embedder failed, searches rank by words alone this long before it is asked
/// again (a provider that is down is not asked at every search).
const EMBED_RETRY: Duration = Duration::from_secs(30);

/// How much a tool's namespace (its name and description) counts: like the tool's own
/// description, but shared by every tool of the namespace.
const NAMESPACE_WEIGHT: f32 = 0.5;

impl Catalog {
    /// Indexes a deferred tool.
    pub(crate) fn add(&self, spec: &ToolSpec) {
        let mut indexed = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let fields = index::fields(spec);
        if !indexed.stale {
            indexed.index.add(&spec.name, fields.clone());
        }
        indexed.tools.push(Entry {
            name: spec.name.clone(),
            description: spec.description.clone(),
            namespace: None,
            fields,
            text: embedding_text(spec),
        });
    }

    /// Ranks by meaning too, with this embedder (the vectors of another are dropped).
    pub(crate) fn set_embedder(&self, embedder: Option<Arc<dyn Embedder>>) {
        *self.embedder.write().unwrap_or_else(|e| e.into_inner()) = embedder;
        self.inner.write().unwrap_or_else(|e| e.into_inner()).index.clear_vectors();
    }

    /// Puts the indexed tools of `namespace` in it: they are found by its words too.
    pub(crate) fn annotate(&self, namespace: &Namespace) {
        let mut indexed = self.inner.write().unwrap_or_else(|e| e.into_inner());
        let text = format!("{} {}", namespace.name(), namespace.description());
        let mut changed = false;
        for entry in indexed.tools.iter_mut().filter(|e| namespace.contains(&e.name)) {
            entry.namespace = Some(namespace.name().to_owned());
            entry.fields.push((NAMESPACE_WEIGHT, text.clone()));
            changed = true;
        }
        indexed.stale |= changed;
    }

    /// The best `limit` tools for `query`: name, description and namespace. By words,
    /// and by meaning when an embedder is set and answers (each tool not embedded yet
    /// is, first); by words alone when it fails, which is logged.
    async fn search(&self, query: &str, limit: usize) -> Vec<(String, String, Option<String>)> {
        // Fresh first: a tool added while the index was stale is in it only after this,
        // and only then can it take its vector.
        self.refresh();
        let embedder = self.embedder.read().unwrap_or_else(|e| e.into_inner()).clone();
        let vector = match embedder {
            Some(embedder) => self.embedded(&*embedder, query).await,
            None => None,
        };
        self.refresh();
        let indexed = self.inner.read().unwrap_or_else(|e| e.into_inner());
        let hits = indexed.index.search_with(query, vector.as_deref(), limit);
        hits.into_iter()
            .map(|hit| &indexed.tools[hit.index])
            .map(|e| (e.name.clone(), e.description.clone(), e.namespace.clone()))
            .collect()
    }

    /// Rebuilds the index's words if a namespace changed them, keeping its vectors.
    fn refresh(&self) {
        if !self.inner.read().unwrap_or_else(|e| e.into_inner()).stale {
            return;
        }
        let mut indexed = self.inner.write().unwrap_or_else(|e| e.into_inner());
        if indexed.stale {
            let mut index = ToolIndex::default();
            for entry in &indexed.tools {
                index.add(&entry.name, entry.fields.clone());
            }
            index.adopt_vectors(std::mem::take(&mut indexed.index));
            indexed.index = index;
            indexed.stale = false;
        }
    }

    /// Embeds the tools that have no vector yet, then `query`: the query's vector, or
    /// `None` (logged) when the embedder failed, now or less than [`EMBED_RETRY`] ago.
    async fn embedded(&self, embedder: &dyn Embedder, query: &str) -> Option<Vec<f32>> {
        let mut failed = self.embedding.lock().await;
        if failed.is_some_and(|at| at.elapsed() < EMBED_RETRY) {
            return None;
        }
        let missing: Vec<(usize, String)> = {
            let indexed = self.inner.read().unwrap_or_else(|e| e.into_inner());
            indexed
                .tools
                .iter()
                .enumerate()
                .filter(|(i, _)| !indexed.index.has_vector(*i))
                .map(|(i, e)| (i, e.text.clone()))
                .collect()
        };
        for chunk in missing.chunks(EMBED_BATCH) {
            let texts: Vec<String> = chunk.iter().map(|(_, text)| text.clone()).collect();
            let vectors = match embed::each(embedder, &texts).await {
                Ok(vectors) => vectors,
                Err(e) => {
                    tracing::warn!(model = embedder.model(), error = %e, "{SEARCH_TOOLS}: the tools could not be embedded; ranking by words alone");
                    *failed = Some(Instant::now());
                    return None;
                }
            };
            let mut indexed = self.inner.write().unwrap_or_else(|e| e.into_inner());
            for ((i, _), vector) in chunk.iter().zip(vectors) {
                if let Err(e) = indexed.index.set_vector(*i, vector) {
                    tracing::warn!(model = embedder.model(), tool = %indexed.tools[*i].name, error = %e, "{SEARCH_TOOLS}: a tool's vector was refused");
                }
            }
        }
        *failed = None;
        drop(failed);
        let query = [query.to_owned()];
        match embed::each(embedder, &query).await {
            Ok(mut vectors) => vectors.pop(),
            Err(e) => {
                tracing::warn!(model = embedder.model(), error = %e, "{SEARCH_TOOLS}: the query could not be embedded; ranking by words alone");
                None
            }
        }
    }
}

/// The `search_tools` tool of a toolbox with deferred tools.
pub(crate) struct SearchTools {
    spec: ToolSpec,
    catalog: Arc<Catalog>,
}

impl SearchTools {
    /// The tool, its description naming `namespaces` (those with deferred tools).
    pub(crate) fn new(catalog: Arc<Catalog>, namespaces: &[&Namespace]) -> Self {
        let schema = json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What the tool should do, in a few words (\"weather forecast for a city\", \"refund an order\")."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": format!("How many tools to return (default {DEFAULT_LIMIT}).")
                }
            },
            "required": ["query"],
            "additionalProperties": false
        });
        let mut description = "Find more tools. Besides the tools you see, there are others you can load: search \
            them by what you need done. The tools found can be called from your next turn."
            .to_owned();
        if !namespaces.is_empty() {
            description.push_str(" They are grouped in namespaces:");
            for namespace in namespaces.iter().take(NAMESPACES_SHOWN) {
                let about: String = namespace.description().chars().take(NAMESPACE_CHARS).collect();
                description.push_str(&format!("\n- {}: {}", namespace.name(), about.trim()));
            }
            if namespaces.len() > NAMESPACES_SHOWN {
                description.push_str(&format!("\n- and {} more", namespaces.len() - NAMESPACES_SHOWN));
            }
        }
        let spec = ToolSpec::new(SEARCH_TOOLS, description, schema).with_annotations(Annotations {
            read_only: true,
            idempotent: true,
            ..Annotations::default()
        });
        SearchTools { spec, catalog }
    }
}

impl DynTool for SearchTools {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(&'a self, args: Map<String, Value>, _cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let Some(query) = args.get("query").and_then(Value::as_str).filter(|q| !q.trim().is_empty()) else {
                return Err(ToolError::new(
                    ErrorKind::MissingField,
                    "`query` is required: say in a few words what the tool should do",
                ));
            };
            let limit = args.get("limit").and_then(Value::as_u64).unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
            let found = self.catalog.search(query, limit as usize).await;
            let tools: Vec<Value> = found
                .into_iter()
                .map(|(name, description, namespace)| {
                    let description: String = description.chars().take(DESCRIPTION_CHARS).collect();
                    match namespace {
                        Some(namespace) => json!({"name": name, "namespace": namespace, "description": description}),
                        None => json!({"name": name, "description": description}),
                    }
                })
                .collect();
            let note = if tools.is_empty() {
                "No tool matches: try other words."
            } else {
                "These tools can be called from your next turn."
            };
            Ok(Output::text(json!({"tools": tools, "note": note}).to_string()))
        })
    }
}

/// The names of the tools a `search_tools` result lists (empty for any other text).
pub(crate) fn found_in(result: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<Value>(result) else { return Vec::new() };
    let Some(tools) = value.get("tools").and_then(Value::as_array) else { return Vec::new() };
    tools.iter().filter_map(|t| t.get("name").and_then(Value::as_str)).map(str::to_string).collect()
}
