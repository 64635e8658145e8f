//! The dispatch table: one [`Toolbox`] is both the list of tools a model is shown and
//! the table that executes its calls, so the two cannot drift.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tracing::Instrument;

use crate::call::{
    CallContext, CallRecord, ErrorKind, Outcome, Output, RecordSink, State, ToolCall, ToolError, ToolResult,
};
use crate::hook::{DuplicateHook, Hook, Hooks, NO_SCOPE, Scope};
#[doc(hidden)]
pub use crate::pipeline::Finished;
use crate::pipeline::{self, Codec, HookEnv, JsonArgs, Plan, Report, Steps, TypedArgs};
use crate::schema::{Incompatibility, Target};
use crate::tool::{Tool, ToolSpec, Validate};

/// Limits a toolbox applies to every call.
///
/// ```
/// use std::time::Duration;
/// let limits = toolkit::Limits { concurrency: 8, default_timeout: Some(Duration::from_secs(30)), ..Default::default() };
/// let tools = toolkit::Toolbox::new().with_limits(limits);
/// assert_eq!(tools.limits().concurrency, 8);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest arguments string accepted, in bytes (default 1 MiB).
    pub max_argument_bytes: usize,
    /// How many calls of one [`Toolbox::call_all`] run at once (default 16).
    pub concurrency: usize,
    /// The timeout of tools that declare none (default: none).
    pub default_timeout: Option<Duration>,
    /// How many times an error hook's [`Recovery::Retry`](crate::hook::Recovery::Retry)
    /// may re-run a call (default 2; only tools declared `read_only` or `idempotent` are
    /// retried).
    pub max_retries: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_argument_bytes: 1 << 20, concurrency: 16, default_timeout: None, max_retries: 2 }
    }
}

/// A tool defined at run time (for example, imported from an MCP server). It receives
/// arguments already checked to be a JSON object within the size limit; checking them
/// against its schema is its own business.
///
/// ```
/// use toolkit::{DynTool, FnTool, Output, ToolSpec, Toolbox, ToolCall};
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let spec = ToolSpec::new("shout", "Upper-case the text.", json!({
///     "type": "object", "properties": {"text": {"type": "string"}},
///     "required": ["text"], "additionalProperties": false}));
/// let shout = FnTool::new(spec, |args| async move {
///     let text = args["text"].as_str().unwrap_or_default().to_uppercase();
///     Ok(Output::text(text))
/// });
/// let mut tools = Toolbox::new();
/// tools.add_dynamic(shout).unwrap();
/// let r = tools.call(ToolCall::new("1", "shout", r#"{"text":"hi"}"#)).await;
/// assert_eq!(r.content, "HI");
/// # }
/// ```
pub trait DynTool: Send + Sync + 'static {
    /// The tool's spec.
    fn spec(&self) -> &ToolSpec;
    /// Runs the tool.
    fn call<'a>(&'a self, args: Map<String, Value>, cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>>;
}

/// A [`DynTool`] made of a spec and an async closure.
pub struct FnTool<F> {
    spec: ToolSpec,
    f: F,
}

impl<F> FnTool<F> {
    /// A tool that runs `f` on the argument object.
    pub fn new<Fut>(spec: ToolSpec, f: F) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Output, ToolError>> + Send + 'static,
    {
        FnTool { spec, f }
    }
}

impl<F, Fut> DynTool for FnTool<F>
where
    F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Output, ToolError>> + Send + 'static,
{
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(&'a self, args: Map<String, Value>, _cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin((self.f)(args))
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
}

/// What a call needs from its toolbox besides the tool itself.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub(crate) limits: &'a Limits,
    pub(crate) state: &'a State,
    /// The hooks this call may meet (`None`: there are none anywhere).
    pub(crate) hooks: Option<HookEnv<'a>>,
}

/// How a call was started: a sync tool has already run; anything else runs in the one
/// boxed future of the call.
#[doc(hidden)]
pub enum Started<'a> {
    /// The outcome is known (a sync tool ran, or the arguments were refused).
    Done(Result<Output, ToolError>),
    /// The tool is running.
    Running(BoxFuture<'a, Result<Output, ToolError>>),
    /// The call runs through its hooks.
    Hooked(BoxFuture<'a, Finished>),
    /// The call ran through its hooks already (a sync tool, sync hooks: no future).
    Finished(Finished),
}

/// A table of tools known at compile time; implemented by `toolbox!`.
#[doc(hidden)]
pub trait Dispatch: Send + Sync + 'static {
    /// The specs, in declaration order.
    fn specs(&self) -> Vec<&'static ToolSpec>;
    /// Starts the call if a tool of this table has its name. A running future borrows
    /// the call, so it stays small and the caller keeps the id and name for the result.
    fn dispatch<'a>(&'a self, call: &'a ToolCall, env: Env<'a>) -> Option<Started<'a>>;
}

/// A table with no tools (the static part of [`Toolbox::new`]).
struct NoTools;

impl Dispatch for NoTools {
    fn specs(&self) -> Vec<&'static ToolSpec> {
        Vec::new()
    }
    fn dispatch<'a>(&'a self, _call: &'a ToolCall, _env: Env<'a>) -> Option<Started<'a>> {
        None
    }
}

