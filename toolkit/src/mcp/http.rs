//! Serving a toolbox over MCP's streamable HTTP transport.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tower_service::Service;

use super::gate::{Gate, Verdict, error};
use super::{McpError, McpServer};

mod io;

use io::{listen, read_body};

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// Browser origins accepted by default: pages served from this machine.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// The largest request body read, in bytes.
const MAX_BODY: usize = 16 << 20;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// An [`McpServer`] bound to a TCP address, serving MCP's streamable HTTP transport at
/// `/mcp` (HTTP/1.1), from [`McpServer::bind_http`].
///
/// Legacy clients get a session (`Mcp-Session-Id`) after `initialize`; 2026-07-28
/// clients are served statelessly, one self-contained POST per request.
///
/// Guards, on by default:
/// - **`Host`**: only loopback names are accepted (against DNS rebinding); a server
///   shared across machines lists its public names with
///   [`with_allowed_hosts`](McpHttpServer::with_allowed_hosts).
/// - **`Origin`**: a request from a browser page must come from a loopback origin
///   (`http://localhost:*` and the like), or one added with
///   [`with_allowed_origins`](McpHttpServer::with_allowed_origins); others, and
///   `Origin: null`, get 403. Requests without `Origin` (not from a browser) pass.
/// - **Connections**: at most 32 per client address that have sent nothing for a second
///   since they opened ([`with_max_idle_per_peer`](McpHttpServer::with_max_idle_per_peer)):
///   a new one past it closes that address's oldest such connection. At most 1,024
///   connections at once ([`with_max_connections`](McpHttpServer::with_max_connections)):
///   a new one past it closes the oldest that has sent nothing, else the one idle the
///   longest between requests; only when every connection is busy does it wait.
///   Connections opened and left cannot keep other clients out.
/// - **Timeouts**: a client must send a request's headers within 10 s of connecting or
///   of its previous response (so a half-sent request or an idle connection is closed;
///   [`with_header_timeout`](McpHttpServer::with_header_timeout)), and at shutdown the
///   connections get 10 s to finish before they are closed
///   ([`with_shutdown_timeout`](McpHttpServer::with_shutdown_timeout)).
/// - **Bodies**: a body that is not JSON, or is a JSON-RPC batch, gets 400 with a
///   JSON-RPC error; one over 16 MiB gets 413 (nothing of it is kept or parsed past the
///   16 MiB; up to 64 MiB more is read and dropped first, so a client still sending it
///   reads the 413 rather than a reset); a message with bad params gets a
///   JSON-RPC error naming the fault (the same checks as on stdio).
///
/// ```no_run
/// # async fn run(server: toolkit::mcp::McpServer) -> Result<(), toolkit::mcp::McpError> {
/// let http = server.bind_http("127.0.0.1:8080").await?;
/// eprintln!("serving {}", http.url());
/// let stop = http.shutdown_token(); // `stop.cancel()` (on Ctrl-C, say) ends `run`
/// # stop.cancel();
/// http.run().await
/// # }
/// ```
pub struct McpHttpServer {
    server: McpServer,
    listener: TcpListener,
    addr: SocketAddr,
    config: StreamableHttpServerConfig,
    shutdown: CancellationToken,
    header_timeout: Duration,
    shutdown_timeout: Duration,
    max_connections: usize,
    max_idle_per_peer: usize,
}

impl std::fmt::Debug for McpHttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpServer").field("addr", &self.addr).field("server", &self.server).finish_non_exhaustive()
    }
}

impl McpHttpServer {
    pub(crate) async fn bind(server: McpServer, addr: impl tokio::net::ToSocketAddrs) -> Result<Self, McpError> {
        let listener = listen(addr).await?;
        let addr = listener.local_addr()?;
        let shutdown = CancellationToken::new();
        // The SDK's own limit (4 MiB) raised to the one this server documents and
        // enforces while reading, before anything is parsed.
        let config = StreamableHttpServerConfig::default()
            .with_allowed_origins(LOOPBACK_ORIGINS)
            .with_max_request_body_bytes(MAX_BODY);
        if !addr.ip().is_loopback() {
            tracing::warn!(
                %addr,
                "MCP HTTP server bound to a non-loopback address: only loopback `Host` headers are accepted \
                 until the server's public names are listed with `with_allowed_hosts`"
            );
        }
        Ok(McpHttpServer {
            server,
            listener,
            addr,
            config,
            shutdown,
            header_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(10),
            max_connections: 1024,
            max_idle_per_peer: 32,
        })
    }

