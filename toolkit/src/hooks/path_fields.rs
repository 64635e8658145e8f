//! Which argument fields hold file paths, for the path built-ins.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// The argument fields [`PathSandbox`](super::PathSandbox) and
/// [`NormalizePaths`](super::NormalizePaths) treat as paths unless told otherwise.
///
/// ```
/// assert!(toolkit::hooks::DEFAULT_PATH_FIELDS.contains(&"path"));
/// ```
pub const DEFAULT_PATH_FIELDS: [&str; 5] = ["path", "file", "filename", "dir", "directory"];

/// The top-level argument fields that hold a path (a string) or several (an array of
/// strings).
#[derive(Debug, Clone)]
pub(crate) struct PathFields(Vec<Cow<'static, str>>);

impl Default for PathFields {
    fn default() -> Self {
        PathFields(DEFAULT_PATH_FIELDS.iter().map(|f| Cow::Borrowed(*f)).collect())
    }
}

impl PathFields {
    pub(crate) fn new<I, S>(fields: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        PathFields(fields.into_iter().map(Into::into).collect())
    }

    /// Every path in `args`, with the field it is in.
    pub(crate) fn paths<'m>(&'m self, args: &'m Map<String, Value>) -> Vec<(&'m str, &'m str)> {
        let mut found = Vec::new();
        for field in &self.0 {
            match args.get(field.as_ref()) {
                Some(Value::String(path)) => found.push((field.as_ref(), path.as_str())),
                Some(Value::Array(items)) => {
                    found.extend(items.iter().filter_map(Value::as_str).map(|p| (field.as_ref(), p)));
                }
                _ => {}
            }
        }
        found
    }

    /// Replaces every path for which `rewrite` returns a new one.
    pub(crate) fn rewrite(&self, args: &mut Map<String, Value>, mut rewrite: impl FnMut(&str) -> Option<String>) {
        for field in &self.0 {
            match args.get_mut(field.as_ref()) {
                Some(Value::String(path)) => {
                    if let Some(new) = rewrite(path) {
                        *path = new;
                    }
                }
                Some(Value::Array(items)) => {
                    for item in items {
                        if let Value::String(path) = item
                            && let Some(new) = rewrite(path)
                        {
                            *path = new;
                        }
                    }
                }
                _ => {}
            }
        }
    }
}