/// A tool added at run time, static or dynamic, behind one interface.
trait Erased: Send + Sync + 'static {
    fn spec(&self) -> &ToolSpec;
    fn run<'a>(&'a self, call: &'a ToolCall, env: Env<'a>) -> Started<'a>;
}

struct StaticTool<T>(T);

impl<T: Tool> Erased for StaticTool<T> {
    fn spec(&self) -> &ToolSpec {
        T::spec()
    }
    fn run<'a>(&'a self, call: &'a ToolCall, env: Env<'a>) -> Started<'a> {
        run(&self.0, call, env)
    }
}

struct Dynamic<D>(D);

impl<D: DynTool> Erased for Dynamic<D> {
    fn spec(&self) -> &ToolSpec {
        self.0.spec()
    }
    fn run<'a>(&'a self, call: &'a ToolCall, env: Env<'a>) -> Started<'a> {
        if let Some(hooks) = env.hooks
            && let Some(plan) = Plan::new(hooks.lists, &self.0.spec().name)
        {
            return pipeline::start(DynamicSteps { tool: &self.0, call, env }, false, plan, hooks, call, env);
        }
        Started::Running(Box::pin(async move {
            let spec = self.0.spec();
            let args = parse_object(&call.arguments, spec, env.limits)?;
            let cx = CallContext::new(&call.id, spec, env.state);
            Guard::new(self.0.call(args, cx), spec, env.limits).await
        }))
    }
}

