//! The agent loop: a model, a toolbox, the agent's hooks and limits.
//!
//! [`Agent::run`] sends the conversation and the tool specs to the model; when the reply
//! asks for tool calls, it appends the assistant message, executes the calls through the
//! toolbox (every hook acting, in parallel when allowed), appends exactly one
//! `role: "tool"` message per call id in call order, and asks again; it stops at a text
//! reply, or with [`AgentError::MaxIterations`] after `max_iterations` model turns. The
//! result carries the final text, the whole transcript in the Chat Completions wire
//! format, every [`CallRecord`], and the token usage summed.
//!
//! ```
//! use toolkit::prelude::*;
//! use toolkit::agent::Agent;
//! use toolkit::model::{ScriptedModel, Turn};
//!
//! /// Add two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let model = ScriptedModel::new([
//!     Turn::call("add", r#"{"a": 2, "b": 3}"#),
//!     Turn::text("2 + 3 = 5"),
//! ]);
//! let agent = Agent::builder(model, toolbox![add]).name("calculator").build().unwrap();
//! let run = agent.run("What is 2 + 3?").await.unwrap();
//! assert_eq!(run.text, "2 + 3 = 5");
//! assert_eq!(run.records.len(), 1);
//! assert_eq!(run.messages.len(), 4); // user, assistant (tool call), tool, assistant
//! # }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::Instrument;

use crate::call::{ToolCall, ToolResult};
use crate::durable::{PendingCall, Progress, RunState, TurnCall};
use crate::error::ErrorKind;
use crate::hook::{Decided, Hook, Hooks, Scope};
use crate::model::{AssistantMessage, FinishReason, Message, Model, ModelError, ModelRequest, ToolChoice, Usage};
use crate::record::{CallRecord, RecordSink};
use crate::toolbox::Toolbox;

mod as_tool;
mod builder;
mod resume;
mod scope;
mod steps;
mod stream;
mod typed;
pub use crate::durable::ResumeError;
pub use as_tool::AgentTool;
pub use builder::{AgentBuildError, AgentBuilder};
pub use resume::ResumeRequest;
pub use steps::{RunPlan, Step, StepResult, ToolPlan};
pub use stream::{RunEvent, RunStream};
pub use typed::{TypedRun, TypedRunRequest};

/// What an agent run reports while it works, for a UI or a CLI to show progress.
///
/// Passed by reference to the callback of [`AgentBuilder::on_event`]; clone what you
/// keep, or forward it to a channel. A callback that panics is reported and ignored.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum AgentEvent<'a> {
    /// A model turn begins (1-based).
    TurnStarted {
        /// The turn's number.
        iteration: usize,
    },
    /// More of the model's text, as it is written (streaming runs only:
    /// [`Agent::run_stream`]).
    TextDelta {
        /// The turn's number.
        iteration: usize,
        /// The new text.
        text: &'a str,
    },
    /// The model answered.
    ModelReplied {
        /// The turn's number.
        iteration: usize,
        /// What it said.
        message: &'a AssistantMessage,
        /// Why it stopped.
        finish_reason: &'a FinishReason,
        /// The tokens of this turn.
        usage: Usage,
    },
    /// A tool call is about to be dispatched (calls of one turn start together when
    /// parallel calls are on).
    ToolCallStarted {
        /// The call as the model wrote it.
        call: &'a ToolCall,
    },
    /// A running tool reported progress ([`CallContext::progress`](crate::CallContext::progress)).
    ToolProgress {
        /// The report: the call, the tool, how much is done of how much, and a message.
        report: &'a crate::progress::Progress<'a>,
    },
    /// A tool call is finished: its outcome, result, hooks and timing.
    ToolCallFinished {
        /// The call's record (the run's own, shared: keep it with `Arc::clone`).
        record: &'a Arc<CallRecord>,
    },
    /// The model gave its final answer.
    FinalAnswer {
        /// The answer.
        text: &'a str,
    },
}

