//! The toolbox: one [`Toolbox`] is both the list of tools a model is shown and the
//! table that executes its calls, so the two cannot drift.
//!
//! `table` holds the tools and finds them by name; `observe` is the path of a call
//! someone watches (record sinks, a tracing subscriber that wants its span). Running a
//! call is the business of the private `exec` module.

mod names;
mod observe;
mod search;
mod settle;
mod table;

use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use futures_util::StreamExt;
use serde_json::Value;

pub use crate::limits::Limits;
pub use crate::tool::{DynTool, FnTool};
#[doc(hidden)]
pub use table::ToolEntry;
pub use table::ToolboxError;

use crate::call::{Output, ToolCall, ToolCallRef, ToolResult};
use crate::context::State;
use crate::error::ToolError;
use crate::exec::{self, Env, Guard, HookEnv, Matched, Plan, Started};
use crate::hook::{DuplicateHook, Hook, Hooks, NO_SCOPE, Scope};
use crate::record::{RecordSink, Sinks};
use crate::schema::{Incompatibility, Target};
use crate::spec::ToolSpec;
use crate::tool::Tool;
use settle::{Begun, Ended, Settle, settled};
use table::{Table, unknown_tool};

/// The tools a model may call, and the table that executes its calls.
///
/// Build one with `toolbox![a, b, c]` (names checked at compile time) and add tools
/// with [`add`](Toolbox::add) and [`add_dynamic`](Toolbox::add_dynamic); both kinds run
/// through the same call path and are found by name in constant time.
///
/// [`call`](Toolbox::call) never panics and never returns a Rust error for anything the
/// model did: every failure becomes a [`ToolResult`] whose content the model can act on.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::Truncate;
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![add]
///     .with_hook(Truncate::chars(1000))                       // govern every call
///     .with_sink(|r: &CallRecord| println!("{} {}", r.tool, r.outcome.label()));
/// let schema = tools.export(Target::OpenAiChat);              // send with the request
/// assert_eq!(schema[0]["function"]["name"], "add");
///
/// let ok = tools.call(ToolCall::new("1", "add", r#"{"a": 2, "b": 40}"#)).await;
/// assert_eq!(ok.content, "42");
/// let bad = tools.call(ToolCall::new("2", "add", r#"{"a": 2}"#)).await;
/// assert_eq!(bad.kind(), Some(ErrorKind::MissingField));
/// let both = tools.call_all(vec![ToolCall::new("3", "add", r#"{"a": 1, "b": 1}"#), ToolCall::new("4", "nope", "{}")]).await;
/// assert_eq!((both[0].content.as_str(), both[1].is_error()), ("2", true));
/// # }
/// ```
pub struct Toolbox {
    table: Table,
    limits: Limits,
    state: State,
    sinks: Sinks,
    hooks: Hooks,
    /// Which of this toolbox's hooks act on each tool, found on first use (reset by
    /// every change to the tools or the hooks).
    plans: OnceLock<Box<[Option<Matched>]>>,
    /// Redacts the arguments and results put on call spans, when they are
    /// ([`with_span_content`](Toolbox::with_span_content)).
    span_content: Option<Arc<crate::hooks::Redactor>>,
    /// The deferred tools, indexed for `search_tools` (`None`: there are none).
    catalog: Option<Arc<crate::search::Catalog>>,
    /// Whether `search_tools` is toolkit's (not a tool of the toolbox's own by that name).
    own_search: bool,
    /// What `search_tools` ranks by meaning with, if anything.
    embedder: Option<Arc<dyn crate::search::Embedder>>,
    /// The namespaces, in the order they were added.
    namespaces: Vec<crate::search::Namespace>,
}