/// The tools a model may call, and the table that executes its calls.
///
/// Build one with `toolbox![a, b, c]` (a compile-time dispatch table) and add tools
/// defined at run time with [`add_dynamic`](Toolbox::add_dynamic).
///
/// [`call`](Toolbox::call) never panics and never returns a Rust error for anything the
/// model did: every failure becomes a [`ToolResult`] whose content the model can act on.
pub struct Toolbox {
    table: Box<dyn Dispatch>,
    extra: Vec<Arc<dyn Erased>>,
    limits: Limits,
    state: State,
    sinks: Vec<Arc<dyn RecordSink>>,
    hooks: Hooks,
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
            table: Box::new(NoTools),
            extra: Vec::new(),
            limits: Limits::default(),
            state: State::default(),
            sinks: Vec::new(),
            hooks: Hooks::new(),
        }
    }

    #[doc(hidden)]
    pub fn from_table(table: impl Dispatch) -> Self {
        Toolbox { table: Box::new(table), ..Toolbox::new() }
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

    /// Delivers a [`CallRecord`] of every call to `sink`. Without sinks no record is
    /// built, so records cost nothing unless asked for.
    pub fn with_sink(mut self, sink: impl RecordSink) -> Self {
        self.sinks.push(Arc::new(sink));
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
        Ok(self)
    }

    /// This toolbox's hooks, in the order they run.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// This toolbox's hooks, to add or remove some.
    pub fn hooks_mut(&mut self) -> &mut Hooks {
        &mut self.hooks
    }

    /// The shared state, to add values after construction.
    pub fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    /// Adds a `#[tool]` at run time (prefer `toolbox!`, which checks names at compile
    /// time).
    pub fn add<T: Tool>(&mut self, tool: T) -> Result<&mut Self, ToolboxError> {
        self.push(Arc::new(StaticTool(tool)))
    }

    /// Adds a tool defined at run time.
    pub fn add_dynamic(&mut self, tool: impl DynTool) -> Result<&mut Self, ToolboxError> {
        self.push(Arc::new(Dynamic(tool)))
    }

    fn push(&mut self, tool: Arc<dyn Erased>) -> Result<&mut Self, ToolboxError> {
        let name = &tool.spec().name;
        if !crate::schema::is_valid_name(name) {
            return Err(ToolboxError::InvalidName(name.clone()));
        }
        if self.spec(name).is_some() {
            return Err(ToolboxError::DuplicateName(name.clone()));
        }
        self.extra.push(tool);
        Ok(self)
    }

    /// Every tool's spec: compile-time tools in declaration order, then run-time ones in
    /// the order they were added.
    pub fn specs(&self) -> Vec<&ToolSpec> {
        let mut specs: Vec<&ToolSpec> = self.table.specs();
        specs.extend(self.extra.iter().map(|t| t.spec()));
        specs
    }

    /// The spec of the tool with this name.
    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.specs().into_iter().find(|s| s.name == name)
    }

    /// Every tool's name, in the order of [`specs`](Toolbox::specs).
    pub fn names(&self) -> Vec<&str> {
        self.specs().into_iter().map(|s| s.name.as_str()).collect()
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.table.specs().len() + self.extra.len()
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
    // Not an `async fn`: its future would hold the `ToolCall` twice (the argument and
    // the local it is moved to), 176 bytes instead of 104, copied on every move.
    #[allow(clippy::manual_async_fn)]
    pub fn call(&self, call: ToolCall) -> impl Future<Output = ToolResult> + Send + '_ {
        async move {
            // Records and spans live in their own future, boxed only when someone
            // observes calls: the plain path keeps a small future that is cheap to move.
            // A span is due once any tracing subscriber is installed (one relaxed load);
            // global hooks are one atomic load away when there are none. Hooks are only
            // handed on here: each tool's start makes the call's plan (see `run`).
            let global = crate::hook::global_snapshot();
            if !self.sinks.is_empty() || tracing::dispatcher::has_been_set() {
                return Box::pin(self.call_full(call, &NO_SCOPE, global)).await;
            }
            let hooks = (global.is_some() || !self.hooks.is_empty()).then(|| HookEnv {
                lists: [global.as_deref().map_or(&[], Hooks::as_slice), self.hooks.as_slice(), &[]],
                scope: &NO_SCOPE,
                wants_record: false,
            });
            let outcome = match self.start(&call, self.env(hooks)) {
                Started::Done(outcome) => outcome.map(Output::into_string),
                Started::Running(running) => running.await.map(Output::into_string),
                Started::Hooked(hooked) => hooked.await.result,
                Started::Finished(finished) => finished.result,
            };
            let ToolCall { id, name, .. } = call;
            finish(id, name, outcome)
        }
    }

    /// Executes one call for a [`Scope`]: its hooks act after the global and toolbox
    /// hooks of the same priority, and its labels (agent, task, session) reach hooks and
    /// records.
    pub async fn call_in(&self, call: ToolCall, scope: &Scope) -> ToolResult {
        self.call_full(call, scope, crate::hook::global_snapshot()).await
    }

    /// [`call`](Toolbox::call) with hooks, an `execute_tool` span, and a
    /// [`CallRecord`] for the sinks.
    async fn call_full(&self, call: ToolCall, scope: &Scope, global: Option<Arc<Hooks>>) -> ToolResult {
        let observed = !self.sinks.is_empty() || !scope.sinks.0.is_empty();
        let clock = observed.then(|| (SystemTime::now(), Instant::now()));
        let lists: [&[Hook]; 3] =
            [global.as_deref().map_or(&[], Hooks::as_slice), self.hooks.as_slice(), scope.hooks.as_slice()];
        let hooks = HookEnv { lists, scope, wants_record: observed };
        let env = self.env(Some(hooks));
        let span = call_span(&call);
        // A caller that stops waiting drops this future mid-call: the guard still
        // delivers the call's one record, as `cancelled`.
        let guard = clock.map(|clock| Unfinished { toolbox: self, scope, call: &call, clock });
        let finished = match span.in_scope(|| self.start(&call, env)) {
            Started::Done(outcome) => Finished::plain(outcome),
            Started::Running(running) => {
                let started = Instant::now();
                let outcome = running.instrument(span.clone()).await;
                let mut finished = Finished::plain(outcome);
                if clock.is_some() {
                    let report = Report { attempts: 1, tool_duration: Some(started.elapsed()), ..Report::default() };
                    finished.report = Some(Box::new(report));
                }
                finished
            }
            Started::Hooked(hooked) => hooked.instrument(span.clone()).await,
            Started::Finished(finished) => finished,
        };
        std::mem::forget(guard); // finished: the record below is the call's one
        span.record("toolkit.outcome", finished.outcome.label());
        if let Err(e) = &finished.result {
            span.record("error.type", e.kind.as_str());
        }
        let ToolCall { id, name, arguments } = call;
        let Finished { result, outcome, report } = finished;
        let result = finish(id, name, result);
        let Some((started_at, started)) = clock else { return result };
        let Report { acted, rewritten_arguments, attempts, tool_duration } =
            report.map_or_else(|| Report { attempts: 1, ..Report::default() }, |r| *r);
        self.deliver(
            scope,
            &Arc::new(CallRecord {
                call_id: result.call_id.clone(),
                tool: result.name.clone(),
                arguments,
                rewritten_arguments,
                outcome,
                content: result.content.clone(),
                detail: result.error.as_ref().and_then(|e| e.detail.clone()),
                hooks: acted,
                agent: scope.agent.clone(),
                task: scope.task.clone(),
                session: scope.session.clone(),
                attempts,
                started_at,
                duration: started.elapsed(),
                tool_duration,
            }),
        );
        result
    }

    #[inline]
    fn env<'a>(&'a self, hooks: Option<HookEnv<'a>>) -> Env<'a> {
        Env { limits: &self.limits, state: &self.state, hooks }
    }

    /// Hands a record to every sink, the toolbox's then the scope's; a sink that panics
    /// is reported and skipped.
    fn deliver(&self, scope: &Scope, record: &Arc<CallRecord>) {
        for sink in self.sinks.iter().chain(&scope.sinks.0) {
            if catch_unwind(AssertUnwindSafe(|| sink.record_shared(record))).is_err() {
                tracing::error!(gen_ai.tool.call.id = %record.call_id, "a record sink panicked; the call's result is unaffected");
            }
        }
    }

    fn start<'a>(&'a self, call: &'a ToolCall, env: Env<'a>) -> Started<'a> {
        match self.table.dispatch(call, env) {
            Some(started) => started,
            None => match self.extra.iter().find(|t| t.spec().name == call.name) {
                Some(tool) => tool.run(call, env),
                None => {
                    let error = unknown_tool(&call.name, &self.names());
                    match env.hooks.and_then(|h| Some((Plan::new(h.lists, &call.name)?, h))) {
                        Some((plan, hooks)) => pipeline::start(NoSuchTool(error), true, plan, hooks, call, env),
                        None => Started::Done(Err(error)),
                    }
                }
            },
        }
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
    pub fn validate(&self, target: Target) -> Result<(), Vec<Incompatibility>> {
        let problems: Vec<_> = self.specs().into_iter().flat_map(|s| crate::schema::check(s, target)).collect();
        if problems.is_empty() { Ok(()) } else { Err(problems) }
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

/// An observed call that has not ended yet. Dropped before it is forgotten (the
/// caller dropped the call's future), it delivers the call's record as
/// [`Outcome::Cancelled`], so that every call has exactly one record.
struct Unfinished<'a> {
    toolbox: &'a Toolbox,
    scope: &'a Scope,
    call: &'a ToolCall,
    clock: (SystemTime, Instant),
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        let (started_at, started) = self.clock;
        let record = CallRecord {
            call_id: self.call.id.clone(),
            tool: self.call.name.clone(),
            arguments: self.call.arguments.clone(),
            rewritten_arguments: None,
            outcome: Outcome::Cancelled,
            content: String::new(),
            detail: Some("the caller stopped waiting before the call ended".into()),
            hooks: Vec::new(),
            agent: self.scope.agent.clone(),
            task: self.scope.task.clone(),
            session: self.scope.session.clone(),
            attempts: 1,
            started_at,
            duration: started.elapsed(),
            tool_duration: None,
        };
        self.toolbox.deliver(self.scope, &Arc::new(record));
    }
}

