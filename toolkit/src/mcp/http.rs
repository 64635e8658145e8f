//! Serving a toolbox over MCP's streamable HTTP transport.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tower_service::Service;

use super::{McpError, McpServer};

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// An [`McpServer`] bound to a TCP address, serving MCP's streamable HTTP transport at
/// `/mcp` (HTTP/1.1), from [`McpServer::bind_http`].
///
/// Legacy clients get a session (`Mcp-Session-Id`) after `initialize`; 2026-07-28
/// clients are served statelessly, one self-contained POST per request. Only `Host`
/// headers naming a loopback address are accepted by default (a guard against DNS
/// rebinding); a server shared across machines lists its public names with
/// [`with_allowed_hosts`](McpHttpServer::with_allowed_hosts).
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
}

impl std::fmt::Debug for McpHttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpServer").field("addr", &self.addr).field("server", &self.server).finish_non_exhaustive()
    }
}

impl McpHttpServer {
    pub(crate) async fn bind(server: McpServer, addr: impl tokio::net::ToSocketAddrs) -> Result<Self, McpError> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shutdown = CancellationToken::new();
        let config = StreamableHttpServerConfig::default();
        if !addr.ip().is_loopback() {
            tracing::warn!(
                %addr,
                "MCP HTTP server bound to a non-loopback address: only loopback `Host` headers are accepted \
                 until the server's public names are listed with `with_allowed_hosts`"
            );
        }
        Ok(McpHttpServer { server, listener, addr, config, shutdown })
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
        let McpHttpServer { server, listener, addr, config, shutdown } = self;
        // Every session of this HTTP server shares one connection state.
        let server = server.for_new_connection();
        // The sessions end after the calls are told the shutdown is no cancellation.
        let sessions = CancellationToken::new();
        let config = config.with_cancellation_token(sessions.clone());
        let factory = server.clone();
        let service =
            StreamableHttpService::new(move || Ok(factory.clone()), Arc::new(LocalSessionManager::default()), config);
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
            let service = service.clone();
            let shutdown = shutdown.clone();
            connections.spawn(async move {
                let route = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let mut service = service.clone();
                    async move {
                        if request.uri().path() != MCP_PATH {
                            return Ok::<_, Infallible>(not_found());
                        }
                        service.call(request).await
                    }
                });
                let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), route);
                let mut connection = std::pin::pin!(connection);
                let served = tokio::select! {
                    served = connection.as_mut() => served,
                    () = shutdown.cancelled() => {
                        connection.as_mut().graceful_shutdown();
                        connection.await
                    }
                };
                if let Err(error) = served {
                    tracing::debug!(%peer, %error, "MCP HTTP connection ended with an error");
                }
            });
        }
        drop(listener);
        server.mark_closed();
        sessions.cancel();
        while connections.join_next().await.is_some() {}
        server.wait_for_calls().await;
        tracing::info!(%addr, "MCP server stopped");
        Ok(())
    }
}

fn not_found() -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let body = Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed();
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
