//! Hooks: code that runs around every tool call and governs it.
//!
//! A [`Hook`] has a name, a priority, a failure policy, an optional timeout, a filter
//! (every tool, a list of tools, or a name pattern), and acts on one or more events:
//!
//! - **before** the tool runs ([`BeforeHook`], context [`BeforeCall`]): rewrite the
//!   arguments, [`Decision::Block`] the call with a reason the model hears, or
//!   [`Decision::Return`] an output without running the tool (outcome `cached`);
//! - **after** it produced an output ([`AfterHook`], context [`AfterCall`]): rewrite the
//!   model-visible text, read the raw typed output;
//! - on an **error** ([`ErrorHook`], context [`ErrorCall`]): replace the message
//!   ([`Recovery::Message`]), ask for a [`Recovery::Retry`], or pass it on.
//!
//! Write hooks with `#[hook(before | after | error)]` on a function, or build them at
//! run time with [`Hook::before`], [`Hook::after`] and [`Hook::error`]. Hooks live in
//! three scopes: the process-wide registry of this module ([`register`], [`unregister`],
//! [`list`], [`clear`]), a toolbox ([`Toolbox::with_hook`](crate::Toolbox::with_hook)),
//! and a [`Scope`] passed per call (an agent's hooks).
//!
//! # Order
//!
//! Hooks run by priority, highest first (default `0`); among equal priorities, global
//! hooks before toolbox hooks before scope (agent) hooks; within one registry, in
//! registration order.
//!
//! # Failure policy
//!
//! A hook that returns an error, panics or exceeds its timeout has *failed*, and its
//! [`OnFailure`] policy applies: [`OnFailure::Block`] (fail closed; the default for
//! before hooks, which guard) blocks the call with a model-visible reason such as
//! ``blocked: policy check `sandbox` failed``; [`OnFailure::Continue`] (fail open; the
//! default for after and error hooks) logs the failure and leaves the call as it was
//! before the hook ran. Nothing a hook does can crash the program or lose the call's
//! result.
//!
//! ```
//! use toolkit::prelude::*;
//! use toolkit::hook::{Decision, Hook};
//!
//! /// Delete a file.
//! #[tool(destructive)]
//! fn delete(path: String) -> String { format!("deleted {path}") }
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let tools = toolbox![delete].with_hook(Hook::before("no_system_files", |call: &mut BeforeCall<'_>| {
//!     match call.arguments()["path"].as_str() {
//!         Some(p) if p.starts_with("/etc") => Decision::Block(format!("`{p}` is a system file")),
//!         _ => Decision::Continue,
//!     }
//! }));
//! let r = tools.call(ToolCall::new("1", "delete", r#"{"path": "/etc/hosts"}"#)).await;
//! assert_eq!(r.content, "blocked: `/etc/hosts` is a system file");
//! # }
//! ```

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock, RwLock};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::call::{ErrorKind, Output, State, ToolError};
use crate::tool::ToolSpec;

// ---- decisions ------------------------------------------------------------------

/// What a before hook decided.
#[derive(Debug)]
#[non_exhaustive]
pub enum Decision {
    /// Go on: the next hook, then the tool.
    Continue,
    /// Stop the call. The model receives `blocked: {reason}`; later before hooks and the
    /// tool do not run.
    Block(String),
    /// Answer the call with this output without running the tool (a cache hit). After
    /// hooks still run; the outcome is `cached`.
    Return(Output),
}

/// What an error hook decided.
#[derive(Debug)]
#[non_exhaustive]
pub enum Recovery {
    /// Replace the model-visible text of the failure (the outcome is `recovered`).
    Message(String),
    /// Run the call again (attempt + 1). Honoured only for tools declared `read_only` or
    /// `idempotent`, and at most [`Limits::max_retries`](crate::Limits::max_retries)
    /// times; otherwise it counts as [`Propagate`](Recovery::Propagate).
    Retry,
    /// Leave the failure as it is for the next error hook.
    Propagate,
}

/// When a hook fails (returns an error, panics, or overruns its timeout): block the call
/// (fail closed) or carry on as if the hook had not run (fail open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// Block the call with ``blocked: policy check `{hook}` failed``.
    Block,
    /// Log the failure and leave the call unchanged.
    Continue,
}

