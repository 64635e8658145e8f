//! `tools/list` with tool search ([`McpServer::with_tool_search`]): the tools that are not
//! deferred, `search_tools` among them, and then, per client, each tool a search of that
//! client found.
//!
//! A client is an MCP session (streamable HTTP with `Mcp-Session-Id`) or a stdio
//! connection. A stateless request (2026-07-28 over HTTP, no session) names no client:
//! it is listed the tools that are not deferred, and may still call any tool by name.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use rmcp::service::{RequestContext, RoleServer};

use super::McpServer;
use crate::call::ToolResult;
use crate::search::{SEARCH_TOOLS, found_in};

/// The most clients whose found tools are kept; past it, the longest-known one's are
/// forgotten (its list shrinks back to the tools that are not deferred; it can search
/// again).
const MAX_CLIENTS: usize = 10_000;

/// The tools each client's searches found, by position in the server's tool list.
#[derive(Default)]
pub(super) struct Found {
    clients: Mutex<Clients>,
}

#[derive(Default)]
struct Clients {
    found: HashMap<Arc<str>, Vec<usize>>,
    /// The clients, oldest first.
    order: VecDeque<Arc<str>>,
}

impl McpServer {
    /// Lists only the tools that are not deferred, `search_tools` among them, instead of
    /// every tool; a tool a client's `search_tools` call finds joins that client's list,
    /// and the server tells it so (`notifications/tools/list_changed`; the server
    /// declares `tools.listChanged`). Every tool stays callable by name. Off by default;
    /// without deferred tools there is nothing to leave out.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::mcp::McpServer;
    ///
    /// /// Add two integers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// /// The current weather for a city.
    /// #[tool(defer)]
    /// fn get_weather(city: String) -> String { format!("{city}: sunny") }
    ///
    /// let server = McpServer::new(toolbox![add, get_weather]).with_tool_search(true);
    /// let listed: Vec<&str> = server.listed_tools().map(|t| t.name.as_ref()).collect();
    /// assert_eq!(listed, ["add", "search_tools"]);
    /// ```
    pub fn with_tool_search(mut self, on: bool) -> Self {
        let inner = Arc::make_mut(&mut self.inner);
        inner.listed = on.then(|| {
            let toolbox = &inner.toolbox;
            (0..inner.list.tools.len()).filter(|&i| !toolbox.is_deferred(&inner.list.tools[i].name)).collect()
        });
        if let Some(tools) = &mut inner.info.capabilities.tools {
            tools.list_changed = on.then_some(true);
        }
        self
    }

    /// The tools `tools/list` gives a client that has searched for nothing: every tool,
    /// or with [`with_tool_search`](McpServer::with_tool_search) those not deferred.
    pub fn listed_tools(&self) -> impl Iterator<Item = &rmcp::model::Tool> {
        let all = &self.inner.list.tools;
        let listed: Box<dyn Iterator<Item = usize>> = match &self.inner.listed {
            Some(listed) => Box::new(listed.iter().copied()),
            None => Box::new(0..all.len()),
        };
        listed.map(move |i| &all[i])
    }

    /// The positions of the tools `tools/list` gives the client of `cx`, in order;
    /// `None`: every tool.
    pub(super) fn listing(&self, cx: &RequestContext<RoleServer>) -> Option<Vec<usize>> {
        let listed = self.inner.listed.as_ref()?;
        let mut positions = listed.clone();
        if let Some(client) = self.client(cx) {
            let clients = self.connection.found.clients.lock().unwrap_or_else(|e| e.into_inner());
            positions.extend(clients.found.get(&client).into_iter().flatten());
        }
        Some(positions)
    }

    /// After a `search_tools` call: the tools it found join its client's list, and the
    /// client is told the list changed.
    pub(super) async fn note_search(&self, result: &ToolResult, cx: &RequestContext<RoleServer>) {
        let Some(listed) = self.inner.listed.as_ref() else { return };
        if result.name != SEARCH_TOOLS || result.is_error() {
            return;
        }
        let Some(client) = self.client(cx) else { return };
        let routes = &self.inner.routes;
        let positions: Vec<usize> =
            found_in(&result.content).iter().filter_map(|name| routes.get(name)).map(|r| r.at).collect();
        let added = {
            let mut clients = self.connection.found.clients.lock().unwrap_or_else(|e| e.into_inner());
            if !clients.found.contains_key(&client) {
                if clients.order.len() >= MAX_CLIENTS
                    && let Some(oldest) = clients.order.pop_front()
                {
                    clients.found.remove(&oldest);
                }
                clients.order.push_back(Arc::clone(&client));
            }
            let found = clients.found.entry(client).or_default();
            let mut added = false;
            for at in positions {
                if !listed.contains(&at) && !found.contains(&at) {
                    found.push(at);
                    added = true;
                }
            }
            added
        };
        if added && let Err(error) = cx.peer.notify_tool_list_changed().await {
            tracing::debug!(%error, "could not tell the client its tool list changed");
        }
    }

    /// The client of a request: its MCP session, or the stdio connection; `None` for a
    /// stateless HTTP request.
    fn client(&self, cx: &RequestContext<RoleServer>) -> Option<Arc<str>> {
        match cx.extensions.get::<hyper::http::request::Parts>() {
            Some(parts) => parts.headers.get("mcp-session-id").and_then(|id| id.to_str().ok()).map(Arc::from),
            None => Some(Arc::clone(&self.connection.label)),
        }
    }
}