/// Starts one call of a compile-time tool. A sync tool is parsed and run at once, under
/// the panic guard, with no future at all; any other tool runs in the one boxed future of
/// the call, which parses its arguments itself (so they are built in place, not moved).
/// Monomorphized per tool; the future only borrows the call.
#[doc(hidden)]
#[inline]
pub fn run<'a, T: Tool>(tool: &'a T, call: &'a ToolCall, env: Env<'a>) -> Started<'a> {
    // The plan is made here, where the tool is known: matched on its own name constant,
    // and a call no hook acts on goes the plain way.
    if let Some(hooks) = env.hooks
        && let Some(plan) = Plan::new(hooks.lists, T::NAME)
    {
        return pipeline::start(StaticSteps { tool, call, env }, T::RUNS_NOW, plan, hooks, call, env);
    }
    if T::RUNS_NOW {
        return Started::Done(run_now(tool, call, env));
    }
    // Allocated first and written in place: `Box::pin(run_async(..))` would build the
    // future on the stack and copy it to the heap.
    let boxed = Box::write(Box::new_uninit(), run_async(tool, call, env));
    Started::Running(Box::into_pin(boxed))
}

#[inline]
fn run_now<T: Tool>(tool: &T, call: &ToolCall, env: Env<'_>) -> Result<Output, ToolError> {
    let spec = T::spec();
    let args = parse_args::<T::Args>(&call.arguments, spec, env.limits)?;
    let cx = CallContext::new(&call.id, spec, env.state);
    match catch_unwind(AssertUnwindSafe(|| tool.invoke_now(args, &cx))) {
        Ok(outcome) => crate::__private::finished(outcome),
        Err(payload) => Err(panicked(&spec.name, payload.as_ref())),
    }
}