/// The events a hook can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// Before the tool runs.
    Before,
    /// After an output (from the tool or a before hook's `Return`).
    After,
    /// On a failure.
    Error,
}

impl Event {
    /// `before`, `after` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Event::Before => "before",
            Event::After => "after",
            Event::Error => "error",
        }
    }
}

/// Why a hook failed: operator detail, logged and put in the call record; the model
/// only learns that the policy check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError(String);

impl HookError {
    /// A failure with this description.
    pub fn new(message: impl fmt::Display) -> Self {
        HookError(message.to_string())
    }

    /// The description.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HookError {}

/// The result of starting a hook: known at once (a sync hook, no allocation), or a
/// future to await (an async hook).
pub enum HookStep<'a, T> {
    /// The hook has finished.
    Ready(Result<T, HookError>),
    /// The hook is running.
    Pending(BoxFuture<'a, Result<T, HookError>>),
}

impl<T> HookStep<'_, T> {
    /// A finished step.
    pub fn ready(value: impl IntoHookResult<T>) -> Self {
        HookStep::Ready(value.into_hook_result())
    }
}

/// What a hook function may return: the value itself, `()` (meaning "no change"), or a
/// `Result` whose error (any `Display`) makes the hook fail.
pub trait IntoHookResult<T> {
    /// Converts to the hook's result.
    fn into_hook_result(self) -> Result<T, HookError>;
}

impl IntoHookResult<Decision> for Decision {
    fn into_hook_result(self) -> Result<Decision, HookError> {
        Ok(self)
    }
}

impl IntoHookResult<Decision> for () {
    fn into_hook_result(self) -> Result<Decision, HookError> {
        Ok(Decision::Continue)
    }
}

impl IntoHookResult<Recovery> for Recovery {
    fn into_hook_result(self) -> Result<Recovery, HookError> {
        Ok(self)
    }
}

impl IntoHookResult<Recovery> for () {
    fn into_hook_result(self) -> Result<Recovery, HookError> {
        Ok(Recovery::Propagate)
    }
}

impl IntoHookResult<()> for () {
    fn into_hook_result(self) -> Result<(), HookError> {
        Ok(())
    }
}

impl<T, R: IntoHookResult<T>, E: fmt::Display> IntoHookResult<T> for Result<R, E> {
    fn into_hook_result(self) -> Result<T, HookError> {
        match self {
            Ok(r) => r.into_hook_result(),
            Err(e) => Err(HookError::new(e)),
        }
    }
}

// ---- the hook traits --------------------------------------------------------------

/// Code that runs before a tool. `#[hook(before)]` implements it; so do
/// [`Hook::before`]'s closures.
pub trait BeforeHook: Send + Sync + 'static {
    /// Inspects (and may rewrite) the call; decides whether it goes on.
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision>;

    /// `true` if [`before`](BeforeHook::before) always returns [`HookStep::Ready`]: a call
    /// of a sync tool whose hooks are all sync then runs with no future at all. A hook
    /// that says so and returns `Pending` anyway has failed. Default `false`.
    fn is_sync(&self) -> bool {
        false
    }
}

/// Code that runs on every output. `#[hook(after)]` implements it.
pub trait AfterHook: Send + Sync + 'static {
    /// Inspects (and may rewrite) the model-visible text.
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()>;

    /// As [`BeforeHook::is_sync`].
    fn is_sync(&self) -> bool {
        false
    }
}

/// Code that runs on every failure. `#[hook(error)]` implements it.
pub trait ErrorHook: Send + Sync + 'static {
    /// Decides what the model is told, or asks for a retry.
    fn error<'a>(&'a self, err: &'a mut ErrorCall<'_>) -> HookStep<'a, Recovery>;

    /// As [`BeforeHook::is_sync`].
    fn is_sync(&self) -> bool {
        false
    }
}

struct FnBefore<F>(F);
impl<F, R> BeforeHook for FnBefore<F>
where
    F: Fn(&mut BeforeCall<'_>) -> R + Send + Sync + 'static,
    R: IntoHookResult<Decision>,
{
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        HookStep::ready((self.0)(call))
    }
    fn is_sync(&self) -> bool {
        true
    }
}

