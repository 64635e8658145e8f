//! The file assistant's tools and `get_weather`, served to any MCP host (Claude Desktop,
//! IDEs, agent frameworks in any language) with the sandbox and audit hooks governing
//! every call, and `write_file`, which a person at the host approves before each write
//! (the deferring approval gate, asked through the host's elicitation form).
//!
//! ```text
//! cargo run --example mcp_server                          # stdio (what MCP hosts launch)
//! cargo run --example mcp_server -- --http 127.0.0.1:8080 # streamable HTTP at /mcp
//! ```
//!
//! Options: `--data DIR` (the directory the file tools may read; sample files are
//! written there, default `target/mcp_server_data`), `--audit FILE` (the JSON Lines
//! audit log, default `target/mcp_server_audit.jsonl`). Logs go to stderr (`RUST_LOG`
//! sets the level, default `info,rmcp=warn`); stdout carries nothing but protocol messages.

#[path = "support/files.rs"]
mod files;
#[path = "support/weather.rs"]
mod weather;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use toolkit::hooks::{ApprovalGate, AuditLog, SafeDir};
use toolkit::mcp::McpServer;
use toolkit::prelude::*;

/// Where the example keeps its files when not told otherwise: the repository's
/// `target/`, whatever directory an MCP host starts it in.
const TARGET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target");

struct Options {
    http: Option<String>,
    data: PathBuf,
    audit: PathBuf,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        http: None,
        data: PathBuf::from(TARGET).join("mcp_server_data"),
        audit: PathBuf::from(TARGET).join("mcp_server_audit.jsonl"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("`{arg}` needs a value"));
        match arg.as_str() {
            "--http" => options.http = Some(value()?),
            "--data" => options.data = value()?.into(),
            "--audit" => options.audit = value()?.into(),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(options)
}

/// Write a text file in the data directory, replacing it if it exists. A person at the
/// host approves each write first.
#[tool(blocking, destructive, timeout = "5s")]
fn write_file(
    #[state] files: Arc<SafeDir>,
    /// The file to write, for example "notes.md".
    #[arg(min_length = 1)]
    path: String,
    /// The text to write.
    content: String,
) -> Result<String, std::io::Error> {
    files.write(&path, &content)?;
    Ok(format!("wrote {} bytes to {path}", content.len()))
}

fn main() -> ExitCode {
    // stderr only: on stdio, stdout is the protocol channel.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info,rmcp=warn".parse().unwrap()),
        )
        .init();
    let options = match options() {
        Ok(options) => options,
        Err(problem) => {
            if !problem.is_empty() {
                eprintln!("error: {problem}");
            }
            eprintln!("usage: mcp_server [--http ADDR] [--data DIR] [--audit FILE]");
            return if problem.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) };
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(options));
    // A tool stuck in blocking I/O (a timed-out read of a FIFO, say) must not keep the
    // process alive once the client has left: blocking tasks get 2 s, then we exit.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(options: Options) -> Result<(), Box<dyn std::error::Error>> {
    let data = files::create_sample_data(&options.data)?;
    let audit = AuditLog::to_file(&options.audit)?;
    let tools = toolbox![files::read_file, files::list_files, files::current_time, weather::get_weather, write_file]
        .with_hooks(files::file_hooks(&data))
        // Every destructive call waits for a person: the host shows them a form.
        .with_hook(ApprovalGate::deferring().destructive())
        .with_state(files::file_state(&data)?)
        .with_sink(audit.clone());
    let server = McpServer::new(tools).with_name("toolkit-example", env!("CARGO_PKG_VERSION")).with_instructions(
        "Files of a small project (read_file, list_files, write_file: a person approves each write) and the \
             current weather of a city.",
    );
    tracing::info!(data = %data.display(), audit = %options.audit.display(), "serving 5 tools");
    match options.http {
        None => tokio::select! {
            served = server.serve_stdio() => served?,
            // A host that quits may send SIGTERM rather than close stdin first.
            () = stop_signal() => {
                tracing::info!("stopping on a signal");
                audit.shutdown()?;
                // A read of stdin in progress cannot be cancelled and would keep the
                // runtime from shutting down: exit now that the records are written.
                std::process::exit(0);
            }
        },
        Some(addr) => {
            let http = server.bind_http(addr.as_str()).await?;
            // The one line a script waits for (on stderr, like every log).
            eprintln!("listening on {}", http.url());
            let stop = http.shutdown_token();
            tokio::spawn(async move {
                stop_signal().await;
                stop.cancel();
            });
            http.run().await?;
        }
    }
    // Write the last records before exiting.
    audit.shutdown()?;
    Ok(())
}

/// Ctrl-C, or (on Unix) SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            },
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