type EventFn = dyn Fn(&AgentEvent<'_>) + Send + Sync;

/// A model, a toolbox, hooks and limits: runs the tool-calling loop.
///
/// Built with [`Agent::builder`]; cheap to clone (clones share everything), and
/// [`run`](Agent::run) takes `&self`, so one agent serves many concurrent runs.
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // Offline: a scripted model asks for a call, then answers from its result.
/// let model = ScriptedModel::new([
///     Turn::call("add", r#"{"a": 2, "b": 40}"#),
///     Turn::text("2 + 40 = 42"),
/// ]);
/// let agent = Agent::builder(model, toolbox![add]).system_prompt("You add numbers.").max_iterations(4).build()?;
/// let run = agent.run("What is 2 + 40?").await?;
/// assert_eq!(run.text, "2 + 40 = 42");
/// assert_eq!(run.records[0].content, "42");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Agent {
    inner: Arc<Inner>,
}

struct Inner {
    model: Arc<dyn Model>,
    tools: Arc<Toolbox>,
    name: Option<Arc<str>>,
    system_prompt: Option<String>,
    max_iterations: usize,
    tool_choice: ToolChoice,
    parallel_tool_calls: bool,
    max_calls_per_turn: usize,
    strict: bool,
    hooks: Hooks,
    on_event: Option<Arc<EventFn>>,
    on_length: OnLength,
    answer_retries: usize,
    /// Where durable runs keep their effect ledger ([`AgentBuilder::durable`]).
    store: Option<Arc<dyn crate::hooks::store::Store>>,
    /// The hooks a resumed turn adds when the agent is not durable: a ledger in memory
    /// for the calls resumed with a decision.
    resume_hooks: Vec<Hook>,
    /// Which tools each turn shows the model ([`AgentBuilder::tool_filter`]).
    tool_filter: Option<Arc<ToolFilter>>,
}

/// A per-turn choice of the tools the model is shown: the conversation so far and one
/// tool; `false` leaves the tool out of that turn's request.
pub type ToolFilter = dyn Fn(&[Message], &crate::spec::ToolSpec) -> bool + Send + Sync;

/// What a run does with an answer cut by the token limit (`finish_reason: length`).
///
/// ```
/// use toolkit::agent::OnLength;
/// assert_eq!(OnLength::default(), OnLength::Return);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnLength {
    /// Return it as the answer (`AgentRun::finish_reason` says it was cut).
    #[default]
    Return,
    /// End the run with [`AgentError::Cut`].
    Fail,
    /// Ask the model to go on, at most this many times, and join the parts; an answer
    /// still cut after them is returned as it is.
    Continue(usize),
}

impl Agent {
    /// Starts an agent of `model` over `tools` (a [`Toolbox`], or an `Arc` of one shared
    /// with other agents).
    pub fn builder(model: impl Model + 'static, tools: impl Into<Arc<Toolbox>>) -> AgentBuilder {
        AgentBuilder {
            inner: Inner {
                model: Arc::new(model),
                tools: tools.into(),
                name: None,
                system_prompt: None,
                max_iterations: 10,
                on_length: OnLength::Return,
                tool_choice: ToolChoice::Auto,
                parallel_tool_calls: true,
                max_calls_per_turn: 64,
                strict: false,
                hooks: Hooks::new(),
                on_event: None,
                answer_retries: 2,
                store: None,
                resume_hooks: Vec::new(),
                tool_filter: None,
            },
            problem: None,
        }
    }

    /// Runs the loop on `input` (a user message); await the returned request, after
    /// optionally setting a session id, a task label or earlier history on it.
    pub fn run(&self, input: impl Into<String>) -> RunRequest<'_> {
        RunRequest { agent: self, input: input.into(), session: None, task: None, parent: None, history: Vec::new() }
    }

    /// The agent's name (its `agent` label for hooks and records).
    pub fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }

    /// The toolbox.
    pub fn tools(&self) -> &Arc<Toolbox> {
        &self.inner.tools
    }
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("Agent")
            .field("name", &i.name)
            .field("model", &i.model.name())
            .field("tools", &i.tools.names())
            .field("max_iterations", &i.max_iterations)
            .field("tool_choice", &i.tool_choice)
            .field("parallel_tool_calls", &i.parallel_tool_calls)
            .field("max_calls_per_turn", &i.max_calls_per_turn)
            .field("strict", &i.strict)
            .field("hooks", &i.hooks.names())
            .finish()
    }
}