async fn run_async<T: Tool>(tool: &T, call: &ToolCall, env: Env<'_>) -> Result<Output, ToolError> {
    let spec = T::spec();
    let args = parse_args::<T::Args>(&call.arguments, spec, env.limits)?;
    let cx = CallContext::new(&call.id, spec, env.state);
    Guard::new(tool.invoke(args, &cx), spec, env.limits).await
}

/// The span every call runs in, named and attributed after the OpenTelemetry GenAI
/// conventions (`execute_tool {gen_ai.tool.name}`; `error.type` is recorded on failure),
/// plus `toolkit.outcome` (`ok`, `blocked`, `cached`, `failed`, `recovered`).
/// With no subscriber interested, this is one check of a cached flag.
#[inline]
fn call_span(call: &ToolCall) -> tracing::Span {
    tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.id,
        gen_ai.tool.type = "function",
        error.type = tracing::field::Empty,
        toolkit.outcome = tracing::field::Empty,
    )
}

// ---- the steps of a hooked call -------------------------------------------------------

/// A compile-time tool's steps: parse into its struct, run it.
struct StaticSteps<'a, T> {
    tool: &'a T,
    call: &'a ToolCall,
    env: Env<'a>,
}

/// The JSON view of a compile-time tool's arguments.
struct ToolCodec<T>(std::marker::PhantomData<T>);

impl<T: Tool> Codec<T::Args> for ToolCodec<T> {
    fn encode(args: &T::Args) -> Result<Map<String, Value>, String> {
        T::encode_args(args)
    }
    fn decode(json: &Map<String, Value>) -> Result<T::Args, ToolError> {
        // Checked as the model's JSON would be, so a hook that rewrites the arguments
        // into something invalid gets the same message (the size limit is the model's
        // only).
        let limits = Limits { max_argument_bytes: usize::MAX, ..Limits::default() };
        parse_args::<T::Args>(&Value::Object(json.clone()).to_string(), T::spec(), &limits)
    }
}

impl<'a, T: Tool> Steps for StaticSteps<'a, T> {
    type Slot = TypedArgs<T::Args, ToolCodec<T>>;

    fn spec(&self) -> Option<&ToolSpec> {
        Some(T::spec())
    }

    fn parse(&self, keep: bool) -> Result<Self::Slot, ToolError> {
        parse_args::<T::Args>(&self.call.arguments, T::spec(), self.env.limits).map(|a| TypedArgs::new(a, keep))
    }

