//! The path sandbox: file paths in arguments must lie under allowed directories.

use std::borrow::Cow;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::path_fields::PathFields;
use crate::hook::{BeforeCall, BeforeHook, Decision, Hook, HookStep};

/// A before hook that keeps file paths in a call's arguments inside allowed
/// directories.
///
/// For each configured field (by default those of
/// [`DEFAULT_PATH_FIELDS`](super::DEFAULT_PATH_FIELDS): `path`, `file`, `filename`, `dir`,
/// `directory`; a string, or an array of strings), at the top level of the arguments:
///
/// 1. a path longer than 4,096 bytes or with more than 256 components is refused at
///    once, before the filesystem is touched (so checking costs at most 256 `lstat`s);
///    so is a path holding a NUL byte;
/// 2. a path with a `..` component is refused, whatever it would resolve to;
/// 3. a relative path is taken relative to the *first* allowed directory, and the tool
///    receives it joined to that directory, so the path checked is the path opened;
/// 4. the path is resolved component by component from the root (symbolic links
///    followed; the part that does not exist yet kept as written), the allowed
///    directories are canonicalized, and it must lie inside one of them. A symbolic link
///    pointing out of the sandbox is therefore refused, and so is a dangling one.
///
/// A refused call is blocked with a reason the model can act on:
/// ``blocked: `/etc/passwd` is outside the allowed directories (data/); use a path under
/// data/``.
///
/// The check happens before the tool runs: a link swapped in between the check and
/// the tool's open is not caught by the hook alone. Tools that open files should do it
/// through [`SafeDir`](super::SafeDir) (feature `fs`), which resolves every path beneath
/// the root's directory handle (`openat2` with `RESOLVE_BENEATH` on Linux), so a swapped
/// link cannot lead out.
///
/// Named `path_sandbox`, priority 40.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::PathSandbox;
///
/// /// Read a file.
/// #[tool(read_only)]
/// fn read_file(path: String) -> String { format!("read {path}") }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let root = std::env::temp_dir();
/// let tools = toolbox![read_file].with_hook(PathSandbox::new().allow(&root));
/// let r = tools.call(ToolCall::new("1", "read_file", r#"{"path": "../etc/passwd"}"#)).await;
/// assert!(r.content.starts_with("blocked: `../etc/passwd` contains `..`"), "{}", r.content);
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct PathSandbox {
    name: Cow<'static, str>,
    roots: Vec<PathBuf>,
    fields: PathFields,
}

impl Default for PathSandbox {
    fn default() -> Self {
        PathSandbox::new()
    }
}

impl PathSandbox {
    /// A sandbox with no allowed directory yet (it refuses every path until
    /// [`allow`](PathSandbox::allow) adds one).
    pub fn new() -> Self {
        PathSandbox { name: Cow::Borrowed("path_sandbox"), roots: Vec::new(), fields: PathFields::default() }
    }

    /// Allows paths under `root`. The first root is where relative paths are resolved.
    /// Roots are canonicalized on every check, so a root created later still works.
    pub fn allow(mut self, root: impl Into<PathBuf>) -> Self {
        self.roots.push(root.into());
        self
    }

    /// Checks these argument fields instead of the defaults.
    pub fn fields<I, S>(mut self, fields: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        self.fields = PathFields::new(fields);
        self
    }

