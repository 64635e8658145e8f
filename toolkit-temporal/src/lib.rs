//! Agent runs and tool calls on [Temporal](https://temporal.io): runs that survive
//! crashes and deploys, spread over as many workers as you run, and wait for a human
//! for as long as it takes.
//!
//! - **Tool calls are activities**, one per tool, named `{agent}.tool.{tool}`: each
//!   runs through the agent's hooks (approval, sandbox, rate limit, ledger, ...) on
//!   whichever worker picks it up. Its activity id is the call's
//!   [idempotency key](toolkit::durable::idempotency_key), stable across attempts; it
//!   heartbeats while the tool runs; a failure is retried only when running the call
//!   again is safe ([`retryable`]).
//! - **An agent run is a workflow** ([`AgentWorkflow`], type `toolkit.agent`): the
//!   model turn is an activity too, and the loop decides from their recorded results
//!   only, so a replay after a crash never calls the model or a tool again.
//! - **Approvals are signals.** A call a hook defers
//!   ([`ApprovalGate::deferring`](toolkit::hooks::ApprovalGate::deferring)) waits in the
//!   workflow, not in a worker's memory, for a [`CallDecision`](toolkit::durable::CallDecision)
//!   bound to its arguments: approve, approve with edited arguments, or deny.
//!
//! A worker, on any number of machines:
//!
//! ```no_run
//! # async fn worker(agent: toolkit::agent::Agent, client: toolkit_temporal::temporalio_client::Client) -> Result<(), Box<dyn std::error::Error>> {
//! use toolkit_temporal::temporalio_sdk::{Runtime, Worker};
//!
//! let runtime = Runtime::from_current_tokio(Default::default())?;
//! let options = toolkit_temporal::AgentWorker::new().agent(agent).options("agents")?;
//! Worker::new(&runtime, client, options)?.run().await?;
//! # Ok(()) }
//! ```
//!
//! A client: start a run, decide what waits, await the answer ([`Agents`]).
//!
//! ```no_run
//! # async fn client(client: toolkit_temporal::temporalio_client::Client) -> Result<(), toolkit_temporal::Error> {
//! use toolkit_temporal::{Agents, RunInput};
//!
//! let agents = Agents::new(client, "agents");
//! let run = agents.start(RunInput::new("support", "Refund order 42"), "refund-42").await?;
//! for call in run.pending().await? {
//!     run.decide(call.approve()).await?; // or call.deny("not this one")
//! }
//! println!("{}", run.result().await?.text);
//! # Ok(()) }
//! ```
//!
//! # What crosses into an activity
//!
//! Only data: the call (id, tool, arguments), the run's id and session, and a decision.
//! The agent itself (model client, toolbox, hooks) lives in the worker, built by your
//! code at start. Give the agent [`durable`](toolkit::agent::AgentBuilder::durable)
//! over a store every worker shares (a `RedisStore`, toolkit's `redis` feature):
//! its effect ledger then makes a `destructive` call, or a call approved by a decision,
//! take effect at most once across workers.
//!
//! # What the run keeps
//!
//! At its start a run reads the agent's [`RunPlan`](toolkit::agent::RunPlan) (limits,
//! tool annotations) and the worker's timeouts, and keeps them in its history: a deploy
//! that changes them applies to runs started after it. An agent's `tool_choice`,
//! `max_iterations`, `max_calls_per_turn`, `parallel_tool_calls` and hooks apply as in
//! [`Agent::run`](toolkit::agent::Agent::run); what does not carry over: `on_length`
//! continuations and typed answers (a run returns the model's text), streaming, and
//! `on_event` callbacks (they fire on the worker that runs each step).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use temporalio_sdk::WorkerOptions;
use toolkit::agent::Agent;

mod activities;
mod client;
mod retry;
mod workflow;

/// The Temporal SDK's client side (`Client`), at the version this crate is built with.
pub use temporalio_client;
/// The Temporal SDK's worker side (`Runtime`, `Worker`, `WorkerOptions`), at the version
/// this crate is built with.
pub use temporalio_sdk;

