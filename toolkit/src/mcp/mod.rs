//! The Model Context Protocol: serve a [`Toolbox`](crate::Toolbox) to any MCP host, and
//! import the tools of any MCP server into a toolbox (feature `mcp`).
//!
//! The protocol itself is the official Rust SDK's ([`rmcp`]); this module connects it to
//! the toolbox, so the same hooks (sandbox, audit, approval, rate limit, ...) govern every
//! call, whichever side of the protocol the toolbox is on.
//!
//! - [`McpServer`] serves a toolbox over stdio ([`McpServer::serve_stdio`]), over
//!   streamable HTTP ([`McpServer::bind_http`]), or over any byte stream
//!   ([`McpServer::serve`]). Both protocol eras are spoken, whichever the client picks:
//!   the `initialize` handshake (revisions 2024-11-05 to 2025-11-25) and the stateless
//!   2026-07-28 revision (`server/discover`, per-request `_meta`, `resultType`, and
//!   `ttlMs`/`cacheScope` on `tools/list`).
//! - [`McpTools`] connects to an MCP server (a command over stdio, or an HTTP URL),
//!   lists its tools and adds them to a toolbox as run-time tools.
//!
//! ```no_run
//! use toolkit::mcp::McpServer;
//! use toolkit::prelude::*;
//!
//! /// Tell the current time.
//! #[tool(read_only)]
//! fn now() -> String {
//!     "12:00".into()
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), toolkit::mcp::McpError> {
//!     McpServer::new(toolbox![now]).with_name("clock", "1.0.0").serve_stdio().await
//! }
//! ```

mod approval;
mod client;
mod content;
mod error;
mod gate;
mod host;
mod http;
mod progress;
mod server;
mod stream;
mod tasks;
mod trace;

pub use client::McpTools;
pub use error::McpError;
pub use host::{Answer, Question};
pub use http::McpHttpServer;
pub use server::McpServer;

/// The official Rust MCP SDK this module is built on, for what it does not wrap
/// (another transport, the model types).
pub use rmcp;