    /// Sets the hook's name (default `path_sandbox`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// Checks one path: `Ok(Some(path))` to give the tool instead (a relative path
    /// joined to the first root), `Ok(None)` if it is fine as it is, `Err(reason)` for
    /// the model.
    fn check(&self, path: &str) -> Result<Option<String>, String> {
        if path.len() > MAX_PATH_BYTES {
            return Err(format!(
                "the path `{}…` is {} bytes long; paths are limited to {MAX_PATH_BYTES} bytes: use a shorter path under {}",
                head(path),
                path.len(),
                self.first_root()
            ));
        }
        if path.bytes().filter(|&b| b == b'/' || b == std::path::MAIN_SEPARATOR as u8).count() >= MAX_COMPONENTS {
            return Err(format!(
                "the path `{}…` has more than {MAX_COMPONENTS} components; use a shorter path under {}",
                head(path),
                self.first_root()
            ));
        }
        if path.contains('\0') {
            return Err(format!(
                "`{}` contains a NUL byte, which no file name can hold; use a path under {}",
                path.replace('\0', "\\0"),
                self.first_root()
            ));
        }
        let given = Path::new(path);
        if given.components().any(|c| c == Component::ParentDir) {
            return Err(format!("`{path}` contains `..`; use a path under {} without `..`", self.first_root()));
        }
        let Some(first) = self.roots.first() else {
            return Err("file access is disabled: no directory is allowed".to_owned());
        };
        let relative = !given.has_root();
        let resolved: PathBuf = if relative { first.join(given) } else { given.to_path_buf() }
            .components()
            .filter(|c| *c != Component::CurDir)
            .collect();
        let roots: Vec<PathBuf> = self.roots.iter().filter_map(|r| std::fs::canonicalize(r).ok()).collect();
        // A relative path is resolved from the first root as it is on disk.
        let resolved_from = match (relative, std::fs::canonicalize(first)) {
            (true, Ok(first)) => first.join(given).components().filter(|c| *c != Component::CurDir).collect(),
            _ => resolved.clone(),
        };
        if roots.is_empty() {
            tracing::warn!(roots = ?self.roots, "path sandbox: none of the allowed directories exists");
            return Err(format!(
                "file access is unavailable: the allowed directories ({}) do not exist",
                self.root_list()
            ));
        }
        let canonical = match resolve(&resolved_from) {
            Ok(canonical) => canonical,
            Err(e) => {
                tracing::debug!(path, error = %e, "path sandbox: cannot resolve");
                return Err(format!("`{path}` cannot be resolved; use a path under {}", self.first_root()));
            }
        };
        if !roots.iter().any(|root| canonical.starts_with(root)) {
            return Err(format!(
                "`{path}` is outside the allowed directories ({}); use a path under {}",
                self.root_list(),
                self.first_root()
            ));
        }
        if relative { Ok(Some(resolved.to_str().map_or_else(|| path.to_owned(), str::to_owned))) } else { Ok(None) }
    }

    fn first_root(&self) -> String {
        self.roots.first().map_or_else(String::new, |r| shown(r))
    }

    fn root_list(&self) -> String {
        self.roots.iter().map(|r| shown(r)).collect::<Vec<_>>().join(", ")
    }
}

/// A root as the model reads it: as configured, with a trailing separator.
fn shown(root: &Path) -> String {
    let text = root.display().to_string();
    if text.ends_with(std::path::MAIN_SEPARATOR) || text.ends_with('/') { text } else { format!("{text}/") }
}

/// The longest path the sandbox checks, in bytes (Linux's `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;
/// The most components a checked path may have.
const MAX_COMPONENTS: usize = 256;

/// The start of a long path, for a message.
fn head(path: &str) -> &str {
    let end = (0..=path.len().min(60)).rev().find(|&i| path.is_char_boundary(i)).unwrap_or(0);
    &path[..end]
}

/// Resolves an absolute path without `..`: from the root down, one `lstat` per
/// component; a symbolic link is replaced by its canonical target, and the first
/// component that does not exist ends the walk (the rest is kept as written). An entry
/// that exists but cannot be resolved (a dangling link, a loop) is an error: what it
/// points to is unknown.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut resolved = PathBuf::new();
    let mut components = path.components();
    while let Some(component) = components.next() {
        let Component::Normal(name) = component else {
            resolved.push(component);
            continue;
        };
        let next = resolved.join(name);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => resolved = std::fs::canonicalize(&next)?,
            Ok(_) => resolved = next,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                resolved = next;
                resolved.extend(components);
                return Ok(resolved);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(resolved)
}

impl BeforeHook for PathSandbox {
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        // By path, so an array of many paths is rewritten in linear time.
        let mut resolved = std::collections::HashMap::new();
        for (_, path) in self.fields.paths(call.arguments()) {
            match self.check(path) {
                Ok(Some(new)) => {
                    resolved.insert(path.to_owned(), new);
                }
                Ok(None) => {}
                Err(reason) => return HookStep::Ready(Ok(Decision::Block(reason))),
            }
        }
        if !resolved.is_empty() {
            self.fields.rewrite(call.arguments_mut(), |path| resolved.get(path).cloned());
        }
        HookStep::Ready(Ok(Decision::Continue))
    }

    fn is_sync(&self) -> bool {
        true
    }
}

impl From<PathSandbox> for Hook {
    fn from(sandbox: PathSandbox) -> Hook {
        Hook::new(sandbox.name.clone()).priority(40).on_before(sandbox)
    }
}
