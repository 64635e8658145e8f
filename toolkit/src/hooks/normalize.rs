//! Argument normalization: relative paths become absolute before the tool (and the
//! hooks after this one) see them.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::path_fields::PathFields;
use crate::hook::{BeforeCall, BeforeHook, Decision, Hook, HookStep};

/// A before hook that rewrites relative paths in a call's arguments into `base/path`,
/// leaving absolute paths (and empty strings) alone.
///
/// It looks at the same fields as [`PathSandbox`](super::PathSandbox) (by default
/// [`DEFAULT_PATH_FIELDS`](super::DEFAULT_PATH_FIELDS); a string or an array of strings, at
/// the top level). It only joins: it does not resolve `..` or links (that is the
/// sandbox's business, and the sandbox runs after it by default).
///
/// Named `normalize_paths`, priority 50.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::NormalizePaths;
///
/// /// Say which file would be read.
/// #[tool]
/// fn which(path: String) -> String { path }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![which].with_hook(NormalizePaths::under("/srv/data"));
/// let r = tools.call(ToolCall::new("1", "which", r#"{"path": "notes/a.md"}"#)).await;
/// assert_eq!(r.content, std::path::Path::new("/srv/data").join("notes/a.md").to_str().unwrap());
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct NormalizePaths {
    name: Cow<'static, str>,
    base: PathBuf,
    fields: PathFields,
}

impl NormalizePaths {
    /// Makes relative paths relative to `base`.
    pub fn under(base: impl Into<PathBuf>) -> Self {
        NormalizePaths { name: Cow::Borrowed("normalize_paths"), base: base.into(), fields: PathFields::default() }
    }

    /// Rewrites these argument fields instead of the defaults.
    pub fn fields<I, S>(mut self, fields: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        self.fields = PathFields::new(fields);
        self
    }

    /// Sets the hook's name (default `normalize_paths`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// The path the tool should receive instead of `path`, if any.
    fn normalized(&self, path: &str) -> Option<String> {
        let given = Path::new(path);
        if path.is_empty() || given.has_root() {
            return None;
        }
        self.base.join(given).to_str().map(str::to_owned)
    }
}

impl BeforeHook for NormalizePaths {
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        // Only ask for write access (which the record notes) when something changes.
        let any = self.fields.paths(call.arguments()).iter().any(|(_, p)| self.normalized(p).is_some());
        if any {
            self.fields.rewrite(call.arguments_mut(), |path| self.normalized(path));
        }
        HookStep::Ready(Ok(Decision::Continue))
    }

    fn is_sync(&self) -> bool {
        true
    }
}

impl From<NormalizePaths> for Hook {
    fn from(normalize: NormalizePaths) -> Hook {
        Hook::new(normalize.name.clone()).priority(50).on_before(normalize)
    }
}
