//! File access beneath a sandbox root with no check-then-open race (feature `fs`).

use std::io;
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

/// A directory tools open files in, so that no path can lead out of it, even one whose
/// components are swapped for symbolic links while the tool runs.
///
/// [`PathSandbox`](super::PathSandbox) checks paths before a tool runs; a link swapped in
/// after that check and before the tool's `open` would escape it. `SafeDir` closes that
/// gap: it holds an open handle to the root and resolves every path beneath it
/// ([`cap-std`](https://docs.rs/cap-std); `openat2` with `RESOLVE_BENEATH` on Linux, a
/// component-by-component walk elsewhere). A relative symbolic link that stays inside
/// the root works; one that leads out, a link with an absolute target (even one pointing
/// inside: beneath the handle there is no `/`), `..` that climbs out, and an absolute
/// path outside the root fail with [`io::ErrorKind::PermissionDenied`] (or the OS's own
/// error).
///
/// Paths may be relative to the root or absolute under it (what
/// [`NormalizePaths`](super::NormalizePaths) and `PathSandbox` hand a tool). The methods
/// are blocking: call them from a `#[tool(blocking)]` tool or `spawn_blocking`. Give the
/// tool its `SafeDir` as shared state:
///
/// ```
/// use std::sync::Arc;
/// use toolkit::prelude::*;
/// use toolkit::hooks::{PathSandbox, SafeDir};
///
/// /// Read a text file.
/// #[tool(blocking, read_only)]
/// fn read_file(#[state] files: Arc<SafeDir>, path: String) -> Result<String, std::io::Error> {
///     files.read_to_string(&path)
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
/// let data = std::env::temp_dir().join(format!("safe-dir-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&data)?;
/// std::fs::write(data.join("a.txt"), "hello")?;
/// let tools = toolbox![read_file]
///     .with_hook(PathSandbox::new().allow(&data))
///     .with_state(Arc::new(SafeDir::open(&data)?));
/// let r = tools.call(ToolCall::new("1", "read_file", r#"{"path": "a.txt"}"#)).await;
/// assert_eq!(r.content, "hello");
/// # std::fs::remove_dir_all(&data)?; Ok(()) }
/// ```
#[derive(Debug)]
pub struct SafeDir {
    /// The root as given and as canonicalized: absolute paths under either are accepted.
    root: PathBuf,
    canonical: PathBuf,
    dir: Dir,
}

/// An entry of [`SafeDir::read_dir`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The file name (lossy UTF-8).
    pub name: String,
    /// Whether it is a directory.
    pub is_dir: bool,
    /// Its size in bytes.
    pub len: u64,
}

impl SafeDir {
    /// Opens `root` (which must exist and be a directory).
    pub fn open(root: impl AsRef<Path>) -> io::Result<SafeDir> {
        let root = root.as_ref();
        let canonical = std::fs::canonicalize(root)?;
        let dir = Dir::open_ambient_dir(&canonical, ambient_authority())?;
        Ok(SafeDir { root: root.to_path_buf(), canonical, dir })
    }

    /// The root, canonicalized.
    pub fn canonical_root(&self) -> &Path {
        &self.canonical
    }

    /// `path` relative to the root: as it is when relative, with the root's prefix taken
    /// off when absolute; `.` for the root itself.
    fn relative<'p>(&self, path: &'p Path) -> io::Result<&'p Path> {
        if !path.has_root() {
            return Ok(if path.as_os_str().is_empty() { Path::new(".") } else { path });
        }
        let inside = path.strip_prefix(&self.canonical).or_else(|_| path.strip_prefix(&self.root));
        match inside {
            Ok(rest) if rest.as_os_str().is_empty() => Ok(Path::new(".")),
            Ok(rest) if rest.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) => Ok(rest),
            _ => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("`{}` is outside {}", path.display(), self.canonical.display()),
            )),
        }
    }

    /// Reads a whole file as UTF-8 text.
    pub fn read_to_string(&self, path: impl AsRef<Path>) -> io::Result<String> {
        self.dir.read_to_string(self.relative(path.as_ref())?)
    }

    /// Reads a whole file.
    pub fn read(&self, path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
        self.dir.read(self.relative(path.as_ref())?)
    }

    /// Opens a file for reading.
    pub fn open_file(&self, path: impl AsRef<Path>) -> io::Result<std::fs::File> {
        Ok(self.dir.open(self.relative(path.as_ref())?)?.into_std())
    }

    /// Creates or replaces a file with `contents`.
    pub fn write(&self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
        self.dir.write(self.relative(path.as_ref())?, contents)
    }

    /// The entries of a directory, sorted by name.
    pub fn read_dir(&self, path: impl AsRef<Path>) -> io::Result<Vec<DirEntry>> {
        let mut entries = Vec::new();
        for entry in self.dir.read_dir(self.relative(path.as_ref())?)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            entries.push(DirEntry {
                name: entry.file_name().to_string_lossy().into_owned(),
                is_dir: meta.is_dir(),
                len: meta.len(),
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }
}