impl Default for Toolbox {
    fn default() -> Self {
        Toolbox::new()
    }
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.names())
            .field("hooks", &self.hooks.names())
            .field("limits", &self.limits)
            .finish()
    }
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Self {
        Toolbox {
            table: Table::default(),
            limits: Limits::default(),
            state: State::default(),
            sinks: Sinks::new(),
            hooks: Hooks::new(),
            plans: OnceLock::new(),
            span_content: None,
            catalog: None,
            own_search: false,
            embedder: None,
            namespaces: Vec::new(),
        }
    }

    /// The toolbox `toolbox![...]` builds (its names were checked at compile time).
    #[doc(hidden)]
    pub fn from_tools(tools: impl IntoIterator<Item = ToolEntry>) -> Self {
        let mut toolbox = Toolbox::new();
        for entry in tools {
            let retried = entry.retried();
            let deferred = entry.deferred().then(|| entry.name().to_owned());
            if let Err(e) = toolbox.table.push(entry) {
                unreachable!("`toolbox!` checks names at compile time: {e}");
            }
            toolbox.retry(retried);
            toolbox.defer(deferred);
        }
        toolbox
    }

    /// Replaces the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Provides a value to tools that take it as a `#[state]` parameter.
    pub fn with_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Delivers a [`CallRecord`](crate::CallRecord) of every call to `sink`. Without sinks no record is
    /// built, so records cost nothing unless asked for.
    pub fn with_sink(mut self, sink: impl RecordSink) -> Self {
        self.sinks.push(Arc::new(sink));
        self
    }

    /// Puts each call's arguments and result (a successful call's text) on its
    /// `execute_tool` span as `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`
    /// (OpenTelemetry GenAI conventions), redacted by `redactor` first and cut to their
    /// first 4,096 characters (a secret that starts before the cut is replaced whole).
    /// Off by default, as the conventions ask: arguments and results may hold personal
    /// data. Only the span's copy is redacted; hooks, sinks and the model see the call
    /// as it was. Costs nothing while no subscriber wants the span.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::hooks::Redactor;
    ///
    /// /// Look a customer up.
    /// #[tool]
    /// fn lookup(email: String) -> String { format!("found {email}") }
    ///
    /// let tools = toolbox![lookup].with_span_content(Redactor::new());
    /// # drop(tools);
    /// ```
    pub fn with_span_content(mut self, redactor: crate::hooks::Redactor) -> Self {
        self.span_content = Some(Arc::new(redactor));
        self
    }

    /// Adds a hook to this toolbox (it acts on this toolbox's calls only).
    ///
    /// # Panics
    ///
    /// If the toolbox already has a hook of that name: a setup mistake, reported at
    /// once (use [`add_hook`](Toolbox::add_hook) to handle it instead).
    pub fn with_hook(mut self, hook: impl Into<Hook>) -> Self {
        self.hooks = std::mem::take(&mut self.hooks).with(hook);
        self.plans = OnceLock::new();
        self
    }

    /// Adds several hooks (`hooks![a, b, c]`).
    ///
    /// # Panics
    ///
    /// As [`with_hook`](Toolbox::with_hook), on a duplicate name.
    pub fn with_hooks(mut self, hooks: impl IntoIterator<Item = Hook>) -> Self {
        for hook in hooks {
            self = self.with_hook(hook);
        }
        self
    }

    /// Adds a hook to this toolbox; an error if one of that name is already there.
    pub fn add_hook(&mut self, hook: impl Into<Hook>) -> Result<&mut Self, DuplicateHook> {
        self.hooks.add(hook)?;
        self.plans = OnceLock::new();
        Ok(self)
    }

    /// This toolbox's hooks, in the order they run.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// This toolbox's hooks, to add or remove some.
    pub fn hooks_mut(&mut self) -> &mut Hooks {
        self.plans = OnceLock::new();
        &mut self.hooks
    }

    /// The shared state, to add values after construction.
    pub fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    /// Adds a `#[tool]` at run time (prefer `toolbox!`, which checks names at compile
    /// time).
    pub fn add<T: Tool>(&mut self, tool: T) -> Result<&mut Self, ToolboxError> {
        self.push(ToolEntry::of(tool))
    }

    /// Adds a tool defined at run time.
    pub fn add_dynamic(&mut self, tool: impl DynTool) -> Result<&mut Self, ToolboxError> {
        self.push(ToolEntry::dynamic(tool))
    }

    fn push(&mut self, entry: ToolEntry) -> Result<&mut Self, ToolboxError> {
        let retried = entry.retried();
        let deferred = entry.deferred().then(|| entry.name().to_owned());
        self.table.push(entry)?;
        self.retry(retried);
        self.defer(deferred);
        self.plans = OnceLock::new();
        Ok(self)
    }

    /// A tool that declares a retry policy is retried by the toolbox's `retries` hook
    /// (added with the first such tool; each one joins its list of tools).
    fn retry(&mut self, tool: Option<std::borrow::Cow<'static, str>>) {
        let Some(tool) = tool else { return };
        if let Some(hook) = self.hooks.get_mut(crate::hooks::DECLARED_RETRY) {
            match &mut hook.filter {
                crate::hook::Filter::Tools(tools) => tools.push(tool),
                _ => tracing::warn!(
                    tool = %tool,
                    "a hook named `retries` that is not the toolbox's own is here: the tool's declared retries are not applied; rename that hook"
                ),
            }
            return;
        }
        let hook = crate::hook::Hook::from(crate::hooks::Retry::declared()).for_tools([tool]);
        if self.hooks.add(hook).is_err() {
            unreachable!("no hook of that name is here");
        }
    }

    /// Every tool's spec, in the order the tools were added (`toolbox!`'s first).
    pub fn specs(&self) -> Vec<&ToolSpec> {
        self.table.specs().collect()
    }

    /// The spec of the tool with this name.
    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.table.spec(name)
    }

    /// Every tool's name, in the order of [`specs`](Toolbox::specs).
    pub fn names(&self) -> Vec<&str> {
        self.table.entries().iter().map(ToolEntry::name).collect()
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.table.entries().len()
    }

    /// Whether the toolbox has no tools.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Executes one call. Never panics; always returns exactly one result for the call's
    /// id. Tools that declare a timeout, and blocking tools, need a Tokio runtime.
    ///
    /// Global hooks and this toolbox's hooks act on it; use [`call_in`](Toolbox::call_in)
    /// to add an agent's hooks and labels.
    // The same as `call_in(call, &NO_SCOPE)`, written out: in its own future the scope
    // is a constant, which saves about 20 instructions per call. Not an `async fn`: its
    // future would hold the `ToolCall` twice (the argument and the local it is moved to).
    #[allow(clippy::manual_async_fn)]
    pub fn call(&self, call: ToolCall) -> impl Future<Output = ToolResult> + Send + '_ {
        async move {
            let ended = settled!(self.begin(call.as_ref(), &NO_SCOPE));
            self.finish(call, &NO_SCOPE, ended)
        }
    }

    /// Executes one call given as borrowed strings, copying none of them: the tool's
    /// [`Output`] (its text, and any [parts](crate::parts) besides), or the error (the
    /// model reads its [`message`](ToolError::message)). Hooks and records work as for
    /// [`call`](Toolbox::call).
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two integers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let tools = toolbox![add];
    /// let text = tools.call_ref(ToolCallRef::new("call_1", "add", r#"{"a": 2, "b": 40}"#)).await;
    /// assert_eq!(text.unwrap(), "42");
    /// # }
    /// ```
    pub fn call_ref<'a>(
        &'a self,
        call: ToolCallRef<'a>,
    ) -> impl Future<Output = Result<Output, ToolError>> + Send + 'a {
        self.run(call, &NO_SCOPE)
    }

    /// Executes one call for a [`Scope`]: its hooks act after the global and toolbox
    /// hooks of the same priority, and its labels (agent, task, session) reach hooks and
    /// records.
    // Not an `async fn`, as `call`: its future holds the `ToolCall` once (192 bytes, where
    // the `async fn` with the same body measured 304).
    #[allow(clippy::manual_async_fn)]
    pub fn call_in<'a>(&'a self, call: ToolCall, scope: &'a Scope) -> impl Future<Output = ToolResult> + Send + 'a {
        async move {
            let ended = settled!(self.begin(call.as_ref(), scope));
            self.finish(call, scope, ended)
        }
    }

    /// [`call_ref`](Toolbox::call_ref) for a [`Scope`].
    pub fn call_ref_in<'a>(
        &'a self,
        call: ToolCallRef<'a>,
        scope: &'a Scope,
    ) -> impl Future<Output = Result<Output, ToolError>> + Send + 'a {
        self.run(call, scope)
    }

    /// A call on borrowed strings: [`begin`](Toolbox::begin) does what needs no waiting,
    /// what is left (a [`Settle`]) is awaited, and the record (if a sink wants one) is
    /// made from copies of the strings.
    #[allow(clippy::manual_async_fn)]
    fn run<'a>(
        &'a self,
        call: ToolCallRef<'a>,
        scope: &'a Scope,
    ) -> impl Future<Output = Result<Output, ToolError>> + Send + 'a {
        async move {
            match settled!(self.begin(call, scope)) {
                Ended::Plain(outcome) => outcome,
                Ended::Recorded(finished, clock) => {
                    let texts = [call.id.to_owned(), call.name.to_owned(), call.arguments.to_owned()];
                    let result = self.conclude(texts, scope, finished, clock);
                    match result.error {
                        None => Ok(Output::text(result.content).with_parts(result.parts)),
                        Some(error) => Err(*error),
                    }
                }
            }
        }
    }

    /// The result of an owned call: its strings move into its record, if a sink wants
    /// one, and back out into the result.
    #[inline]
    fn finish(&self, call: ToolCall, scope: &Scope, ended: Ended) -> ToolResult {
        match ended {
            Ended::Plain(outcome) => plain_result(call, outcome),
            Ended::Recorded(finished, clock) => {
                let ToolCall { id, name, arguments, .. } = call;
                self.conclude([id, name, arguments], scope, finished, clock)
            }
        }
    }

    /// The synchronous start of a call. A call nobody observes (no record sink, no
    /// tracing subscriber that wants its span) and no global hook governs starts here,
    /// and a sync tool whose hooks are all sync also ends here; the others go the
    /// observed way, in a future of their own.
    #[inline]
    fn begin<'a>(&'a self, call: ToolCallRef<'a>, scope: &'a Scope) -> Begun<'a> {
        // Global hooks are one atomic load away when there are none; the span is one
        // check of the callsite's interest when no subscriber wants it.
        let global = crate::hook::global_snapshot();
        let span = observe::call_span(call);
        if global.is_some() {
            return Begun::Waiting(Settle::Observed(Box::pin(self.observed(call, scope, global, span))));
        }
        if !span.is_disabled() {
            return self.begin_observed(call, scope, span);
        }
        if !self.sinks.is_empty() || !scope.sinks.is_empty() {
            return self.begin_recorded(call, scope, span);
        }
        let hooks = HookEnv::of(self.local_hooks(scope), scope, false);
        match self.start(call, self.env(hooks, scope)) {
            Started::Done(outcome) => Begun::Done(Ended::Plain(outcome)),
            Started::Running(running, spec) => Begun::Waiting(Settle::Running(Guard::new(running, spec, &self.limits))),
            Started::Hooked(hooked) => Begun::Waiting(Settle::Hooked(hooked)),
            Started::Finished(finished) => Begun::Done(Ended::Plain(finished.result)),
        }
    }

    /// The hook lists of a call no global hook acts on: this toolbox's and the scope's.
    #[inline]
    fn local_hooks<'a>(&'a self, scope: &'a Scope) -> [&'a [Hook]; 3] {
        [&[], self.hooks.as_slice(), scope.hooks.as_slice()]
    }

    #[inline]
    fn env<'a>(&'a self, hooks: Option<HookEnv<'a>>, scope: &'a Scope) -> Env<'a> {
        Env {
            limits: &self.limits,
            state: &self.state,
            run: scope.run.as_deref(),
            progress: scope.progress.as_ref(),
            hooks,
        }
    }

    fn start<'a>(&'a self, call: ToolCallRef<'a>, env: Env<'a>) -> Started<'a> {
        match self.table.find(call.name) {
            Some(i) => {
                let tool = self.table.tool(i);
                let plan = env.hooks.and_then(|hooks| Some((self.plan(i, call.name, hooks)?, hooks)));
                exec::start(tool, plan, call, env)
            }
            None => exec::start_unknown(unknown_tool(call.name, &self.table), call, env),
        }
    }

    /// The hooks that act on the `i`th tool: when only this toolbox's hooks are in play,
    /// what was found for that tool before.
    fn plan<'a>(&'a self, i: usize, name: &str, hooks: HookEnv<'a>) -> Option<Plan<'a>> {
        if let [[], list, []] = hooks.lists {
            let plans = self.plans.get_or_init(|| {
                self.table.entries().iter().map(|e| Plan::matching(self.hooks.as_slice(), e.name())).collect()
            });
            if let Some(Some(matched)) = plans.get(i) {
                return Plan::matched(list, *matched);
            }
        }
        Plan::new(hooks.lists, name)
    }

    /// Executes calls concurrently (at most [`Limits::concurrency`] at once) and returns
    /// their results in call order: exactly one per call, whatever happened to each.
    pub async fn call_all(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        let limit = self.limits.concurrency.max(1);
        futures_util::stream::iter(calls.into_iter().map(|c| self.call(c))).buffered(limit).collect().await
    }

    /// [`call_all`](Toolbox::call_all) for a [`Scope`].
    pub async fn call_all_in(&self, calls: Vec<ToolCall>, scope: &Scope) -> Vec<ToolResult> {
        let limit = self.limits.concurrency.max(1);
        futures_util::stream::iter(calls.into_iter().map(|c| self.call_in(c, scope))).buffered(limit).collect().await
    }

    /// Every tool's spec in a provider's shape, as a JSON array (the `tools` field of a
    /// request).
    pub fn export(&self, target: Target) -> Value {
        Value::Array(self.specs().into_iter().map(|s| s.export(target)).collect())
    }

    /// What `target` cannot take of these tools (tool, parameter path, rule); `Ok` when
    /// it takes everything. Put it in a test to catch a provider's 400 at build time.
    /// What is worth knowing but no fault is in [`notes`](Toolbox::notes).
    pub fn validate(&self, target: Target) -> Result<(), Vec<Incompatibility>> {
        let problems: Vec<_> = self.specs().into_iter().flat_map(|s| crate::schema::check(s, target)).collect();
        if problems.is_empty() { Ok(()) } else { Err(problems) }
    }

    /// What is worth knowing about these tools on `target` but is no fault (an MCP tool
    /// with a scalar output publishes no `outputSchema`); see
    /// [`schema::notes`](crate::schema::notes).
    pub fn notes(&self, target: Target) -> Vec<Incompatibility> {
        self.specs().into_iter().flat_map(|s| crate::schema::notes(s, target)).collect()
    }

    /// A Markdown page documenting every tool.
    pub fn markdown(&self, title: &str) -> String {
        crate::schema::markdown(title, self.specs())
    }

    /// Writes `TOOLS.md` (the [`markdown`](Toolbox::markdown) page) and the JSON of
    /// every export target (`tools.<target>.json`) into `dir`; see
    /// [`schema::write_docs`](crate::schema::write_docs).
    pub fn write_docs(
        &self,
        dir: impl AsRef<std::path::Path>,
        title: &str,
    ) -> std::io::Result<Vec<std::path::PathBuf>> {
        crate::schema::write_docs(dir, title, self.specs())
    }
}

/// The result of an owned call that was not recorded.
#[inline]
fn plain_result(call: ToolCall, outcome: Result<Output, ToolError>) -> ToolResult {
    let ToolCall { id, name, .. } = call;
    match outcome {
        Ok(output) => {
            let (content, parts) = output.into_parts();
            ToolResult { call_id: id, name, content, parts, error: None }
        }
        Err(error) => ToolResult::failed(id, name, error),
    }
}
