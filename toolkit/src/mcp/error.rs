//! What can go wrong serving or importing MCP tools.

use std::io;

/// Why an MCP server or client could not start or stopped abnormally. Failures of single
/// calls are never errors here: they are results (`isError: true`) the model reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// Binding a socket, spawning a server process or another I/O operation failed.
    #[error("MCP I/O error: {0}")]
    Io(#[from] io::Error),
    /// The peer closed the connection or broke the protocol before the session was
    /// established.
    #[error("MCP session could not be established: {0}")]
    Handshake(String),
    /// A request to the peer failed (transport closed, protocol error, timeout).
    #[error("MCP request `{method}` failed: {message}")]
    Request {
        /// The JSON-RPC method (`tools/list`, ...).
        method: &'static str,
        /// What went wrong.
        message: String,
    },
    /// An imported tool could not be added to the toolbox (its name, after the prefix,
    /// is taken or invalid, or so is the namespace's it was to go in).
    #[error(transparent)]
    Toolbox(#[from] crate::toolbox::ToolboxError),
    /// A setting was refused (an approval signing key shorter than 32 bytes, say).
    #[error("MCP server setting refused: {0}")]
    Config(String),
    /// The server's task ended abnormally (it panicked or was aborted).
    #[error("MCP service task failed: {0}")]
    Task(String),
}