/// One run of an agent, ready to be awaited; set a session id, a task label or earlier
/// history first if needed.
///
/// ```no_run
/// # async fn f(agent: toolkit::agent::Agent) -> Result<(), toolkit::agent::AgentError> {
/// let run = agent.run("Summarize report.md").session("s-42").task("summary").await?;
/// # Ok(()) }
/// ```
#[must_use = "a run does nothing until awaited"]
pub struct RunRequest<'a> {
    agent: &'a Agent,
    input: String,
    session: Option<Arc<str>>,
    task: Option<Arc<str>>,
    parent: Option<Arc<str>>,
    history: Vec<Message>,
}

impl<'a> RunRequest<'a> {
    /// The id of the call this run is made inside: its records carry it as
    /// [`CallRecord::parent`] (set by [`AgentTool`] for an agent used as a tool).
    pub fn parent(mut self, call_id: impl Into<Arc<str>>) -> Self {
        self.parent = Some(call_id.into());
        self
    }

    /// The session id hooks see and records carry (default: a new one per run).
    pub fn session(mut self, id: impl Into<Arc<str>>) -> Self {
        self.session = Some(id.into());
        self
    }

    /// The task label hooks see and records carry.
    pub fn task(mut self, task: impl Into<Arc<str>>) -> Self {
        self.task = Some(task.into());
        self
    }

    /// Earlier messages (a previous run's [`AgentRun::messages`]) to continue a
    /// conversation; the input is appended after them.
    pub fn history(mut self, messages: Vec<Message>) -> Self {
        self.history = messages;
        self
    }
}

impl<'a> RunRequest<'a> {
    /// The run, asking for a final answer of `answer`'s shape if given, and streaming
    /// its events to `watcher` if given.
    fn drive(
        self,
        answer: Option<typed::Answer>,
        watcher: Option<Arc<EventFn>>,
    ) -> Pin<Box<dyn Future<Output = Result<AgentRun, AgentError>> + Send + 'a>> {
        let span = tracing::info_span!(
            "invoke_agent",
            gen_ai.operation.name = "invoke_agent",
            gen_ai.agent.name = self.agent.inner.name.as_deref(),
            gen_ai.request.model = self.agent.inner.model.name(),
        );
        let labels = Labels { session: self.session, task: self.task, parent: self.parent };
        let start = Start::Fresh { input: self.input, history: self.history };
        Box::pin(self.agent.inner.drive(start, labels, answer, watcher).instrument(span))
    }
}

impl<'a> IntoFuture for RunRequest<'a> {
    type Output = Result<AgentRun, AgentError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        self.drive(None, None)
    }
}

/// What a run produced.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentRun {
    /// The final answer (empty if the run ended in an error).
    pub text: String,
    /// The whole conversation in the Chat Completions wire format: system prompt, user
    /// input, every assistant message, one `role: "tool"` message per call id in call
    /// order, and the final answer.
    pub messages: Vec<Message>,
    /// One record per tool call, in call order.
    pub records: Vec<Arc<CallRecord>>,
    /// Tokens used, summed over every model turn.
    pub usage: Usage,
    /// How many model turns the run took.
    pub iterations: usize,
    /// The run's session id.
    pub session: Arc<str>,
    /// Why the model stopped, on its last turn.
    pub finish_reason: Option<FinishReason>,
    /// The model's refusal, when it declined to answer on its last turn (`text` is then
    /// what it wrote besides, usually nothing).
    pub refusal: Option<String>,
}