struct FnAfter<F>(F);
impl<F, R> AfterHook for FnAfter<F>
where
    F: Fn(&mut AfterCall<'_>) -> R + Send + Sync + 'static,
    R: IntoHookResult<()>,
{
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()> {
        HookStep::ready((self.0)(out))
    }
    fn is_sync(&self) -> bool {
        true
    }
}

struct FnError<F>(F);
impl<F, R> ErrorHook for FnError<F>
where
    F: Fn(&mut ErrorCall<'_>) -> R + Send + Sync + 'static,
    R: IntoHookResult<Recovery>,
{
    fn error<'a>(&'a self, err: &'a mut ErrorCall<'_>) -> HookStep<'a, Recovery> {
        HookStep::ready((self.0)(err))
    }
    fn is_sync(&self) -> bool {
        true
    }
}

// ---- the hook ---------------------------------------------------------------------

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

// ---- the per-call scope -------------------------------------------------------------

/// Who a call is made for: agent, task and session labels (hooks read them; records
/// carry them), the agent's own hooks, and record sinks of its own (an agent collects
/// the records of one run this way). Pass one to
/// [`Toolbox::call_in`](crate::Toolbox::call_in).
///
/// ```
/// use toolkit::hook::Scope;
/// let scope = Scope::new().with_agent("researcher").with_session("s-42");
/// assert_eq!(scope.agent(), Some("researcher"));
/// ```
#[derive(Clone, Default, Debug)]
pub struct Scope {
    pub(crate) agent: Option<Arc<str>>,
    pub(crate) task: Option<Arc<str>>,
    pub(crate) session: Option<Arc<str>>,
    pub(crate) hooks: Hooks,
    pub(crate) sinks: ScopeSinks,
}

/// The record sinks of a [`Scope`].
#[derive(Clone, Default)]
pub(crate) struct ScopeSinks(pub(crate) Vec<Arc<dyn crate::RecordSink>>);

impl fmt::Debug for ScopeSinks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} sink(s)", self.0.len())
    }
}

impl Scope {
    /// No labels, no hooks, no sinks.
    pub const fn new() -> Self {
        Scope { agent: None, task: None, session: None, hooks: Hooks::new(), sinks: ScopeSinks(Vec::new()) }
    }

    /// Also delivers the [`CallRecord`](crate::CallRecord) of every call made in this
    /// scope to `sink`, after the toolbox's own sinks.
    pub fn with_sink(mut self, sink: impl crate::RecordSink) -> Self {
        self.sinks.0.push(Arc::new(sink));
        self
    }

    /// Sets the agent label.
    pub fn with_agent(mut self, agent: impl Into<Arc<str>>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// Sets the task label.
    pub fn with_task(mut self, task: impl Into<Arc<str>>) -> Self {
        self.task = Some(task.into());
        self
    }

    /// Sets the session label.
    pub fn with_session(mut self, session: impl Into<Arc<str>>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// Sets the scope's (agent's) hooks; they run after global and toolbox hooks of the
    /// same priority.
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// The scope's hooks, to add or remove some.
    pub fn hooks_mut(&mut self) -> &mut Hooks {
        &mut self.hooks
    }

    /// The agent label.
    pub fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// The task label.
    pub fn task(&self) -> Option<&str> {
        self.task.as_deref()
    }

    /// The session label.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }
}

pub(crate) static NO_SCOPE: Scope = Scope::new();

// ---- per-call state -----------------------------------------------------------------

/// A typed map that lives for one call and is shared by that call's before, after and
/// error hooks (and its retries): a before hook stores a start time or a cache key, the
/// after hook of the *same* call reads it. Concurrent calls never see each other's.
///
/// ```
/// let mut ext = toolkit::hook::Extensions::default();
/// ext.insert(42_u32);
/// assert_eq!(ext.get::<u32>(), Some(&42));
/// ```
#[derive(Default)]
pub struct Extensions {
    map: Option<HashMap<TypeId, Box<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions").field("len", &self.map.as_ref().map_or(0, |m| m.len())).finish()
    }
}

impl Extensions {
    /// Stores a value, returning the previous one of its type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        self.map
            .get_or_insert_with(Default::default)
            .insert(TypeId::of::<T>(), Box::new(value))
            .and_then(|old| old.downcast().ok().map(|b| *b))
    }