    /// The address the server listens on (with the port picked for `:0`).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL of the MCP endpoint, for a client's configuration
    /// (`http://127.0.0.1:8080/mcp`).
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.addr)
    }

    /// The `Host` names (or `host:port` authorities) requests may carry, replacing the
    /// loopback default. An empty list accepts any host (not for a public deployment).
    pub fn with_allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.config = self.config.with_allowed_hosts(hosts);
        self
    }

    /// Browser origins accepted besides the loopback ones (`"https://app.example.com"`,
    /// `"https://app.example.com:8443"`, `"http://localhost:*"` for any port).
    pub fn with_allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let mut all = std::mem::take(&mut self.config.allowed_origins);
        all.extend(origins.into_iter().map(Into::into));
        self.config = self.config.with_allowed_origins(all);
        self
    }

    /// How long a client may take to send a request's headers, counted from the
    /// connection or from the previous response, and again its body (default 10 s each).
    /// At most a day: a longer one (`Duration::MAX` as "no limit") is a day, since the
    /// server's clock cannot count past its range.
    pub fn with_header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout.min(Duration::from_secs(24 * 3600));
        self
    }

    /// How many connections are served at once (default 1,024, at least 1). A new
    /// connection past it closes the oldest one that has sent nothing, else the one idle
    /// the longest between requests; when every connection is busy, it waits in the
    /// listen queue until one closes.
    pub fn with_max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// How many connections that have sent nothing for a second since they opened one
    /// client address may hold (default 32, at least 1): a new connection from an
    /// address that holds that many closes the oldest of them. Clients behind one
    /// address (a proxy, a NAT) share it. A connection idle between requests is not
    /// counted (the header timeout closes it in time; closing it sooner could meet its
    /// client reusing it).
    pub fn with_max_idle_per_peer(mut self, n: usize) -> Self {
        self.max_idle_per_peer = n.max(1);
        self
    }

    /// How long the connections and running calls get to finish after shutdown is
    /// asked, before the connections are closed (default 10 s).
    pub fn with_shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// The SDK's configuration of the transport (keep-alive, JSON responses, session
    /// mode, body size limit, allowed origins), for what the methods here do not cover.
    pub fn config_mut(&mut self) -> &mut StreamableHttpServerConfig {
        &mut self.config
    }

    /// A token that stops the server when cancelled: [`run`](McpHttpServer::run)
    /// stops accepting, ends the sessions, and returns once the running calls are done.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Serves until the [`shutdown_token`](McpHttpServer::shutdown_token) is cancelled.
    pub async fn run(self) -> Result<(), McpError> {
        let McpHttpServer {
            server,
            listener,
            addr,
            config,
            shutdown,
            header_timeout,
            shutdown_timeout,
            max_connections,
            max_idle_per_peer,
        } = self;
        let open = Arc::new(Open::default());
        // Every session of this HTTP server shares one connection state.
        let server = server.for_new_connection();
        // The sessions end after the calls are told the shutdown is no cancellation.
        let sessions = CancellationToken::new();
        let config = config.with_cancellation_token(sessions.clone());
        let factory = server.clone();
        let manager = Arc::new(LocalSessionManager::default());
        let service = StreamableHttpService::new(move || Ok(factory.clone()), Arc::clone(&manager), config);
        tracing::info!(%addr, path = MCP_PATH, "MCP server listening (streamable HTTP)");
        let mut connections = JoinSet::new();
        loop {
            let accepted = tokio::select! {
                () = shutdown.cancelled() => break,
                accepted = listener.accept() => accepted,
                // Reap finished connections so the set does not grow without bound.
                Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Running out of file descriptors and the like: log and keep serving.
                    tracing::warn!(%error, "failed to accept an MCP HTTP connection");
                    continue;
                }
            };
            // Each answer is written as soon as it is ready: with Nagle's algorithm on, a
            // response written in two parts waited for the client's delayed ACK, about
            // 40 ms a call on loopback.
            if let Err(error) = stream.set_nodelay(true) {
                tracing::debug!(%error, %peer, "could not set TCP_NODELAY on an MCP HTTP connection");
            }
            // An address holding too many connections that have sent nothing loses the
            // oldest of them.
            while open.silent_of(peer.ip()) >= max_idle_per_peer && open.close_oldest_idle(Some(peer.ip())) {}
            // Full: the oldest idle connection makes room; when every one is busy, this
            // one waits (and the next ones in the listen queue) until one ends.
            while connections.len() >= max_connections {
                // One closing at a time is enough (a few, should one be slow to end);
                // a connection busy now may be idle at the next look.
                if open.closing() < 4 {
                    open.close_oldest_idle(None);
                }
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    Some(_) = connections.join_next() => {}
                    () = tokio::time::sleep(Duration::from_millis(50)) => {}
                }
            }
            if shutdown.is_cancelled() {
                break;
            }
            let (service, manager) = (service.clone(), Arc::clone(&manager));
            let shutdown = shutdown.clone();
            let (id, close) = open.add(peer.ip());
            let open = Arc::clone(&open);
            connections.spawn(async move {
                let tracked = Arc::clone(&open);
                let route = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let (service, manager) = (service.clone(), Arc::clone(&manager));
                    // Busy from the request's start until its response's body is dropped
                    // (sent, or the connection gone): a streamed answer keeps it busy.
                    let busy = Busy::start(Arc::clone(&tracked), id);
                    async move {
                        let response = route(request, service, &manager, header_timeout).await;
                        Ok::<_, Infallible>(response.map(|body| Tracked { body, _busy: busy }.boxed()))
                    }
                });
                let connection = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(header_timeout)
                    .serve_connection(TokioIo::new(stream), route);
                let mut connection = std::pin::pin!(connection);
                let served = tokio::select! {
                    served = connection.as_mut() => served,
                    () = shutdown.cancelled() => {
                        connection.as_mut().graceful_shutdown();
                        connection.await
                    }
                    () = close.cancelled() => {
                        tracing::debug!(%peer, "closing an idle MCP HTTP connection to make room");
                        connection.as_mut().graceful_shutdown();
                        connection.await
                    }
                };
                open.remove(id);
                if let Err(error) = served {
                    tracing::debug!(%peer, %error, "MCP HTTP connection ended with an error");
                }
            });
        }
        drop(listener);
        server.mark_closed();
        sessions.cancel();
        let finished = tokio::time::timeout(shutdown_timeout, async {
            while connections.join_next().await.is_some() {}
            server.wait_for_calls().await;
        })
        .await;
        if finished.is_err() {
            tracing::warn!(%addr, ?shutdown_timeout, "MCP connections still open at the shutdown deadline; closing them");
            connections.shutdown().await;
        }
        tracing::info!(%addr, "MCP server stopped");
        Ok(())
    }
}