    async fn run<'s>(&'s self, slot: &'s mut Self::Slot, keep_raw: bool) -> Result<Output, ToolError> {
        if T::RUNS_NOW {
            return self.run_now(slot, keep_raw);
        }
        let spec = T::spec();
        let args = slot.take().ok_or_else(not_ready)?;
        let cx = CallContext::new(&self.call.id, spec, self.env.state).keeping_raw(keep_raw);
        Guard::new(self.tool.invoke(args, &cx), spec, self.env.limits).await
    }

    fn run_now(&self, slot: &mut Self::Slot, keep_raw: bool) -> Result<Output, ToolError> {
        let spec = T::spec();
        let args = slot.take().ok_or_else(not_ready)?;
        let cx = CallContext::new(&self.call.id, spec, self.env.state).keeping_raw(keep_raw);
        match catch_unwind(AssertUnwindSafe(|| self.tool.invoke_now(args, &cx))) {
            Ok(outcome) => crate::__private::finished(outcome),
            Err(payload) => Err(panicked(&spec.name, payload.as_ref())),
        }
    }
}

#[cold]
fn not_ready() -> ToolError {
    ToolError::new(ErrorKind::Unavailable, "this tool is not available")
        .with_detail("the arguments were not ready when the tool was to run")
}

/// A run-time tool's steps: parse into a JSON object, run it on a copy (hooks that run
/// after it may still read the arguments).
struct DynamicSteps<'a, D> {
    tool: &'a D,
    call: &'a ToolCall,
    env: Env<'a>,
}

impl<D: DynTool> Steps for DynamicSteps<'_, D> {
    type Slot = JsonArgs;

    fn spec(&self) -> Option<&ToolSpec> {
        Some(self.tool.spec())
    }

    fn parse(&self, _keep: bool) -> Result<JsonArgs, ToolError> {
        parse_object(&self.call.arguments, self.tool.spec(), self.env.limits).map(JsonArgs)
    }

    async fn run<'s>(&'s self, slot: &'s mut JsonArgs, _keep_raw: bool) -> Result<Output, ToolError> {
        let spec = self.tool.spec();
        let cx = CallContext::new(&self.call.id, spec, self.env.state);
        Guard::new(self.tool.call(slot.0.clone(), cx), spec, self.env.limits).await
    }

    fn run_now(&self, _slot: &mut JsonArgs, _keep_raw: bool) -> Result<Output, ToolError> {
        // Not reached: run-time tools always run through `drive`.
        Err(not_ready())
    }
}

/// A call naming no tool: its only step is the error, which error hooks still see.
struct NoSuchTool(ToolError);

impl Steps for NoSuchTool {
    type Slot = JsonArgs;

    fn spec(&self) -> Option<&ToolSpec> {
        None
    }

    fn parse(&self, _keep: bool) -> Result<JsonArgs, ToolError> {
        Err(self.0.clone())
    }

    async fn run<'s>(&'s self, _slot: &'s mut JsonArgs, _keep_raw: bool) -> Result<Output, ToolError> {
        Err(self.0.clone())
    }

    fn run_now(&self, _slot: &mut JsonArgs, _keep_raw: bool) -> Result<Output, ToolError> {
        Err(self.0.clone())
    }
}

/// The call's one result: its id and tool name, and the text or the error.
#[inline]
fn finish(id: String, name: String, outcome: Result<String, ToolError>) -> ToolResult {
    match outcome {
        Ok(content) => ToolResult { call_id: id, name, content, error: None },
        Err(error) => ToolResult::failed(id, name, error),
    }
}

pin_project_lite::pin_project! {
    /// Runs a tool's future so that a panic or an overrun becomes an error result.
    ///
    /// One hand-written future rather than nested async blocks: a tool that finishes on
    /// its first poll never touches the clock or the timer, and the future that is boxed
    /// per call stays small. With a timeout, the deadline counts from the first poll and
    /// the timer is created only if the tool has to wait.
    struct Guard<'s, F> {
        #[pin]
        fut: F,
        spec: &'s ToolSpec,
        limit: Option<Duration>,
        started: Option<tokio::time::Instant>,
        timer: Option<Pin<Box<tokio::time::Sleep>>>,
    }
}