    /// The value of type `T`.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map.as_ref()?.get(&TypeId::of::<T>())?.downcast_ref()
    }

    /// The value of type `T`, mutably.
    pub fn get_mut<T: Send + Sync + 'static>(&mut self) -> Option<&mut T> {
        self.map.as_mut()?.get_mut(&TypeId::of::<T>())?.downcast_mut()
    }

    /// Removes and returns the value of type `T`.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> Option<T> {
        self.map.as_mut()?.remove(&TypeId::of::<T>()).and_then(|b| b.downcast().ok().map(|b| *b))
    }
}

/// The arguments of a call as hooks see them: the tool's typed struct, or a JSON object,
/// converted on demand so that both views stay consistent. A conversion that fails
/// (typed arguments that cannot be encoded, or JSON a hook wrote that no longer fits the
/// tool) is kept for [`take_error`](ArgsSlot::take_error) and ends the call.
pub(crate) trait ArgsSlot: Send {
    /// The JSON view (an empty scratch object if the typed arguments cannot be encoded).
    /// `raw` is the model's text, parsed again if the tool already took the struct.
    fn json(&mut self, raw: &str) -> &mut Map<String, Value>;
    /// The JSON view for reading only (the typed struct stays valid beside it).
    fn json_ref(&mut self, raw: &str) -> &Map<String, Value>;
    /// The typed view, if the tool has one.
    fn typed(&mut self) -> Option<&mut dyn Any>;
    /// An error a conversion ran into.
    fn take_error(&mut self) -> Option<ToolError>;
    /// The arguments as JSON text.
    fn to_json_string(&mut self, raw: &str) -> String;
}

/// What every hook context knows about its call.
#[derive(Debug)]
pub struct CallInfo<'a> {
    pub(crate) call_id: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) raw: &'a str,
    pub(crate) spec: Option<&'a ToolSpec>,
    pub(crate) scope: &'a Scope,
    pub(crate) state: &'a State,
    pub(crate) attempt: u32,
}

impl<'a> CallInfo<'a> {
    /// The call's id (`tool_call_id`).
    pub fn call_id(&self) -> &'a str {
        self.call_id
    }

    /// The tool name the model used.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// The tool's spec (`None` when the model named a tool that does not exist).
    pub fn spec(&self) -> Option<&'a ToolSpec> {
        self.spec
    }

    /// The agent label of the call's [`Scope`].
    pub fn agent(&self) -> Option<&'a str> {
        self.scope.agent.as_deref()
    }

    /// The task label.
    pub fn task(&self) -> Option<&'a str> {
        self.scope.task.as_deref()
    }

    /// The session label.
    pub fn session(&self) -> Option<&'a str> {
        self.scope.session.as_deref()
    }

    /// 1 for the first run, 2 for the first retry, and so on.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The toolbox's shared state.
    pub fn state(&self) -> &'a State {
        self.state
    }
}

/// What every hook context shares: the call's facts (through `Deref` to [`CallInfo`])
/// and its extension map.
macro_rules! context_common {
    ($context:ident) => {
        impl<'a> $context<'a> {
            /// The call's extension map.
            pub fn extensions(&self) -> &Extensions {
                self.ext
            }

            /// The call's extension map, mutably.
            pub fn extensions_mut(&mut self) -> &mut Extensions {
                self.ext
            }
        }

        impl<'a> std::ops::Deref for $context<'a> {
            type Target = CallInfo<'a>;
            fn deref(&self) -> &CallInfo<'a> {
                self.info
            }
        }
    };
}

/// What a before hook sees: the call, its arguments (JSON or typed view), and the
/// call's [`Extensions`].
pub struct BeforeCall<'a> {
    pub(crate) info: &'a CallInfo<'a>,
    pub(crate) args: &'a mut (dyn ArgsSlot + 'static),
    pub(crate) ext: &'a mut Extensions,
    pub(crate) touched: bool,
}

