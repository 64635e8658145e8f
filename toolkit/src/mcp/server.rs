//! Serving a toolbox over MCP.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, ContentBlock, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::approval::Approvals;
use super::{McpError, stream};
use crate::schema::Target;
use crate::toolbox::Toolbox;

mod call;
mod listing;
mod task;

use call::modern;

/// How many tools one `tools/list` page holds by default.
const DEFAULT_PAGE_SIZE: usize = 200;

/// How long an MCP client may cache the tool list of a 2026-07-28 session, by default.
const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);

/// A [`Toolbox`] served over the Model Context Protocol.
///
/// The tool list and the routing table are built once, here, from the toolbox's specs
/// (the [`Target::Mcp`] export: `inputSchema` with an object root, `outputSchema` for
/// typed outputs, `annotations` from the effect attributes, in the toolbox's order), so a
/// call costs the same whatever the number of tools. Every `tools/call` goes through
/// [`Toolbox::call`] with all its hooks and sinks:
///
/// | what happened | what the client gets |
/// |---|---|
/// | the tool returned | a result; for a tool with an output schema, also `structuredContent` (the typed output, conforming to `outputSchema`) next to its JSON text |
/// | a hook blocked the call, the tool failed, timed out or panicked, the arguments were invalid | a result with `isError: true` whose text the model can act on (no `structuredContent`) |
/// | a hook deferred the call (an [`ApprovalGate::deferring`](crate::hooks::ApprovalGate::deferring)) | the person at the client is asked (see below); a client that cannot ask gets an error result: the call does not run |
/// | the tool does not exist | a JSON-RPC error `-32602` listing the available tools |
/// | the client cancelled the request (`notifications/cancelled`) | the running tool is cancelled (its future is dropped) |
/// | the client disconnected mid-call | the call runs to its end (its own timeout applies), so its record reaches the audit sinks, and the server returns once every call is done |
///
/// Both protocol eras are served, whichever the client speaks: the `initialize`
/// handshake (2024-11-05 to 2025-11-25) and the stateless 2026-07-28 revision
/// (`server/discover`, per-request `_meta`; `tools/list` then carries `ttlMs` and
/// `cacheScope`, see [`with_list_cache`](McpServer::with_list_cache)). Unknown methods
/// get `-32601`.
///
/// # Approvals through the host
///
/// A call a hook defers ([`Decision::Defer`](crate::Decision::Defer): the deferring
/// approval gate, or a hook of your own) asks the person at the MCP client, in a form
/// ("Approve `delete_file` with {…}?", the arguments redacted, with an `approve` box and a
/// `note`):
///
/// | client | how it is asked |
/// |---|---|
/// | 2026-07-28, declared form elicitation | an `input_required` result with the form and a sealed `requestState`; the client's retry with the answer runs the call (approved) or blocks it (the model reads the note) |
/// | 2025-11-25, declared elicitation | `elicitation/create` during the call, waited for up to [`with_approval_ttl`](McpServer::with_approval_ttl) |
/// | declared neither | an error result: ``deferred: {reason}; this MCP client cannot ask a person …``: the call does not run (closed, not open) |
///
/// The answer runs the call under the deferred call's id, through every hook again: the
/// deferring hook meets the decision, which holds only for the arguments shown (their
/// SHA-256). The `requestState` is signed (HMAC-SHA256, see
/// [`with_approval_key`](McpServer::with_approval_key)) and bound to the tool and the
/// arguments the client sent; a forged, altered, expired or reused state, or one sent
/// with other arguments, blocks the call saying so. The audit log has two records: the
/// deferral, and the call as it ended. One deferring hook per call is answered this way;
/// a second one in the same call stays deferred.
///
/// `McpServer` is also an [`rmcp::ServerHandler`], for serving it over a transport this
/// module does not wrap; cloning it is cheap (the state is shared).
///
/// ```no_run
/// use toolkit::mcp::McpServer;
/// use toolkit::prelude::*;
///
/// /// Add two numbers.
/// #[tool(read_only)]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # async fn run() -> Result<(), toolkit::mcp::McpError> {
/// let server = McpServer::new(toolbox![add]).with_name("calculator", "1.0.0");
/// server.serve_stdio().await // until the client closes stdin
/// # }
/// ```
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
    connection: Arc<Connection>,
}