/// Why a run ended without an answer. Every variant still carries the run so far: the
/// transcript, the records and the usage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The model was still calling tools after `max_iterations` turns.
    #[error("the model was still calling tools after {limit} turns (max_iterations)")]
    MaxIterations {
        /// The limit.
        limit: usize,
        /// The run so far.
        run: Box<AgentRun>,
    },
    /// The answer was cut by the token limit, and the agent was built with
    /// [`OnLength::Fail`].
    #[error("the answer was cut by the token limit (finish_reason `length`)")]
    Cut {
        /// The run so far; its `text` is the cut answer.
        run: Box<AgentRun>,
    },
    /// A typed run's answer did not fit its type, after the model was asked again with
    /// the reason (`answer_retries` times).
    #[error("the answer did not fit the required type after {attempts} attempts: {problem}")]
    BadAnswer {
        /// Answers the model gave.
        attempts: usize,
        /// What was wrong with the last one.
        problem: String,
        /// The run so far; its `text` is the last answer.
        run: Box<AgentRun>,
    },
    /// A hook deferred a call ([`Decision::Defer`](crate::Decision::Defer)): the run paused after finishing the
    /// turn's other calls. Keep `state` (a [`RunStore`](crate::durable::RunStore), or its
    /// JSON anywhere) and continue it with [`Agent::resume`].
    #[error("the run paused: {} call(s) wait for a decision", state.pending().len())]
    Paused {
        /// Everything needed to continue the run, the pending calls among it.
        state: Box<RunState>,
        /// The run so far.
        run: Box<AgentRun>,
    },
    /// [`Agent::resume`] refused the state or the decisions; nothing ran.
    #[error("the run was not resumed: {error}")]
    Resume {
        /// Why.
        error: ResumeError,
        /// The run as the state holds it.
        run: Box<AgentRun>,
    },
    /// The model request failed.
    #[error("turn {iteration}: {source}")]
    Model {
        /// The turn that failed.
        iteration: usize,
        /// Why.
        source: ModelError,
        /// The run so far.
        run: Box<AgentRun>,
    },
}

impl AgentError {
    /// The run so far.
    pub fn run(&self) -> &AgentRun {
        match self {
            AgentError::MaxIterations { run, .. }
            | AgentError::Cut { run }
            | AgentError::Model { run, .. }
            | AgentError::BadAnswer { run, .. }
            | AgentError::Paused { run, .. }
            | AgentError::Resume { run, .. } => run,
        }
    }

    /// The run so far, by value.
    pub fn into_run(self) -> AgentRun {
        match self {
            AgentError::MaxIterations { run, .. }
            | AgentError::Cut { run }
            | AgentError::Model { run, .. }
            | AgentError::BadAnswer { run, .. }
            | AgentError::Paused { run, .. }
            | AgentError::Resume { run, .. } => *run,
        }
    }

    /// The paused run's state, when the run paused.
    pub fn into_paused(self) -> Option<RunState> {
        match self {
            AgentError::Paused { state, .. } => Some(*state),
            _ => None,
        }
    }
}

/// Collects the records of one run and reports each finished call; the run keeps a
/// clone to read the records, the scope owns the other.
#[derive(Clone)]
struct RunSink {
    records: Arc<Mutex<Vec<Arc<CallRecord>>>>,
    on_event: Option<Arc<EventFn>>,
}

impl RecordSink for RunSink {
    fn record(&self, record: &CallRecord) {
        self.record_shared(&Arc::new(record.clone()))
    }

    fn keeps_records(&self) -> bool {
        true
    }

    fn record_shared(&self, record: &Arc<CallRecord>) {
        self.records.lock().unwrap_or_else(|e| e.into_inner()).push(Arc::clone(record));
        emit(&self.on_event, &AgentEvent::ToolCallFinished { record });
    }
}

fn emit(on_event: &Option<Arc<EventFn>>, event: &AgentEvent<'_>) {
    if let Some(f) = on_event
        && catch_unwind(AssertUnwindSafe(|| f(event))).is_err()
    {
        tracing::error!("an agent event callback panicked; the run goes on");
    }
}