impl<'a> BeforeCall<'a> {
    /// The arguments as a JSON object (after earlier hooks' rewrites).
    pub fn arguments(&mut self) -> &Map<String, Value> {
        self.args.json_ref(self.info.raw)
    }

    /// The arguments as a JSON object, to rewrite in place. The tool (and typed hooks)
    /// see the rewrite; if it no longer fits the tool's parameters, the call fails with
    /// the same error a model would get.
    pub fn arguments_mut(&mut self) -> &mut Map<String, Value> {
        self.touched = true;
        self.args.json(self.info.raw)
    }

    /// The tool's own argument struct (`Args<read_file>`), to read or rewrite; `None`
    /// when `A` is not this tool's struct (or the tool was defined at run time).
    pub fn typed<A: Any>(&mut self) -> Option<&mut A> {
        self.touched = true;
        self.args.typed()?.downcast_mut()
    }
}

context_common!(BeforeCall);

/// What an after hook sees: the output (raw and model-visible), the arguments the tool
/// ran with, and the call's [`Extensions`].
pub struct AfterCall<'a> {
    pub(crate) info: &'a CallInfo<'a>,
    pub(crate) output: &'a Output,
    pub(crate) text: &'a mut Option<String>,
    pub(crate) args: Option<&'a mut (dyn ArgsSlot + 'static)>,
    pub(crate) ext: &'a mut Extensions,
    pub(crate) cached: bool,
    pub(crate) touched: bool,
}

impl<'a> AfterCall<'a> {
    /// The text the model will see (after earlier hooks' rewrites).
    pub fn text(&self) -> &str {
        self.text.as_deref().unwrap_or(self.output.as_str())
    }

    /// Replaces the text the model will see.
    pub fn set_text(&mut self, text: impl Into<String>) {
        self.touched = true;
        *self.text = Some(text.into());
    }

    /// The text the model will see, to edit in place.
    pub fn text_mut(&mut self) -> &mut String {
        self.touched = true;
        let output = self.output;
        self.text.get_or_insert_with(|| output.as_str().to_owned())
    }

    /// The output as the tool (or a before hook's `Return`) produced it; never altered.
    pub fn output(&self) -> &'a Output {
        self.output
    }

    /// The tool's raw typed return value (`Forecast`, not its JSON), when the tool
    /// returned a typed value of type `T` in this call. `None` for a `Return`ed
    /// (cached) output.
    pub fn raw<T: Any>(&self) -> Option<&'a T> {
        self.output.raw()
    }

    /// Whether the output came from a before hook's `Return` (a cache hit).
    pub fn is_cached(&self) -> bool {
        self.cached
    }

    /// The arguments the tool ran with, as JSON (`None` for a run-time tool's call that
    /// never parsed).
    pub fn arguments(&mut self) -> Option<&Map<String, Value>> {
        Some(self.args.as_mut()?.json_ref(self.info.raw))
    }
}

context_common!(AfterCall);

/// What an error hook sees: the failure, the arguments (when they parsed), and the
/// call's [`Extensions`].
pub struct ErrorCall<'a> {
    pub(crate) info: &'a CallInfo<'a>,
    pub(crate) error: &'a ToolError,
    pub(crate) args: Option<&'a mut (dyn ArgsSlot + 'static)>,
    pub(crate) ext: &'a mut Extensions,
}

impl<'a> ErrorCall<'a> {
    /// The failure (its `message` is what the model would see).
    pub fn error(&self) -> &'a ToolError {
        self.error
    }

    /// The failure's kind.
    pub fn kind(&self) -> ErrorKind {
        self.error.kind
    }

    /// Whether the tool may be run again safely (declared `read_only` or `idempotent`):
    /// only then is [`Recovery::Retry`] honoured.
    pub fn retryable(&self) -> bool {
        self.info.spec.is_some_and(|s| s.annotations.repeatable())
    }

    /// The arguments as JSON, when they parsed.
    pub fn arguments(&mut self) -> Option<&Map<String, Value>> {
        Some(self.args.as_mut()?.json_ref(self.info.raw))
    }
}

context_common!(ErrorCall);

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