impl<'s, F> Guard<'s, F> {
    #[inline]
    fn new(fut: F, spec: &'s ToolSpec, limits: &Limits) -> Self {
        Guard { fut, spec, limit: spec.timeout.or(limits.default_timeout), started: None, timer: None }
    }
}

impl<F: Future<Output = Result<Output, ToolError>>> Future for Guard<'_, F> {
    type Output = Result<Output, ToolError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let Some(limit) = *this.limit else {
            return match catch_unwind(AssertUnwindSafe(|| this.fut.poll(cx))) {
                Ok(poll) => poll,
                Err(payload) => Poll::Ready(Err(panicked(&this.spec.name, payload.as_ref()))),
            };
        };
        // Everything that touches the timer runs under the guard too: without a Tokio
        // runtime (or with its timer disabled) creating one panics, and that must end as
        // a result, not a crash.
        let (started, timer, fut, spec) = (this.started, this.timer, this.fut, *this.spec);
        let polled = catch_unwind(AssertUnwindSafe(|| {
            let start = *started.get_or_insert_with(tokio::time::Instant::now);
            if let Poll::Ready(out) = fut.poll(cx) {
                return Poll::Ready(out);
            }
            let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(start + limit)));
            match timer.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(timed_out(spec, limit))),
                Poll::Pending => Poll::Pending,
            }
        }));
        match polled {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(panicked(&spec.name, payload.as_ref()))),
        }
    }
}

pub(crate) fn timed_out(spec: &ToolSpec, limit: Duration) -> ToolError {
    ToolError::new(
        ErrorKind::TimedOut,
        format!(
            "`{}` did not finish within {:?} and was stopped; try again later, or ask for less at once",
            spec.name, limit
        ),
    )
}

pub(crate) fn panicked(tool: &str, payload: &(dyn std::any::Any + Send)) -> ToolError {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".to_string());
    ToolError::new(
        ErrorKind::Panicked,
        format!("`{tool}` failed with an internal error (not caused by your arguments); do not retry the same call"),
    )
    .with_detail(format!("panic: {detail}"))
}

fn unknown_tool(name: &str, available: &[&str]) -> ToolError {
    let list = available.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let message = if available.is_empty() {
        format!("unknown tool `{name}`: no tools are available")
    } else {
        match closest(name, available) {
            Some(near) => format!("unknown tool `{name}`; did you mean `{near}`? Available tools: {list}"),
            None => format!("unknown tool `{name}`; available tools: {list}"),
        }
    };
    ToolError::new(ErrorKind::UnknownTool, message)
}

/// The available name nearest to `name`, if it is a plausible typo (edit distance at most
/// a third of the name's length).
fn closest<'a>(name: &str, available: &[&'a str]) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    available
        .iter()
        .map(|c| (edit_distance(name, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(row[j]).min(cur) };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The checks every arguments string goes through before it is deserialized: size,
/// emptiness, and an object root (serde would otherwise read `["a", 1]` positionally).
#[inline]
fn precheck<'s>(raw: &'s str, spec: &ToolSpec, limits: &Limits) -> Result<&'s str, ToolError> {
    // The usual case, `{` first and within the limit, without a call.
    if raw.len() <= limits.max_argument_bytes && raw.as_bytes().first() == Some(&b'{') {
        return Ok(raw);
    }
    precheck_slow(raw, spec, limits)
}

#[cold]
#[inline(never)]
fn precheck_slow<'s>(raw: &'s str, spec: &ToolSpec, limits: &Limits) -> Result<&'s str, ToolError> {
    if raw.len() > limits.max_argument_bytes {
        return Err(ToolError::new(
            ErrorKind::ArgumentsTooLarge,
            format!(
                "the arguments are too large ({} bytes; the limit is {}); send less at once",
                raw.len(),
                limits.max_argument_bytes
            ),
        ));
    }
    match raw.bytes().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(raw),
        None if spec.takes_no_arguments() => Ok("{}"),
        None => Err(ToolError::new(
            ErrorKind::EmptyArguments,
            format!("the arguments are empty; expected {}", spec.expected),
        )),
        Some(_) => Err(not_an_object(raw, spec)),
    }
}