/// One request: the path, the body (JSON, one message, checked by the gate), and
/// `DELETE` of an unknown session, before the SDK sees it.
async fn route<S>(
    request: Request<Incoming>,
    mut service: S,
    manager: &LocalSessionManager,
    body_timeout: Duration,
) -> Response<Body>
where
    S: Service<Request<Full<Bytes>>, Response = Response<Body>, Error = Infallible>,
{
    if request.uri().path() != MCP_PATH {
        return not_found();
    }
    let (parts, body) = request.into_parts();
    if parts.method == Method::DELETE
        && let Some(id) = parts.headers.get("mcp-session-id").and_then(|v| v.to_str().ok())
        && !manager.has_session(&Arc::from(id)).await.unwrap_or(true)
    {
        return plain(StatusCode::NOT_FOUND, "no such MCP session\n");
    }
    let bytes = match tokio::time::timeout(body_timeout, read_body(body)).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return json(
                StatusCode::PAYLOAD_TOO_LARGE,
                &error(&Value::Null, -32600, "Invalid Request: the body is larger than 16 MiB"),
            );
        }
        Err(_) => {
            let message = format!("Invalid Request: the body did not arrive within {}s", body_timeout.as_secs_f64());
            return json(StatusCode::REQUEST_TIMEOUT, &error(&Value::Null, -32600, &message));
        }
    };
    if parts.method == Method::POST {
        let message: Value = match serde_json::from_slice(&bytes) {
            Ok(message) => message,
            Err(e) => {
                let why = if e.to_string().starts_with("recursion limit exceeded") {
                    "Parse error: the body is nested too deeply (over 128 levels)"
                } else {
                    "Parse error: the body is not JSON"
                };
                return json(StatusCode::BAD_REQUEST, &error(&Value::Null, -32700, why));
            }
        };
        if message.is_array() {
            return json(
                StatusCode::BAD_REQUEST,
                &error(
                    &Value::Null,
                    -32600,
                    "Invalid Request: batches are not supported; send one message per request",
                ),
            );
        }
        match Gate::started().check(&message) {
            Verdict::Forward => {}
            Verdict::Drop(_) => return plain(StatusCode::ACCEPTED, ""),
            Verdict::Reply(reply) => return json(StatusCode::OK, &reply),
        }
    }
    match service.call(Request::from_parts(parts, Full::new(bytes))).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