#[derive(Clone)]
struct Inner {
    toolbox: Arc<Toolbox>,
    /// Every tool as `tools/list` publishes it (built once), served in pages.
    list: ListToolsResult,
    /// The output schemas without an object root, by position in the list: published to
    /// 2026-07-28 clients only.
    any_outputs: HashMap<usize, Arc<serde_json::Map<String, Value>>>,
    /// How many tools one `tools/list` page holds.
    page_size: usize,
    /// Tool name → how to answer its calls.
    routes: HashMap<String, Route>,
    info: ServerConfig,
    list_ttl: Duration,
    list_scope: CacheScope,
    /// Numbers the calls this server runs, so every record's call id is unique to it
    /// (JSON-RPC ids repeat across clients: every client's first call is `0` or `1`).
    calls: Arc<AtomicU64>,
    /// Numbers the connections, for the records of calls without an MCP session.
    connections: Arc<AtomicU64>,
    /// The most calls one connection (stdio) or the HTTP server runs at once.
    max_running: usize,
    /// The most calls waiting for one of those slots; past it a call is refused.
    max_queued: usize,
    /// The most requests of a stdio client waiting for their answers.
    max_unanswered: usize,
    /// How calls a hook defers ask the person at the client.
    approvals: Approvals,
    /// The tools whose calls run as tasks, and where the tasks are kept.
    tasks: Option<Arc<super::tasks::Tasks>>,
    /// With tool search: the positions of the tools every client is listed (those not
    /// deferred). `None`: every tool is listed.
    listed: Option<Vec<usize>>,
}

/// What one connection (a byte stream, or an HTTP server with its sessions) shares.
struct Connection {
    /// Every running `tools/call`, so serving ends only when their records are written.
    calls: TaskTracker,
    /// Cancelled when the client's side has closed (EOF) or the server is stopping:
    /// from then on a cancelled request is a disconnect, not a client's cancellation.
    closed: CancellationToken,
    /// The session label of this connection's calls when the transport has no MCP
    /// session (stdio): `connection-<n>`.
    label: Arc<str>,
    /// One permit per call that may run now (`max_running`).
    running: Arc<tokio::sync::Semaphore>,
    /// Calls waiting for a permit.
    queued: std::sync::atomic::AtomicUsize,
    /// The tools each client's searches found (with tool search).
    found: listing::Found,
}

impl Connection {
    fn new(inner: &Inner) -> Arc<Connection> {
        let n = inner.connections.fetch_add(1, Ordering::Relaxed) + 1;
        Arc::new(Connection {
            calls: TaskTracker::default(),
            closed: CancellationToken::default(),
            label: format!("connection-{n}").into(),
            running: Arc::new(tokio::sync::Semaphore::new(inner.max_running)),
            queued: std::sync::atomic::AtomicUsize::new(0),
            found: listing::Found::default(),
        })
    }
}

#[derive(Clone)]
struct Route {
    tool: Tool,
    /// Its position in the tool list.
    at: usize,
    /// What the tool's successful results carry besides their text.
    output: Structured,
}