fn new_session_id() -> Arc<str> {
    new_id("session")
}

/// A new id, unique among processes (time, process id, a counter): for sessions and runs.
fn new_id(kind: &str) -> Arc<str> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    Arc::from(format!("{kind}-{nanos:x}-{:x}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)))
}

/// The labels a run's calls carry.
struct Labels {
    session: Option<Arc<str>>,
    task: Option<Arc<str>>,
    parent: Option<Arc<str>>,
}

/// How a run begins: from a user message, or from a paused run's state.
enum Start {
    Fresh { input: String, history: Vec<Message> },
    Resume { state: Box<RunState>, decisions: HashMap<String, Decided> },
}

impl AgentRun {
    /// The run a paused state holds.
    fn of(state: RunState) -> AgentRun {
        AgentRun {
            text: String::new(),
            messages: state.messages,
            records: state.records,
            usage: state.usage,
            iterations: state.iterations,
            session: Arc::from(state.session),
            finish_reason: Some(FinishReason::ToolCalls),
            refusal: None,
        }
    }
}

/// What a run carries from turn to turn besides its [`AgentRun`]: what a paused state
/// needs to continue it.
struct Course {
    run_id: Arc<str>,
    task: Option<Arc<str>>,
    parent: Option<Arc<str>>,
    progress: Progress,
}

impl Inner {
    async fn drive(
        &self,
        start: Start,
        labels: Labels,
        answer: Option<typed::Answer>,
        watcher: Option<Arc<EventFn>>,
    ) -> Result<AgentRun, AgentError> {
        // A streaming run watches the events too, and asks the model for its reply as
        // it is written.
        let streaming = watcher.is_some();
        let on_event: Option<Arc<EventFn>> = match (self.on_event.clone(), watcher) {
            (Some(a), Some(b)) => Some(Arc::new(move |e: &AgentEvent<'_>| {
                a(e);
                b(e);
            })),
            (a, b) => a.or(b),
        };
        let (mut run, mut course, paused_turn) = match start {
            Start::Fresh { input, history } => {
                let Labels { session, task, parent } = labels;
                let mut messages = history;
                if let Some(prompt) = &self.system_prompt
                    && !matches!(messages.first(), Some(Message::System { .. }))
                {
                    messages.insert(0, Message::system(prompt.clone()));
                }
                messages.push(Message::user(input));
                let run = AgentRun {
                    text: String::new(),
                    messages,
                    records: Vec::new(),
                    usage: Usage::default(),
                    iterations: 0,
                    session: session.unwrap_or_else(new_session_id),
                    finish_reason: None,
                    refusal: None,
                };
                (run, Course { run_id: new_id("run"), task, parent, progress: Progress::default() }, None)
            }
            Start::Resume { state, decisions } => {
                let mut state = *state;
                let course = Course {
                    run_id: Arc::from(std::mem::take(&mut state.run_id)),
                    task: state.task.take().map(Arc::from),
                    parent: state.parent.take().map(Arc::from),
                    progress: state.progress,
                };
                let turn = std::mem::take(&mut state.turn);
                (AgentRun::of(state), course, Some((turn, decisions)))
            }
        };
        let sink = RunSink { records: Arc::default(), on_event: on_event.clone() };
        let scope = self.scope(&run.session, &course.run_id, [&course.task, &course.parent], &sink);

        // A resumed run first finishes the turn it paused in: its pending calls, each
        // with its decision, and the ledger that makes them run at most once.
        if let Some((turn, decisions)) = paused_turn {
            let resumed = self.decided(scope.clone(), decisions);
            let calls: Vec<ToolCall> = turn.iter().map(|t| t.call.clone()).collect();
            let waiting: Vec<ToolCall> = turn.iter().filter(|t| t.result.is_none()).map(|t| t.call.clone()).collect();
            for call in &waiting {
                emit(&on_event, &AgentEvent::ToolCallStarted { call });
            }
            let mut ran = self.run_calls(waiting, &resumed).await.into_iter();
            let results: Vec<ToolResult> = turn
                .into_iter()
                .map(|t| match t.result {
                    Some(result) => result,
                    // One result per call run, in order (`call_all` promises it).
                    None => ran.next().unwrap_or_else(|| ToolResult::failed(t.call.id, t.call.name, lost())),
                })
                .collect();
            self.settle(&mut run, &course, &sink, calls, results)?;
        }

        let mut choice = if course.progress.choice_spent { &ToolChoice::Auto } else { &self.tool_choice };
        for iteration in run.iterations + 1..=self.max_iterations {
            run.iterations = iteration;
            emit(&on_event, &AgentEvent::TurnStarted { iteration });
            // Deferred tools join once a search found them (see `search`).
            let specs = steps::visible_specs(
                &self.tools,
                &run.messages,
                self.model.searches_tools(),
                self.tool_filter.as_deref(),
            );
            let request = ModelRequest {
                messages: &run.messages,
                tools: &specs,
                tool_choice: choice,
                parallel_tool_calls: self.parallel_tool_calls,
                strict: self.strict,
                response_format: answer.as_ref().map(|a| &a.format),
                namespaces: self.tools.namespaces(),
            };
            let reply = if streaming {
                let text = |delta: &str| emit(&on_event, &AgentEvent::TextDelta { iteration, text: delta });
                crate::model::collect(self.model.stream(request), text).await
            } else {
                self.model.complete(request).await
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(source) => {
                    return Err(AgentError::Model { iteration, source, run: Box::new(run) });
                }
            };
            run.usage += reply.usage;
            run.finish_reason = Some(reply.finish_reason.clone());
            emit(
                &on_event,
                &AgentEvent::ModelReplied {
                    iteration,
                    message: &reply.message,
                    finish_reason: &reply.finish_reason,
                    usage: reply.usage,
                },
            );
            let mut reply = reply;
            if reply.message.tool_calls.is_empty() {
                // An answer continued after a cut is the parts joined.
                run.text.push_str(reply.message.content.as_deref().unwrap_or_default());
                run.refusal = reply.message.refusal.clone();
                let cut = reply.finish_reason == FinishReason::Length;
                run.messages.push(Message::Assistant(reply.message));
                if cut {
                    match self.on_length {
                        OnLength::Fail => return Err(AgentError::Cut { run: Box::new(run) }),
                        OnLength::Continue(max) if course.progress.continuations < max => {
                            course.progress.continuations += 1;
                            run.messages.push(Message::user(
                                "Your answer was cut by the length limit. Continue exactly where it stopped, without repeating anything.",
                            ));
                            continue;
                        }
                        _ => {}
                    }
                }
                if let Some(answer) = &answer
                    && let Err(problem) = answer.check(&run.text)
                {
                    if course.progress.corrections < self.answer_retries {
                        course.progress.corrections += 1;
                        run.messages.push(Message::user(format!(
                            "Your answer does not fit the required JSON schema: {problem}. Reply again with only the JSON value."
                        )));
                        run.text.clear();
                        continue;
                    }
                    let attempts = course.progress.corrections + 1;
                    return Err(AgentError::BadAnswer { attempts, problem, run: Box::new(run) });
                }
                emit(&on_event, &AgentEvent::FinalAnswer { text: &run.text });
                return Ok(run);
            }
            distinct_ids(&mut reply.message.tool_calls);
            let calls = reply.message.tool_calls.clone();
            run.messages.push(Message::Assistant(reply.message));
            for call in &calls {
                emit(&on_event, &AgentEvent::ToolCallStarted { call });
            }
            if choice.forces_a_call() {
                choice = &ToolChoice::Auto;
                course.progress.choice_spent = true;
            }
            // Past the turn's limit, calls are blocked (each still gets its result and
            // its record): a reply asking for thousands must not run them all.
            let limited = (calls.len() > self.max_calls_per_turn).then(|| self.limit_calls(&scope, &calls));
            let results = self.run_calls(calls.clone(), limited.as_ref().unwrap_or(&scope)).await;
            self.settle(&mut run, &course, &sink, calls, results)?;
        }
        Err(AgentError::MaxIterations { limit: self.max_iterations, run: Box::new(run) })
    }

    /// Executes one turn's calls: together when parallel calls are on, else one by one.
    async fn run_calls(&self, calls: Vec<ToolCall>, scope: &Scope) -> Vec<ToolResult> {
        if self.parallel_tool_calls {
            return self.tools.call_all_in(calls, scope).await;
        }
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            results.push(self.tools.call_in(call, scope).await);
        }
        results
    }

    /// A turn's calls have ended: their records join the run's, and their results the
    /// conversation; or, when a hook deferred one of them, the run pauses with the turn
    /// as it stands.
    fn settle(
        &self,
        run: &mut AgentRun,
        course: &Course,
        sink: &RunSink,
        calls: Vec<ToolCall>,
        results: Vec<ToolResult>,
    ) -> Result<(), AgentError> {
        take_records(sink, &results, &mut run.records);
        if !results.iter().any(|r| r.kind() == Some(ErrorKind::Deferred)) {
            run.messages.extend(results.iter().map(Message::tool));
            return Ok(());
        }
        let mut pending = Vec::new();
        let mut turn = Vec::with_capacity(calls.len());
        for (call, result) in calls.into_iter().zip(results) {
            if result.kind() != Some(ErrorKind::Deferred) {
                turn.push(TurnCall { call, result: Some(result) });
                continue;
            }
            pending.extend(PendingCall::of(&call, &result));
            turn.push(TurnCall { call, result: None });
        }
        let labels = [
            Some(run.session.to_string()),
            course.task.as_deref().map(str::to_owned),
            course.parent.as_deref().map(str::to_owned),
        ];
        let state = RunState::new(
            course.run_id.to_string(),
            self.name.as_deref().map(str::to_owned),
            labels,
            run.messages.clone(),
            turn,
            pending,
            run.records.clone(),
            (run.iterations, run.usage, course.progress),
        );
        tracing::info!(run_id = %course.run_id, pending = state.pending().len(), "the run paused: calls wait for a decision");
        Err(AgentError::Paused { state: Box::new(state), run: Box::new(run.clone()) })
    }
}

