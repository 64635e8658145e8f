//! One [`Hook`]: its name, priority, failure policy, timeout, [`Filter`] of tools, and
//! what it does on each event.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::context::{AfterCall, BeforeCall, ErrorCall};
use super::decision::{Decision, IntoHookResult, OnFailure, Recovery};
use super::traits::{AfterHook, BeforeHook, ErrorHook, FnAfter, FnBefore, FnError};
use crate::record::Event;

/// Which tools a hook acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// Every tool.
    All,
    /// These tools, by name.
    Tools(Vec<Cow<'static, str>>),
    /// Tools whose name matches a pattern: `*` matches any run of characters, `?` one
    /// character (`mcp_*`, `*_file`).
    Matching(Cow<'static, str>),
}

impl Filter {
    /// Whether the hook acts on the tool of this name.
    #[inline]
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            Filter::All => true,
            // A tool's own name constant is usually the very string the filter holds.
            Filter::Tools(names) => names.iter().any(|n| std::ptr::eq(n.as_ref(), tool) || n == tool),
            Filter::Matching(pattern) => glob(pattern.as_bytes(), tool.as_bytes()),
        }
    }
}

/// `*` and `?` wildcards, iteratively with one backtrack point.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// One hook: a name, its policy, and what it does on each event it acts on.
///
/// ```
/// use std::time::Duration;
/// use toolkit::hook::{Decision, Event, Hook, OnFailure};
///
/// let hook = Hook::before("only_mcp", |_call: &mut toolkit::hook::BeforeCall<'_>| Decision::Continue)
///     .matching("mcp_*")
///     .priority(10)
///     .on_failure(OnFailure::Continue);
/// assert_eq!(hook.name(), "only_mcp");
/// assert_eq!(hook.events(), vec![Event::Before]);
/// assert_eq!(hook.failure_policy(Event::Before), OnFailure::Continue);
/// ```
#[derive(Clone)]
pub struct Hook {
    pub(crate) name: Cow<'static, str>,
    pub(crate) priority: i32,
    pub(crate) filter: Filter,
    pub(crate) on_failure: Option<OnFailure>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) before: Option<Arc<dyn BeforeHook>>,
    pub(crate) after: Option<Arc<dyn AfterHook>>,
    pub(crate) error: Option<Arc<dyn ErrorHook>>,
    /// Every event it acts on finishes without waiting (kept, not asked per call).
    pub(crate) sync: bool,
    /// Its after hook reads the tool's typed output ([`AfterCall::raw`]).
    pub(crate) reads_raw: bool,
}

impl fmt::Debug for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hook")
            .field("name", &self.name)
            .field("events", &self.events())
            .field("priority", &self.priority)
            .field("filter", &self.filter)
            .field("on_failure", &self.on_failure)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Hook {
    /// A hook that acts on no event yet; add them with [`on_before`](Hook::on_before),
    /// [`on_after`](Hook::on_after) and [`on_error`](Hook::on_error).
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Hook {
            name: name.into(),
            priority: 0,
            filter: Filter::All,
            on_failure: None,
            timeout: None,
            before: None,
            after: None,
            error: None,
            sync: true,
            reads_raw: false,
        }
    }

    /// A before hook from a closure returning [`Decision`], `()` or a `Result` of them.
    pub fn before<F, R>(name: impl Into<Cow<'static, str>>, f: F) -> Self
    where
        F: Fn(&mut BeforeCall<'_>) -> R + Send + Sync + 'static,
        R: IntoHookResult<Decision>,
    {
        Hook::new(name).on_before(FnBefore(f))
    }

    /// An after hook from a closure returning `()` or a `Result<(), E>`.
    pub fn after<F, R>(name: impl Into<Cow<'static, str>>, f: F) -> Self
    where
        F: Fn(&mut AfterCall<'_>) -> R + Send + Sync + 'static,
        R: IntoHookResult<()>,
    {
        Hook::new(name).on_after(FnAfter(f))
    }

    /// An error hook from a closure returning [`Recovery`], `()` or a `Result` of them.
    pub fn error<F, R>(name: impl Into<Cow<'static, str>>, f: F) -> Self
    where
        F: Fn(&mut ErrorCall<'_>) -> R + Send + Sync + 'static,
        R: IntoHookResult<Recovery>,
    {
        Hook::new(name).on_error(FnError(f))
    }

    /// Acts before the tool runs.
    pub fn on_before(mut self, hook: impl BeforeHook) -> Self {
        self.before = Some(Arc::new(hook));
        self.sync = self.compute_sync();
        self
    }

    /// Acts on every output.
    pub fn on_after(mut self, hook: impl AfterHook) -> Self {
        self.after = Some(Arc::new(hook));
        self.sync = self.compute_sync();
        self
    }

    /// Acts on every failure.
    pub fn on_error(mut self, hook: impl ErrorHook) -> Self {
        self.error = Some(Arc::new(hook));
        self.sync = self.compute_sync();
        self
    }

    /// Declares that its after hook reads the tool's typed output with
    /// [`AfterCall::raw`]: a tool keeps its typed value beside the text only for calls a
    /// hook that says so acts on (`#[hook(after)]` with a `raw` parameter says so itself).
    pub fn reading_raw(mut self) -> Self {
        self.reads_raw = true;
        self
    }

    /// Higher runs first (default `0`).
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// The failure policy for every event (default: `Block` before, `Continue` after and
    /// on error).
    pub fn on_failure(mut self, policy: OnFailure) -> Self {
        self.on_failure = Some(policy);
        self
    }

    /// How long an async hook may take; past it, the hook has failed.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Acts only on these tools.
    pub fn for_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        self.filter = Filter::Tools(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Acts only on tools whose name matches `pattern` (`*` and `?` wildcards).
    pub fn matching(mut self, pattern: impl Into<Cow<'static, str>>) -> Self {
        self.filter = Filter::Matching(pattern.into());
        self
    }

    /// The name (unique within a registry).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The priority.
    pub fn get_priority(&self) -> i32 {
        self.priority
    }

    /// Which tools it acts on.
    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    /// The events it acts on.
    pub fn events(&self) -> Vec<Event> {
        let mut events = Vec::new();
        if self.before.is_some() {
            events.push(Event::Before);
        }
        if self.after.is_some() {
            events.push(Event::After);
        }
        if self.error.is_some() {
            events.push(Event::Error);
        }
        events
    }

    /// The policy that applies when it fails on `event`.
    pub fn failure_policy(&self, event: Event) -> OnFailure {
        self.on_failure.unwrap_or(match event {
            Event::Before => OnFailure::Block,
            Event::After | Event::Error => OnFailure::Continue,
        })
    }

    /// Its timeout, if any.
    pub fn get_timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Whether every event it acts on finishes without waiting.
    #[inline]
    pub(crate) fn is_sync(&self) -> bool {
        self.sync
    }

    fn compute_sync(&self) -> bool {
        self.before.as_ref().is_none_or(|h| h.is_sync())
            && self.after.as_ref().is_none_or(|h| h.is_sync())
            && self.error.as_ref().is_none_or(|h| h.is_sync())
    }
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn glob_matches_wildcards() {
        assert!(glob(b"mcp_*", b"mcp_read"));
        assert!(glob(b"*_file", b"read_file"));
        assert!(glob(b"r?ad", b"read"));
        assert!(glob(b"*", b""));
        assert!(!glob(b"mcp_*", b"read_mcp"));
        assert!(!glob(b"a*b", b"acbx"));
        assert!(glob(b"a*b*c", b"axxbyyc"));
    }
}