/// What a tool's output schema lets its results carry as `structuredContent`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Structured {
    /// No output schema: text only.
    Never,
    /// An output schema with an object root: `structuredContent` in every era.
    Object,
    /// Another output schema (an array, a number, ...): `structuredContent` for
    /// 2026-07-28 clients, text only for earlier ones.
    Any,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.inner.info.server_info.name)
            .field("tools", &self.inner.list.tools.len())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server for these tools, named `toolkit` (see [`with_name`](McpServer::with_name)).
    /// Pass an `Arc<Toolbox>` to share the toolbox with other users of it.
    pub fn new(toolbox: impl Into<Arc<Toolbox>>) -> Self {
        let toolbox = toolbox.into();
        let mut tools = Vec::new();
        let mut routes = HashMap::new();
        let mut any_outputs = HashMap::new();
        for spec in toolbox.specs() {
            let exported = spec.export(Target::Mcp);
            let tool: Tool = serde_json::from_value(exported).unwrap_or_else(|error| {
                // Only a hand-made spec whose schema is not an object can get here.
                tracing::warn!(tool = %spec.name, %error, "tool spec is not a valid MCP tool; publishing its name only");
                Tool::new(spec.name.clone(), spec.description.clone(), Arc::new(serde_json::Map::new()))
            });
            // 2026-07-28 allows any output schema; earlier revisions, an object root only
            // (the MCP export publishes those).
            let output = match (&tool.output_schema, &spec.output_schema) {
                (Some(_), _) => Structured::Object,
                (None, Some(Value::Object(schema))) => {
                    any_outputs.insert(tools.len(), Arc::new(schema.clone()));
                    Structured::Any
                }
                (None, _) => Structured::Never,
            };
            routes.insert(spec.name.clone(), Route { tool: tool.clone(), at: tools.len(), output });
            tools.push(tool);
        }
        let capabilities = ServerCapabilities::builder().enable_tools().build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new("toolkit", env!("CARGO_PKG_VERSION"));
        let inner = Inner {
            toolbox,
            list: ListToolsResult::with_all_items(tools),
            any_outputs,
            routes,
            info,
            page_size: DEFAULT_PAGE_SIZE,
            list_ttl: DEFAULT_LIST_TTL,
            list_scope: CacheScope::Public,
            calls: Arc::default(),
            connections: Arc::default(),
            max_running: 256,
            max_queued: 1024,
            max_unanswered: 1024,
            approvals: Approvals::new(),
            tasks: None,
            listed: None,
        };
        let connection = Connection::new(&inner);
        McpServer { inner: Arc::new(inner), connection }
    }

    /// The name and version the server reports to clients (`serverInfo`).
    pub fn with_name(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let inner = Arc::make_mut(&mut self.inner);
        let title = inner.info.server_info.title.take();
        inner.info.server_info = Implementation::new(name, version);
        inner.info.server_info.title = title;
        self
    }

    /// Instructions for the model on how to use these tools, sent to clients at
    /// connection (`instructions`).
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.inner).info.instructions = Some(instructions.into());
        self
    }

    /// How long a 2026-07-28 client may cache the tool list (`ttlMs`, default 5 minutes)
    /// and who may (`cacheScope`, default public: the list is the same for every client).
    /// Legacy sessions get neither field.
    pub fn with_list_cache(mut self, ttl: Duration, scope: CacheScope) -> Self {
        let inner = Arc::make_mut(&mut self.inner);
        inner.list_ttl = ttl;
        inner.list_scope = scope;
        self
    }

    /// The most tool calls running at once (default 256, at least 1): per connection
    /// over stdio, for the whole server over HTTP. A call past it waits for one to
    /// finish, in a queue of at most [`with_max_queued_calls`](McpServer::with_max_queued_calls);
    /// a cancelled call leaves the queue.
    pub fn with_max_running_calls(mut self, n: usize) -> Self {
        Arc::make_mut(&mut self.inner).max_running = n.max(1);
        self
    }

    /// The most tool calls waiting to run when [`with_max_running_calls`](McpServer::with_max_running_calls)
    /// are running (default 1,024). A call past both is answered at once with an error
    /// result naming the two limits (it does not reach the toolbox), so a client that
    /// sends calls faster than they finish cannot pile up work without end.
    pub fn with_max_queued_calls(mut self, n: usize) -> Self {
        Arc::make_mut(&mut self.inner).max_queued = n;
        self
    }

    /// The most requests of a client on a byte stream (stdio) waiting for their answers
    /// (default 1,024, at least 1). When that many are unanswered, because they run or
    /// because the client does not read what it is sent, the server stops reading its
    /// input until an answer is written: a client that writes without reading holds a
    /// bounded amount of memory. HTTP needs no such bound: each request waits on its own
    /// connection.
    pub fn with_max_unanswered_requests(mut self, n: usize) -> Self {
        Arc::make_mut(&mut self.inner).max_unanswered = n.max(1);
        self
    }

    /// How many tools one `tools/list` page holds (default 200, at least 1). A longer
    /// list is served in pages: each answer's `nextCursor` names the next page, in both
    /// protocol eras. 200 tools of ordinary size come to a few hundred kilobytes, under
    /// the 1 MiB a server-sent event may hold for the official Python client.
    pub fn with_page_size(mut self, n: usize) -> Self {
        Arc::make_mut(&mut self.inner).page_size = n.max(1);
        self
    }

    /// Signs the `requestState` of approvals asked through the host with `key` (at least
    /// 32 bytes; shorter is refused) instead of a random key of this process. Replicas
    /// behind one endpoint need the same key (a client's retry may reach another one),
    /// and so does a server that should accept, after a restart, the answers to what it
    /// asked before. Keep it secret: whoever holds it can forge approvals.
    pub fn with_approval_key(mut self, key: impl Into<Vec<u8>>) -> Result<Self, McpError> {
        Arc::make_mut(&mut self.inner).approvals.with_key(key.into())?;
        Ok(self)
    }

    /// Where approvals already answered are recorded (default: in this process's
    /// memory), so a replayed answer is refused: pass the replicas' shared store (a
    /// `RedisStore`) so every replica refuses it.
    pub fn with_approval_store(mut self, store: Arc<dyn crate::hooks::store::Store>) -> Self {
        Arc::make_mut(&mut self.inner).approvals.with_store(store);
        self
    }

    /// How long a person has to answer an approval request (default 10 minutes): the
    /// life of an `input_required` state, and how long a 2025-11-25 client is waited for.
    pub fn with_approval_ttl(mut self, ttl: Duration) -> Self {
        Arc::make_mut(&mut self.inner).approvals.with_ttl(ttl);
        self
    }

    /// Runs the calls of `tools` as tasks (the `io.modelcontextprotocol/tasks` extension,
    /// 2026-07-28) for clients that declare it: `tools/call` answers at once with a task
    /// (`resultType: "task"`), the call runs on in the background through every hook, and
    /// the client polls `tasks/get` for its result, answers a deferred call's approval
    /// with `tasks/update`, or stops it with `tasks/cancel` (which drops the running
    /// tool). Clients that do not declare the extension get the result as usual.
    ///
    /// Each task's record is in `store`, kept for an hour after its last change
    /// ([`with_task_ttl`](McpServer::with_task_ttl)): with a shared
    /// [`RedisStore`](crate::hooks::RedisStore) any replica answers `tasks/*`, and a
    /// restarted server still does. The process running a task renews a lease on it every
    /// 2 s; a task whose server stopped (the lease lapsed, 6 s) reads as `failed`, saying
    /// the call may or may not have taken effect: the work is not started again.
    pub fn with_tasks<S: Into<String>>(
        mut self,
        store: Arc<dyn crate::hooks::store::Store>,
        tools: impl IntoIterator<Item = S>,
    ) -> Self {
        let inner = Arc::make_mut(&mut self.inner);
        let tools = tools.into_iter().map(Into::into).collect();
        inner.tasks = Some(Arc::new(super::tasks::Tasks::new(store, tools)));
        inner.info.capabilities = ServerCapabilities::builder().enable_tools().enable_tasks().build();
        self
    }

    /// How long a task's record is kept after its last change (default an hour); set it
    /// after [`with_tasks`](McpServer::with_tasks).
    pub fn with_task_ttl(mut self, ttl: Duration) -> Self {
        let inner = Arc::make_mut(&mut self.inner);
        if let Some(tasks) = inner.tasks.take() {
            inner.tasks = Some(Arc::new(tasks.with_ttl_of(ttl)));
        }
        self
    }

    /// The toolbox being served.
    pub fn toolbox(&self) -> &Arc<Toolbox> {
        &self.inner.toolbox
    }

    /// The tools as MCP publishes them (`tools/list`), in the toolbox's order.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.list.tools
    }

    /// Serves one client over this process's standard input and output until the
    /// client closes its end, then waits for the calls still running. Nothing but
    /// protocol messages is written to stdout: log with `tracing` to stderr.
    ///
    /// A tool that timed out while stuck in blocking I/O (opening a FIFO, say) keeps its
    /// blocking thread, and a `#[tokio::main]` runtime waits for it at exit. Build the
    /// runtime yourself and end it with
    /// [`shutdown_timeout`](tokio::runtime::Runtime::shutdown_timeout) so the process
    /// exits in bounded time (the `mcp_server` example does).
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        let (reader, writer) = rmcp::transport::stdio_pipes();
        self.serve(reader, writer).await
    }

    /// Serves one client over a byte stream (newline-delimited JSON-RPC, as on stdio)
    /// until the client closes its end (or the stream fails), then waits for the calls
    /// still running.
    pub async fn serve<R, W>(self, reader: R, writer: W) -> Result<(), McpError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        // This connection's own calls and end, whatever other connections do.
        let server = self.for_new_connection();
        let connection = Arc::clone(&server.connection);
        // The SDK reads and writes through the gate: every message the client sends is
        // checked (and answered here when it is malformed), and the gate's answers and
        // the SDK's share the client's stream a whole line at a time.
        let (to_sdk, sdk_side) = tokio::io::duplex(1 << 16);
        let (sdk_read, _) = tokio::io::split(sdk_side);
        let (from_sdk, sdk_out) = tokio::io::duplex(1 << 16);
        let (_, sdk_write) = tokio::io::split(sdk_out);
        let (replies, replied) = tokio::sync::mpsc::channel(64);
        let window = stream::Window::new(server.inner.max_unanswered);
        let closed = connection.closed.clone();
        let input = tokio::spawn(stream::pump_in(reader, to_sdk, replies, closed, std::sync::Arc::clone(&window)));
        let output = tokio::spawn(stream::pump_out(from_sdk, replied, writer, window));
        let outcome = match server.serve_with_ct((sdk_read, sdk_write), CancellationToken::new()).await {
            Ok(running) => running.waiting().await.map(|reason| {
                tracing::debug!(?reason, "MCP session ended");
            }),
            // A client that leaves before its first request is a clean end, not an error.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(error) => {
                input.abort();
                let _ = output.await;
                return Err(McpError::Handshake(error.to_string()));
            }
        };
        connection.closed.cancel();
        connection.calls.close();
        connection.calls.wait().await;
        input.abort();
        let _ = output.await;
        outcome.map_err(|e| McpError::Task(e.to_string()))
    }

    /// Binds a streamable HTTP endpoint (`/mcp`) on `addr`; call
    /// [`McpHttpServer::run`](super::McpHttpServer::run) to serve it. Use a loopback
    /// address (`127.0.0.1:8080`) unless the tools are meant to be shared across
    /// machines; `:0` picks a free port.
    pub async fn bind_http(self, addr: impl tokio::net::ToSocketAddrs) -> Result<super::McpHttpServer, McpError> {
        super::McpHttpServer::bind(self, addr).await
    }

    /// Whether `name` is one of the served tools.
    pub(crate) fn has_tool(&self, name: &str) -> bool {
        self.inner.routes.contains_key(name)
    }

    /// The same server with a connection state of its own.
    pub(crate) fn for_new_connection(&self) -> McpServer {
        McpServer { inner: Arc::clone(&self.inner), connection: Connection::new(&self.inner) }
    }

    /// From now on, a cancelled request is a shutdown or a disconnect: calls finish.
    pub(crate) fn mark_closed(&self) {
        self.connection.closed.cancel();
    }

    /// Waits until no call of this connection is running.
    pub(crate) async fn wait_for_calls(&self) {
        self.connection.calls.close();
        self.connection.calls.wait().await;
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        self.inner.info.clone()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let all = &self.inner.list.tools;
        // With tool search, the tools this client is listed; else every tool.
        let listing = self.listing(&cx);
        let len = listing.as_ref().map_or(all.len(), Vec::len);
        let at = |i: usize| listing.as_ref().map_or(i, |listed| listed[i]);
        // The cursor is the offset of the page, as `nextCursor` gave it.
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => match cursor.strip_prefix("tools:").and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n < len => n,
                _ => {
                    return Err(ErrorData::invalid_params(
                        format!(
                            "unknown cursor `{}`: pass the `nextCursor` of an earlier page",
                            cursor.chars().take(64).collect::<String>()
                        ),
                        None,
                    ));
                }
            },
        };
        let end = start.saturating_add(self.inner.page_size).min(len);
        let mut list = ListToolsResult::with_all_items((start..end).map(|i| all[at(i)].clone()).collect());
        list.next_cursor = (end < len).then(|| format!("tools:{end}"));
        // Caching hints and output schemas of any root are 2026-07-28 features; legacy
        // sessions get the legacy shape.
        if modern(&cx) {
            for (tool, n) in list.tools.iter_mut().zip(start..end) {
                if let Some(schema) = self.inner.any_outputs.get(&at(n)) {
                    tool.output_schema = Some(Arc::clone(schema));
                }
            }
            list.ttl_ms = Some(u64::try_from(self.inner.list_ttl.as_millis()).unwrap_or(u64::MAX));
            list.cache_scope = Some(self.inner.list_scope);
        }
        Ok(list)
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        self.get_task_now(request).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.update_task_now(request, &cx).await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.cancel_task_now(request, &cx).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.routes.get(name).map(|route| route.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.has_tool(&request.name) {
            // Still a call for the toolbox, so its sinks (the audit log) see the attempt;
            // the client gets the protocol error MCP prescribes, with the toolbox's text.
            let message = match self.run_call(request, cx).await {
                CallToolResponse::Complete(result) => {
                    result.content.first().and_then(ContentBlock::as_text).map(|t| t.text.clone())
                }
                _ => None,
            };
            // Bounded however many tools there are: the first 50 names and a count.
            let tools = &self.inner.list.tools;
            let available: Vec<&str> = tools.iter().take(50).map(|t| t.name.as_ref()).collect();
            return Err(ErrorData::invalid_params(
                message.unwrap_or_else(|| "unknown tool".into()),
                Some(json!({ "available": available, "total": tools.len() })),
            ));
        }
        Ok(self.run_call(request, cx).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ToolSpec;

    #[test]
    fn the_tool_list_keeps_the_toolbox_order() {
        let mut tools = Toolbox::new();
        for name in ["b", "a", "c"] {
            let spec = ToolSpec::new(name, "x", json!({"type": "object", "properties": {}}));
            tools.add_dynamic(crate::tool::FnTool::new(spec, |_| async { Ok(crate::call::Output::text("")) })).unwrap();
        }
        let server = McpServer::new(tools);
        let names: Vec<&str> = server.tools().iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["b", "a", "c"]);
    }
}
