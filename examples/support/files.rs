//! The file assistant's tools and hooks, shared by the `file_agent`, `mcp_server` and
//! `docs` examples (`#[path]`-included; not an example of its own).
//!
//! The tools read files under a data directory (text as text, images and PDFs as parts
//! the model can look at) and tell the time. The hooks keep them safe: relative paths
//! are resolved against the data directory, anything outside it is blocked (the model
//! hears why), long results are truncated, and a missing file or one no model can read
//! gets a message the model can act on.

#![allow(dead_code)] // each including example uses its own part

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use toolkit::hooks::{NormalizePaths, PathSandbox, Rfc3339, SafeDir, Truncate};
use toolkit::parts::{File, Image, Part, sniff};
use toolkit::prelude::*;
use toolkit::{Hook, hook};

/// Results longer than this many characters are cut (and say so).
pub const MAX_RESULT_CHARS: usize = 4000;

/// Read a file: a text file's contents, or an image (PNG, JPEG, GIF, WebP) or a PDF to
/// look at.
///
/// Paths are relative to the data directory; use `list_files` first when unsure of
/// a name. Other binary files cannot be read.
// Opened through the data directory's `SafeDir`: a link swapped in after the sandbox's
// check cannot lead out of it. The model client sends an image or a PDF in its API's
// shape (`toolkit::parts`); a text-only transcript names it instead.
#[tool(blocking, read_only, idempotent, timeout = "5s")]
pub fn read_file(
    #[state] files: Arc<SafeDir>,
    /// The file to read, for example "report.md".
    #[arg(min_length = 1)]
    path: String,
) -> Result<Output, std::io::Error> {
    let bytes = match String::from_utf8(files.read(&path)?) {
        Ok(text) => return Ok(Output::text(text)),
        Err(not_text) => not_text.into_bytes(),
    };
    let name = Path::new(&path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into_owned());
    let part: Part = match sniff(&bytes) {
        Some("application/pdf") => File::pdf(name.clone(), bytes).into(),
        Some(_) => match Image::from_bytes(bytes) {
            Ok(image) => image.into(),
            Err(_) => return Err(not_readable()),
        },
        None => return Err(not_readable()),
    };
    Ok(Output::text(format!("{name}: {}", part.describe())).with_part(part))
}

/// What `read_to_string` says of bytes that are not text (the error hook knows it).
fn not_readable() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8")
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
        Recovery::Message(format!("`{name}` is a binary file, neither text nor an image or a PDF; it cannot be read"))
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

/// The example's logo: a 4×4 PNG.
const LOGO_PNG: [u8; 98] = [
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 4, 0, 0, 0, 4, 8, 2, 0, 0, 0, 38, 147, 9,
    41, 0, 0, 0, 41, 73, 68, 65, 84, 120, 156, 13, 199, 49, 1, 0, 0, 12, 194, 48, 132, 33, 12, 97, 21, 81, 89, 91, 190,
    36, 177, 113, 145, 152, 212, 214, 85, 250, 153, 157, 155, 236, 131, 197, 33, 120, 23, 242, 23, 193, 105, 175, 105,
    80, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// Creates `dir` with the sample files the examples read: a short report, a long log
/// (longer than [`MAX_RESULT_CHARS`]), a small image and a small binary file.
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
    std::fs::write(dir.join("logo.png"), LOGO_PNG)?;
    std::fs::write(dir.join("backup.bin"), [0x00, 0xff, 0xfe, 0x13, 0x37, 0x00, 0x80, 0x81])?;
    dir.canonicalize()
}