pub use activities::AgentActivities;
pub use client::{AgentRunHandle, Agents, Error, connect};
pub use retry::{WORKFLOW, model_activity, plan_activity, retryable, tool_activity, tool_retry_policy};
pub use workflow::{AgentWorkflow, Refused, RunInput, RunResult, RunStatus};

use activities::Settings;

/// The agents a worker serves, and how their activities are scheduled.
///
/// ```no_run
/// # fn f(agent: toolkit::agent::Agent) -> Result<(), toolkit_temporal::Error> {
/// use std::time::Duration;
/// let options = toolkit_temporal::AgentWorker::new()
///     .agent(agent)
///     .heartbeat_timeout(Duration::from_secs(10))
///     .options("agents")?;
/// # Ok(()) }
/// ```
#[derive(Debug, Default)]
pub struct AgentWorker {
    agents: BTreeMap<String, Arc<Agent>>,
    settings: Settings,
    problem: Option<String>,
}

impl AgentWorker {
    /// A worker serving no agent yet.
    pub fn new() -> Self {
        AgentWorker::default()
    }

    /// Serves `agent`, by its name (which runs name in [`RunInput::new`]). An agent needs
    /// a name, and two agents of one worker different ones.
    pub fn agent(mut self, agent: Agent) -> Self {
        let Some(name) = agent.name().map(str::to_owned) else {
            self.problem.get_or_insert_with(|| "an agent without a name: give it one with `.name(..)`".into());
            return self;
        };
        if self.agents.insert(name.clone(), Arc::new(agent)).is_some() {
            self.problem.get_or_insert_with(|| format!("two agents named `{name}`"));
        }
        self
    }

    /// How long a worker may go silent in the middle of a tool call before the server
    /// counts it as lost and the call as failed (default 30 s). Tools heartbeat three
    /// times per period while they run.
    pub fn heartbeat_timeout(mut self, timeout: Duration) -> Self {
        self.settings.heartbeat_ms = millis(timeout);
        self
    }

    /// The longest one tool call's activity may take, for tools without a timeout of
    /// their own (default 10 minutes).
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.settings.tool_timeout_ms = millis(timeout);
        self
    }

    /// The longest one model turn may take (default 5 minutes).
    pub fn model_timeout(mut self, timeout: Duration) -> Self {
        self.settings.model_timeout_ms = millis(timeout);
        self
    }

    /// Attempts for a call that may be retried ([`retryable`]; default 3).
    pub fn tool_attempts(mut self, attempts: u32) -> Self {
        self.settings.tool_attempts = attempts.max(1);
        self
    }

    /// Attempts for a model turn that failed in a way waiting may help (rate limits,
    /// server errors, lost connections; default 3), besides the model client's own
    /// retries.
    pub fn model_attempts(mut self, attempts: u32) -> Self {
        self.settings.model_attempts = attempts.max(1);
        self
    }

    /// The activities, to register on worker options of your own beside
    /// [`AgentWorkflow`] (`.register_activities(..)`, `.register_workflow::<AgentWorkflow>()`).
    pub fn activities(self) -> Result<AgentActivities, Error> {
        if let Some(problem) = self.problem {
            return Err(Error::Worker(problem));
        }
        if self.agents.is_empty() {
            return Err(Error::Worker("no agent: add one with `.agent(..)`".into()));
        }
        Ok(AgentActivities { agents: self.agents, settings: self.settings })
    }

    /// Worker options polling `task_queue`, with the agents' activities and the
    /// [`AgentWorkflow`] registered; pass them to `temporalio_sdk::Worker::new`.
    pub fn options(self, task_queue: impl Into<String>) -> Result<WorkerOptions, Error> {
        let activities = self.activities()?;
        let options = WorkerOptions::new(task_queue.into())
            .register_activities(activities)
            .register_workflow::<AgentWorkflow>()
            .map_err(|e| Error::Worker(e.to_string()))?
            .build();
        Ok(options)
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}