/// A pending call the resumed turn lost (never: `call_all` answers every call).
#[cold]
fn lost() -> crate::error::ToolError {
    crate::error::ToolError::new(ErrorKind::Unavailable, "this call was not run; ask for it again")
}

/// Gives every call of a turn its own id: a model that repeats one (or a client that
/// filled in missing ones alike) would otherwise have two results answer one id. The
/// renamed ids are what the transcript carries, so the model sees each result paired.
fn distinct_ids(calls: &mut [ToolCall]) {
    let mut seen = std::collections::HashSet::new();
    for (i, call) in calls.iter_mut().enumerate() {
        if !seen.insert(call.id.clone()) {
            let mut renamed = format!("{}_{}", call.id, i + 1);
            while !seen.insert(renamed.clone()) {
                renamed.push('_');
            }
            tracing::debug!(id = %call.id, renamed = %renamed, "the model repeated a tool call id; the call gets its own");
            call.id = renamed;
        }
    }
}

/// Moves one turn's records to `into`, in call order: the calls of a turn finish in any
/// order, so their records are put back in the order of `results` (a model may repeat
/// an id; each record is used once).
fn take_records(sink: &RunSink, results: &[crate::call::ToolResult], into: &mut Vec<Arc<CallRecord>>) {
    let mut batch: Vec<Option<Arc<CallRecord>>> =
        std::mem::take(&mut *sink.records.lock().unwrap_or_else(|e| e.into_inner())).into_iter().map(Some).collect();
    for result in results {
        if let Some(slot) = batch.iter_mut().find(|r| r.as_ref().is_some_and(|r| r.call_id == result.call_id)) {
            into.extend(slot.take());
        }
    }
    into.extend(batch.into_iter().flatten());
}
