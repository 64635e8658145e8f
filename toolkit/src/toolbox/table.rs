//! The dispatch table: every tool of a toolbox, compile-time and run-time alike, in the
//! order they were added, with an index by name.
//!
//! Adding a tool and finding one by name are both O(1) (a hash index of our own,
//! [`NameIndex`]), so a toolbox of 100,000 tools builds in linear time, and a call
//! finds its tool as fast there as in a toolbox of two.

use std::borrow::Cow;

use super::names::NameIndex;

use crate::exec::{Dynamic, Runnable, Typed};
use crate::spec::ToolSpec;
use crate::tool::{DynTool, Tool};

/// One tool of a table: its name (known without building its spec) and the tool.
#[doc(hidden)]
pub struct ToolEntry {
    name: Cow<'static, str>,
    tool: Box<dyn Runnable>,
    /// It declares a retry policy.
    retries: bool,
    /// It is deferred (found by `search_tools`).
    deferred: bool,
}

impl ToolEntry {
    /// A compile-time tool.
    pub fn of<T: Tool>(tool: T) -> Self {
        ToolEntry {
            name: Cow::Borrowed(T::NAME),
            tool: Box::new(Typed::new(tool)),
            retries: T::RETRIES,
            deferred: T::DEFERRED,
        }
    }

    /// A run-time tool.
    pub(crate) fn dynamic<D: DynTool>(tool: D) -> Self {
        let retries = tool.spec().retry.is_some();
        let deferred = tool.spec().deferred;
        ToolEntry { name: Cow::Owned(tool.spec().name.clone()), tool: Box::new(Dynamic(tool)), retries, deferred }
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Whether the tool is deferred.
    pub(crate) fn deferred(&self) -> bool {
        self.deferred
    }

    /// The name, when the tool declares a retry policy.
    pub(crate) fn retried(&self) -> Option<Cow<'static, str>> {
        self.retries.then(|| self.name.clone())
    }
}

/// Why a tool could not be added to a toolbox.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolboxError {
    /// Another tool in the toolbox already has this name.
    #[error("a tool named `{0}` is already in this toolbox")]
    DuplicateName(String),
    /// The name is not `^[a-zA-Z0-9_-]{{1,64}}$`.
    #[error("`{0}` is not a valid tool name: use 1 to 64 ASCII letters, digits, `_` or `-`")]
    InvalidName(String),
    /// Another namespace of the toolbox already has this name.
    #[error("a namespace named `{0}` is already in this toolbox")]
    DuplicateNamespace(String),
    /// A namespace names a tool the toolbox does not have.
    #[error("namespace `{namespace}` names `{tool}`, which is not in this toolbox: add the tool first")]
    NotInToolbox {
        /// The tool named.
        tool: String,
        /// The namespace being added.
        namespace: String,
    },
    /// A namespace names a tool that is in another namespace already.
    #[error("`{tool}` is in namespace `{namespace}` already: a tool is in one namespace at most")]
    InNamespace {
        /// The tool named.
        tool: String,
        /// The namespace it is in.
        namespace: String,
    },
}

/// The tools, in order, and their index by name.
#[derive(Default)]
pub(crate) struct Table {
    entries: Vec<ToolEntry>,
    /// The place of each tool in `entries`, by the hash of its name (the names are not
    /// stored twice).
    index: NameIndex,
    /// The names prepared for "did you mean", on the first unknown name of a large table.
    near: std::sync::OnceLock<crate::nearest::Names>,
}

/// Past this many tools, an unknown name is looked up in prepared names rather than
/// compared with every tool.
const PREPARED: usize = 64;

impl Table {
    /// Adds a tool; `Err` if its name is taken or invalid.
    pub(crate) fn push(&mut self, entry: ToolEntry) -> Result<(), ToolboxError> {
        if !crate::schema::is_valid_name(&entry.name) {
            return Err(ToolboxError::InvalidName(entry.name.into_owned()));
        }
        if self.find(&entry.name).is_some() {
            return Err(ToolboxError::DuplicateName(entry.name.into_owned()));
        }
        let Table { entries, index, .. } = self;
        index.insert(&entry.name, entries.len(), |i| &entries[i].name);
        entries.push(entry);
        self.near = std::sync::OnceLock::new();
        Ok(())
    }

    /// Puts `entry` in place of the tool of its name; `false` (and no change) if there
    /// is none.
    pub(crate) fn replace(&mut self, entry: ToolEntry) -> bool {
        match self.find(&entry.name) {
            Some(i) => {
                self.entries[i] = entry;
                true
            }
            None => false,
        }
    }

    /// The place in the table of the tool of this name (a place, not the tool: returned
    /// in a register).
    #[inline]
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.index.find(name, |i| &self.entries[i].name)
    }

    /// The tool at a place [`find`](Table::find) gave.
    #[inline]
    pub(crate) fn tool(&self, place: usize) -> &dyn Runnable {
        &*self.entries[place].tool
    }

    pub(crate) fn entries(&self) -> &[ToolEntry] {
        &self.entries
    }

    pub(crate) fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.find(name).map(|i| self.tool(i).spec())
    }

    pub(crate) fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.entries.iter().map(|e| e.tool.spec())
    }
}

/// The message for a call naming no tool: the available names, and the nearest one when
/// the name looks like a typo of it.
///
/// Bounded whatever the model sent or the toolbox holds: the name is echoed up to 64
/// characters, at most 20 tools are listed, and a name that cannot be a typo of any tool
/// (longer than any by more than the typo limit) is not compared with them.
pub(crate) fn unknown_tool(name: &str, table: &Table) -> crate::error::ToolError {
    use crate::error::{ErrorKind, ToolError};
    const ECHO: usize = 64;
    const LIST: usize = 20;
    let entries = table.entries();
    let mut list = entries.iter().take(LIST).map(|e| format!("`{}`", e.name())).collect::<Vec<_>>().join(", ");
    if entries.len() > LIST {
        list.push_str(&format!(" and {} more", entries.len() - LIST));
    }
    let echoed: String;
    let name = if name.chars().count() > ECHO {
        echoed = name.chars().take(ECHO).chain(['…']).collect();
        echoed.as_str()
    } else {
        name
    };
    let near = if entries.len() > PREPARED {
        let names = table.near.get_or_init(|| crate::nearest::Names::new(entries.iter().map(ToolEntry::name)));
        names.nearest(name).map(|i| entries[i].name())
    } else {
        let available: Vec<&str> = entries.iter().map(ToolEntry::name).collect();
        crate::nearest::nearest(name, &available)
    };
    let message = if entries.is_empty() {
        format!("unknown tool `{name}`: no tools are available")
    } else {
        match near {
            Some(near) => format!("unknown tool `{name}`; did you mean `{near}`? Available tools: {list}"),
            None => format!("unknown tool `{name}`; available tools: {list}"),
        }
    };
    ToolError::new(ErrorKind::UnknownTool, message)
}
