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

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;

use tracing::Instrument;

use crate::call::ToolCall;
use crate::durable::RunState;
use crate::hook::{Hook, Hooks};
use crate::model::{AssistantMessage, FinishReason, Message, Model, ModelError, ToolChoice, Usage};
use crate::record::CallRecord;
use crate::toolbox::Toolbox;

mod as_tool;
mod builder;
mod resume;
mod run;
mod scope;
mod steps;
mod stream;
mod typed;
pub use crate::durable::ResumeError;
pub use as_tool::AgentTool;
pub use builder::{AgentBuildError, AgentBuilder};
pub use resume::ResumeRequest;
use run::{Labels, RunSink, Start, distinct_ids, emit};
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