fn json(status: StatusCode, body: &Value) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    response
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}

fn not_found() -> Response<Body> {
    plain(StatusCode::NOT_FOUND, "not found: the MCP endpoint is /mcp\n")
}

/// The open connections: per connection its client's address, whether a request is
/// under way (and since when it is idle), and how to close it.
#[derive(Default)]
struct Open {
    state: Mutex<OpenState>,
}

#[derive(Default)]
struct OpenState {
    next: u64,
    connections: HashMap<u64, OneConnection>,
    /// Connections told to close that have not ended yet.
    closing: usize,
}

struct OneConnection {
    peer: IpAddr,
    /// Requests under way (a response's body not yet dropped).
    busy: usize,
    /// When it last became idle (`busy` fell to 0), or opened.
    idle_since: Instant,
    /// Whether a request has come on it: a connection that has sent nothing is the
    /// first to go.
    used: bool,
    close: CancellationToken,
    closing: bool,
}

impl Open {
    fn lock(&self) -> std::sync::MutexGuard<'_, OpenState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new connection from `peer`: its id and the token that closes it.
    fn add(&self, peer: IpAddr) -> (u64, CancellationToken) {
        let mut state = self.lock();
        state.next += 1;
        let (id, close) = (state.next, CancellationToken::new());
        let connection = OneConnection {
            peer,
            busy: 0,
            idle_since: Instant::now(),
            used: false,
            close: close.clone(),
            closing: false,
        };
        state.connections.insert(id, connection);
        (id, close)
    }

    fn remove(&self, id: u64) {
        let mut state = self.lock();
        if state.connections.remove(&id).is_some_and(|c| c.closing) {
            state.closing -= 1;
        }
    }

    fn closing(&self) -> usize {
        self.lock().closing
    }

    /// How many connections `peer` holds that have sent nothing for [`SILENT`] since
    /// they opened (not counting those closing).
    fn silent_of(&self, peer: IpAddr) -> usize {
        self.lock().connections.values().filter(|c| c.peer == peer && c.silent() && !c.closing).count()
    }

    /// Closes one idle connection: of `peer`, the oldest that has sent nothing; of
    /// anyone (`None`), the oldest that has sent nothing, else the one idle the longest
    /// between requests (whose client may be about to reuse it: only when the server is
    /// full).
    fn close_oldest_idle(&self, peer: Option<IpAddr>) -> bool {
        let mut state = self.lock();
        let idle = |c: &&OneConnection| c.busy == 0 && !c.closing;
        // Of one address: only connections silent for a while (a client's new connection
        // whose first request is on its way is not one). When full: any that has sent
        // nothing, the oldest first (a new client's is the youngest).
        let unused = state
            .connections
            .iter()
            .filter(|(_, c)| idle(c) && !c.used && peer.is_none_or(|p| c.peer == p && c.silent()))
            .min_by_key(|(_, c)| c.idle_since)
            .map(|(id, _)| *id);
        let kept_alive =
            || state.connections.iter().filter(|(_, c)| idle(c)).min_by_key(|(_, c)| c.idle_since).map(|(id, _)| *id);
        let oldest = match (unused, peer) {
            (Some(id), _) => Some(id),
            (None, None) => kept_alive(),
            (None, Some(_)) => None,
        };
        if let Some(id) = oldest
            && let Some(connection) = state.connections.get_mut(&id)
        {
            connection.closing = true;
            connection.close.cancel();
            state.closing += 1;
            return true;
        }
        false
    }

    fn set_busy(&self, id: u64, delta: isize) {
        let mut state = self.lock();
        if let Some(connection) = state.connections.get_mut(&id) {
            connection.used = true;
            connection.busy = connection.busy.saturating_add_signed(delta);
            if connection.busy == 0 {
                connection.idle_since = Instant::now();
            }
        }
    }
}

/// How long a connection that has sent nothing since it opened must stay silent before
/// it counts against its address's limit.
const SILENT: Duration = Duration::from_secs(1);

impl OneConnection {
    fn silent(&self) -> bool {
        !self.used && self.idle_since.elapsed() >= SILENT
    }
}

/// A request under way on a connection, until dropped.
struct Busy {
    open: Arc<Open>,
    id: u64,
}

impl Busy {
    fn start(open: Arc<Open>, id: u64) -> Busy {
        open.set_busy(id, 1);
        Busy { open, id }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.open.set_busy(self.id, -1);
    }
}

/// A response body that keeps its connection busy until it is dropped.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl hyper::body::Body for Tracked {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}