fn not_an_object(raw: &str, spec: &ToolSpec) -> ToolError {
    match serde_json::from_str::<serde::de::IgnoredAny>(raw) {
        Err(e) => malformed(e, spec),
        Ok(_) => {
            let found = match raw.trim_start().as_bytes().first() {
                Some(b'[') => "an array",
                Some(b'"') => "a string",
                Some(b'n') => "null",
                Some(b't' | b'f') => "a boolean",
                _ => "a number",
            };
            ToolError::new(
                ErrorKind::NotAnObject,
                format!("the arguments must be a JSON object, not {found}; expected {}", spec.expected),
            )
        }
    }
}

fn malformed(e: serde_json::Error, spec: &ToolSpec) -> ToolError {
    if e.to_string().starts_with("recursion limit exceeded") {
        return ToolError::new(
            ErrorKind::MalformedJson,
            format!("the arguments are nested too deeply (more than 128 levels); expected {}", spec.expected),
        )
        .with_detail(e.to_string());
    }
    ToolError::new(
        ErrorKind::MalformedJson,
        format!("the arguments are not valid JSON ({e}); expected {}", spec.expected),
    )
    .with_detail(e.to_string())
}

/// Parses arguments straight into the tool's struct, then checks its constraints.
#[inline]
pub(crate) fn parse_args<A: DeserializeOwned + Validate>(
    raw: &str,
    spec: &ToolSpec,
    limits: &Limits,
) -> Result<A, ToolError> {
    let raw = precheck(raw, spec, limits)?;
    match serde_json::from_str::<A>(raw) {
        Ok(args) => match args.validate() {
            Ok(()) => Ok(args),
            Err(v) => Err(ToolError::new(
                ErrorKind::ConstraintViolation,
                format!("invalid argument: {v}; expected {}", spec.expected),
            )),
        },
        Err(e) => Err(describe::<A>(raw, e, spec)),
    }
}

/// Parses the arguments of a dynamic tool into an object.
fn parse_object(raw: &str, spec: &ToolSpec, limits: &Limits) -> Result<Map<String, Value>, ToolError> {
    let raw = precheck(raw, spec, limits)?;
    serde_json::from_str(raw).map_err(|e| malformed(e, spec))
}

/// Turns a failed parse into a message the model can act on. Only on the error path:
/// the input is parsed a second time to learn the JSON path of the offending value.
fn describe<A: DeserializeOwned>(raw: &str, e: serde_json::Error, spec: &ToolSpec) -> ToolError {
    if e.is_syntax() || e.is_eof() {
        return malformed(e, spec);
    }
    let (path, inner) = match serde_path_to_error::deserialize::<_, A>(&mut serde_json::Deserializer::from_str(raw)) {
        Err(pe) => {
            let path = pe.path().to_string();
            (if path == "." { String::new() } else { path }, pe.into_inner())
        }
        Ok(_) => (String::new(), e),
    };
    let detail = inner.to_string();
    let message = strip_position(&detail);
    let at = if path.is_empty() { String::new() } else { format!(" in `{path}`") };
    let expected = &spec.expected;
    let (kind, text) = if let Some(rest) = message.strip_prefix("missing field ") {
        (ErrorKind::MissingField, format!("missing required field {rest}{at}; expected {expected}"))
    } else if let Some(rest) = message.strip_prefix("unknown field ") {
        // The path ends at the unknown key itself; the place is its parent.
        let field = rest.split(',').next().unwrap_or(rest);
        let parent = path.rsplit_once('.').map(|(p, _)| p).unwrap_or("");
        let at = if parent.is_empty() { String::new() } else { format!(" in `{parent}`") };
        (ErrorKind::UnknownField, format!("unknown field {field}{at}; expected {expected}"))
    } else if let Some(rest) = message.strip_prefix("invalid type: ") {
        let place = if path.is_empty() { String::new() } else { format!(" for `{path}`") };
        (ErrorKind::InvalidType, format!("invalid type{place}: {rest}; expected {expected}"))
    } else {
        let place = if path.is_empty() { String::new() } else { format!(" for `{path}`") };
        (ErrorKind::InvalidValue, format!("invalid value{place}: {message}; expected {expected}"))
    };
    ToolError::new(kind, text).with_detail(detail)
}

/// serde_json appends " at line L column C"; the model needs the field, not the column.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}
