//! Ordered sets of hooks ([`Hooks`]) and the process-wide registry ([`register`],
//! [`unregister`], [`list`], [`clear`]).

use std::sync::{Arc, LazyLock, RwLock};

use super::def::Hook;

/// A hook name is already taken in the registry it was added to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a hook named `{0}` is already registered here; hook names must be unique within a registry")]
pub struct DuplicateHook(pub String);

/// An ordered set of hooks with unique names: a toolbox's, an agent's, or what
/// `hooks![a, b, c]` builds. Kept sorted by priority (highest first), then by insertion.
///
/// ```
/// use toolkit::hook::{Hook, Hooks};
/// let mut hooks = Hooks::new();
/// hooks.add(Hook::after("a", |_: &mut toolkit::hook::AfterCall<'_>| ())).unwrap();
/// hooks.add(Hook::after("b", |_: &mut toolkit::hook::AfterCall<'_>| ()).priority(5)).unwrap();
/// assert!(hooks.add(Hook::new("a")).is_err());
/// assert_eq!(hooks.names(), ["b", "a"]);
/// ```
#[derive(Clone, Default, Debug)]
pub struct Hooks {
    list: Vec<Hook>,
}

impl Hooks {
    /// No hooks.
    pub const fn new() -> Self {
        Hooks { list: Vec::new() }
    }

    /// Adds a hook, after the others of its priority.
    pub fn add(&mut self, hook: impl Into<Hook>) -> Result<&mut Self, DuplicateHook> {
        let hook = hook.into();
        if self.list.iter().any(|h| h.name == hook.name) {
            return Err(DuplicateHook(hook.name.into_owned()));
        }
        let at = self.list.partition_point(|h| h.priority >= hook.priority);
        self.list.insert(at, hook);
        Ok(self)
    }

    /// Adds a hook, builder style.
    ///
    /// # Panics
    ///
    /// If a hook of that name is already in the set (a setup mistake; use
    /// [`add`](Hooks::add) to handle it).
    pub fn with(mut self, hook: impl Into<Hook>) -> Self {
        if let Err(e) = self.add(hook) {
            panic!("{e}");
        }
        self
    }

    /// Removes the hook of this name.
    pub fn remove(&mut self, name: &str) -> Option<Hook> {
        let at = self.list.iter().position(|h| h.name == name)?;
        Some(self.list.remove(at))
    }

    /// The hooks, in the order they run.
    pub fn iter(&self) -> std::slice::Iter<'_, Hook> {
        self.list.iter()
    }

    /// Their names, in the order they run.
    pub fn names(&self) -> Vec<&str> {
        self.list.iter().map(|h| h.name()).collect()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub(crate) fn get_mut(&mut self, name: &str) -> Option<&mut Hook> {
        self.list.iter_mut().find(|h| h.name == name)
    }

    pub(crate) fn as_slice(&self) -> &[Hook] {
        &self.list
    }
}

impl IntoIterator for Hooks {
    type Item = Hook;
    type IntoIter = std::vec::IntoIter<Hook>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

impl<'a> IntoIterator for &'a Hooks {
    type Item = &'a Hook;
    type IntoIter = std::slice::Iter<'a, Hook>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

// ---- the global registry ----------------------------------------------------------

static GLOBAL: LazyLock<RwLock<Arc<Hooks>>> = LazyLock::new(Default::default);
static GLOBAL_EMPTY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

fn update_global<R>(f: impl FnOnce(&mut Hooks) -> R) -> R {
    let mut guard = GLOBAL.write().unwrap_or_else(|e| e.into_inner());
    let mut hooks = Hooks::clone(&guard);
    let r = f(&mut hooks);
    GLOBAL_EMPTY.store(hooks.is_empty(), std::sync::atomic::Ordering::Release);
    *guard = Arc::new(hooks);
    r
}

/// Adds a hook to the process-wide registry: it then acts on every call of every
/// toolbox (as CrewAI's global hooks do).
pub fn register(hook: impl Into<Hook>) -> Result<(), DuplicateHook> {
    let hook = hook.into();
    update_global(|hooks| hooks.add(hook).map(|_| ()))
}

/// Removes the global hook of this name; `true` if there was one.
pub fn unregister(name: &str) -> bool {
    update_global(|hooks| hooks.remove(name).is_some())
}

/// The global hooks, in the order they run.
pub fn list() -> Vec<Hook> {
    global().list.clone()
}

/// Removes every global hook.
pub fn clear() {
    update_global(|hooks| hooks.list.clear())
}

/// A snapshot of the global hooks; `None` (one atomic load) when there are none.
#[inline]
pub(crate) fn global_snapshot() -> Option<Arc<Hooks>> {
    if GLOBAL_EMPTY.load(std::sync::atomic::Ordering::Acquire) {
        return None;
    }
    Some(global())
}

fn global() -> Arc<Hooks> {
    Arc::clone(&GLOBAL.read().unwrap_or_else(|e| e.into_inner()))
}
