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

mod index;
mod tokens;

use std::sync::{Arc, RwLock};

use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};

pub use index::{Hit, ToolIndex};

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

/// The deferred tools of a toolbox, indexed: shared by the toolbox, which adds to it,
/// and its `search_tools` tool, which reads it.
#[derive(Default)]
pub(crate) struct Catalog {
    inner: RwLock<Indexed>,
}

#[derive(Default)]
struct Indexed {
    index: ToolIndex,
    /// Each indexed tool's name and description, in the index's order.
    tools: Vec<(String, String)>,
}

impl Catalog {
    /// Indexes a deferred tool.
    pub(crate) fn add(&self, spec: &ToolSpec) {
        let mut indexed = self.inner.write().unwrap_or_else(|e| e.into_inner());
        indexed.index.add(&spec.name, index::fields(spec));
        indexed.tools.push((spec.name.clone(), spec.description.clone()));
    }

    /// The best `limit` tools for `query`: name and description.
    fn search(&self, query: &str, limit: usize) -> Vec<(String, String)> {
        let indexed = self.inner.read().unwrap_or_else(|e| e.into_inner());
        indexed.index.search(query, limit).into_iter().map(|hit| indexed.tools[hit.index].clone()).collect()
    }
}

/// The `search_tools` tool of a toolbox with deferred tools.
pub(crate) struct SearchTools {
    spec: ToolSpec,
    catalog: Arc<Catalog>,
}

impl SearchTools {
    pub(crate) fn new(catalog: Arc<Catalog>) -> Self {
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
        let description = "Find more tools. Besides the tools you see, there are others you can load: search \
            them by what you need done. The tools found can be called from your next turn.";
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
            let found = self.catalog.search(query, limit as usize);
            let tools: Vec<Value> = found
                .into_iter()
                .map(|(name, description)| {
                    let description: String = description.chars().take(DESCRIPTION_CHARS).collect();
                    json!({"name": name, "description": description})
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
