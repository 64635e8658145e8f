//! Publishing a list of tools: the Markdown page and the JSON of every export target,
//! written into a directory from the same specs the dispatcher uses.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Target, markdown};
use crate::spec::ToolSpec;

/// The file name of a target's JSON: `tools.<stem>.json`.
///
/// ```
/// use toolkit::schema::{Target, docs_file_name};
/// assert_eq!(docs_file_name(Target::OpenAiChatStrict), "tools.openai_chat_strict.json");
/// assert_eq!(docs_file_name(Target::Mcp), "tools.mcp.json");
/// ```
pub fn docs_file_name(target: Target) -> String {
    let stem = match target {
        Target::OpenAiChat => "openai_chat",
        Target::OpenAiChatStrict => "openai_chat_strict",
        Target::OpenAiResponses => "openai_responses",
        Target::Anthropic => "anthropic",
        Target::Gemini => "gemini",
        Target::Mcp => "mcp",
    };
    format!("tools.{stem}.json")
}

/// Writes the documentation of `specs` into `dir` (created if missing): `TOOLS.md`, the
/// [`markdown`](fn@super::markdown) page titled `title`, and for every [`Target`] a
/// [`docs_file_name`] file holding the tools in that target's shape (a JSON array,
/// pretty-printed, one trailing newline). The same specs always give the same bytes,
/// so the files can be committed and diffed. Returns the paths written, page first.
///
/// ```
/// use serde_json::json;
/// use toolkit::ToolSpec;
///
/// let spec = ToolSpec::new("echo", "Repeat the text back.", json!({
///     "type": "object", "properties": {"text": {"type": "string"}},
///     "required": ["text"], "additionalProperties": false}));
/// let dir = std::env::temp_dir().join(format!("toolkit-docs-{}", std::process::id()));
/// let written = toolkit::schema::write_docs(&dir, "Echo", [&spec]).unwrap();
/// assert_eq!(written.len(), 1 + toolkit::Target::ALL.len());
/// assert!(std::fs::read_to_string(dir.join("TOOLS.md")).unwrap().contains("## echo"));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_docs<'a>(
    dir: impl AsRef<Path>,
    title: &str,
    specs: impl IntoIterator<Item = &'a ToolSpec>,
) -> io::Result<Vec<PathBuf>> {
    let dir = dir.as_ref();
    let specs: Vec<&ToolSpec> = specs.into_iter().collect();
    std::fs::create_dir_all(dir)?;
    let page = dir.join("TOOLS.md");
    std::fs::write(&page, markdown(title, specs.iter().copied()))?;
    let mut written = vec![page];
    for target in Target::ALL {
        let tools = Value::Array(specs.iter().map(|s| s.export(target)).collect());
        let mut json = serde_json::to_string_pretty(&tools).map_err(io::Error::other)?;
        json.push('\n');
        let path = dir.join(docs_file_name(target));
        std::fs::write(&path, json)?;
        written.push(path);
    }
    Ok(written)
}
