//! The file assistant's tools and hooks, shared by the `file_agent`, `mcp_server` and
//! `docs` examples (`#[path]`-included; not an example of its own).
//!
//! The tools read text files under a data directory and tell the time. The hooks keep
//! them safe: relative paths are resolved against the data directory, anything outside
//! it is blocked (the model hears why), long results are truncated, and a missing or
//! binary file gets a message the model can act on.

#![allow(dead_code)] // each including example uses its own part

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use toolkit::hooks::{NormalizePaths, PathSandbox, Rfc3339, SafeDir, Truncate};
use toolkit::prelude::*;
use toolkit::{Hook, hook};

/// Results longer than this many characters are cut (and say so).
pub const MAX_RESULT_CHARS: usize = 4000;

/// Read a text file and return its contents.
///
/// Paths are relative to the data directory; use `list_files` first when unsure of
/// a name. Only UTF-8 text files can be read.
// Opened through the data directory's `SafeDir`: a link swapped in after the sandbox's
// check cannot lead out of it.
#[tool(blocking, read_only, idempotent, timeout = "5s")]
pub fn read_file(
    #[state] files: Arc<SafeDir>,
    /// The file to read, for example "report.md".
    #[arg(min_length = 1)]
    path: String,
) -> Result<String, std::io::Error> {
    files.read_to_string(&path)
}

/// List the files in a directory of the data directory, with their sizes.
#[tool(blocking, read_only, idempotent, timeout = "5s")]
pub fn list_files(
    #[state] files: Arc<SafeDir>,
    /// The directory to list: "." for the data directory itself.
    path: String,
) -> Result<String, std::io::Error> {
    let lines: Vec<String> = files
        .read_dir(&path)?
        .into_iter()
        .map(|e| format!("{} {:>8} bytes  {}", if e.is_dir { "dir " } else { "file" }, e.len, e.name))
        .collect();
    Ok(if lines.is_empty() { "(empty directory)".into() } else { lines.join("\n") })
}

/// Tell the current date and time in UTC (RFC 3339).
#[tool(read_only)]
pub fn current_time() -> String {
    Rfc3339(SystemTime::now()).to_string()
}

/// Friendly messages for the two ways reading a file usually fails: the model learns
/// what to do next instead of reading an OS error code.
#[hook(error, tools = [read_file])]
pub fn friendly_file_errors(err: &mut ErrorCall<'_>) -> Recovery {
    let path = err.arguments().and_then(|a| a.get("path")).and_then(|p| p.as_str()).unwrap_or("?").to_string();
    let message = &err.error().message;
    let name = Path::new(&path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(path);
    if message.contains("No such file") {
        Recovery::Message(format!(
            "there is no file named `{name}` in the data directory; call list_files to see the files there"
        ))
    } else if message.contains("valid UTF-8") {
        Recovery::Message(format!("`{name}` is a binary file, not text; it cannot be read as text"))
    } else {
        Recovery::Propagate
    }
}

/// The shared state the file tools open files through.
pub fn file_state(data: &Path) -> std::io::Result<Arc<SafeDir>> {
    Ok(Arc::new(SafeDir::open(data)?))
}

/// The hooks that keep the file tools inside `data`: relative paths resolved against it,
/// everything else blocked, long results cut, friendly error messages.
pub fn file_hooks(data: &Path) -> Vec<Hook> {
    vec![
        NormalizePaths::under(data).into(),
        PathSandbox::new().allow(data).into(),
        Truncate::chars(MAX_RESULT_CHARS).into(),
        friendly_file_errors::hook(),
    ]
}

/// Creates `dir` with the sample files the examples read: a short report, a long log
/// (longer than [`MAX_RESULT_CHARS`]) and a small binary file.
pub fn create_sample_data(dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("report.md"),
        "# Quarterly report\n\n\
         Revenue grew 12% to 4.2 million, driven by the new API plan.\n\
         Churn fell from 3.1% to 2.4%.\n\
         Next quarter: ship the MCP server and hire two engineers.\n",
    )?;
    let log: String =
        (1..=400).map(|i| format!("2026-11-30T09:{:02}:{:02}Z GET /api/items/{i} 200\n", i / 60, i % 60)).collect();
    std::fs::write(dir.join("server.log"), log)?;
    std::fs::write(dir.join("logo.png"), [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00])?;
    dir.canonicalize()
}
