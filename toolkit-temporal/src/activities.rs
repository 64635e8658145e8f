//! The worker's side: an agent's plan, its model turns and its tool calls as activities.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use temporalio_common::ActivityDefinition;
use temporalio_sdk::ApplicationFailure;
use temporalio_sdk::activities::{
    ActivityContext, ActivityDefinitions, ActivityError, ActivityImplementer, ExecutableActivity,
};
use toolkit::ToolCall;
use toolkit::agent::{Agent, RunPlan, Step, StepResult};
use toolkit::durable::CallDecision;
use toolkit::model::{AssistantMessage, FinishReason, Message, ModelError, Usage};

use crate::retry;

/// How the workflow schedules an agent's activities: fixed when the worker is built,
/// and kept with each run when it starts (a run under way keeps its settings across
/// deploys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
// A setting added later reads as its default in the history of a run started before.
#[serde(default)]
pub(crate) struct Settings {
    pub(crate) heartbeat_ms: u64,
    pub(crate) tool_timeout_ms: u64,
    pub(crate) model_timeout_ms: u64,
    pub(crate) tool_attempts: u32,
    pub(crate) model_attempts: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            heartbeat_ms: 30_000,
            tool_timeout_ms: 10 * 60_000,
            model_timeout_ms: 5 * 60_000,
            tool_attempts: 3,
            model_attempts: 3,
        }
    }
}

/// What the plan activity is asked: the run's input.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PlanTask {
    pub(crate) input: String,
    #[serde(default)]
    pub(crate) history: Vec<Message>,
}

/// What it answers: the run's plan, its opening messages and the settings it keeps.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Opening {
    pub(crate) plan: RunPlan,
    pub(crate) messages: Vec<Message>,
    pub(crate) settings: Settings,
}

/// One model turn's question.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ModelTask {
    pub(crate) messages: Vec<Message>,
    pub(crate) force_choice: bool,
}

/// One model turn's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ModelTurn {
    pub(crate) message: AssistantMessage,
    pub(crate) finish_reason: FinishReason,
    pub(crate) usage: Usage,
}

/// One tool call, with what the run knows about it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ToolTask {
    pub(crate) run_id: String,
    pub(crate) session: String,
    pub(crate) call: ToolCall,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<CallDecision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) block: Option<String>,
}

/// The activities of every agent a worker serves, registered under stable names
/// ([`plan_activity`](crate::plan_activity), [`model_activity`](crate::model_activity),
/// [`tool_activity`](crate::tool_activity)); made by
/// [`AgentWorker::activities`](crate::AgentWorker::activities).
pub struct AgentActivities {
    pub(crate) agents: BTreeMap<String, Arc<Agent>>,
    pub(crate) settings: Settings,
}

impl std::fmt::Debug for AgentActivities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentActivities").field("agents", &self.agents.keys()).finish_non_exhaustive()
    }
}

/// What one registered activity runs: the agent, and which of its activities it is.
pub(crate) struct Runner {
    agent: Arc<Agent>,
    settings: Settings,
    /// The tool a tool activity is for.
    tool: Option<String>,
}

impl ActivityImplementer for Runner {
    fn register_all(self: Arc<Self>, _defs: &mut ActivityDefinitions) {
        // A runner is registered by `AgentActivities`, one activity at a time.
    }
}

impl ActivityImplementer for AgentActivities {
    fn register_all(self: Arc<Self>, defs: &mut ActivityDefinitions) {
        for (name, agent) in &self.agents {
            let runner =
                |tool: Option<String>| Arc::new(Runner { agent: Arc::clone(agent), settings: self.settings, tool });
            register::<PlanActivity>(defs, retry::plan_activity(name), runner(None));
            register::<ModelActivity>(defs, retry::model_activity(name), runner(None));
            for tool in agent.tools().names() {
                register::<ToolActivity>(defs, retry::tool_activity(name, tool), runner(Some(tool.to_string())));
            }
        }
    }
}

thread_local! {
    /// The name of the activity being registered. The SDK registers an activity type
    /// under the name of `ExecutableActivity::definition()`, a function without
    /// arguments; our activity types have one name per agent and tool, so `register`
    /// sets it here for the call it makes.
    static REGISTERING: RefCell<String> = const { RefCell::new(String::new()) };
}

fn register<A: ExecutableActivity<Implementer = Runner>>(
    defs: &mut ActivityDefinitions,
    name: String,
    runner: Arc<Runner>,
) where
    A::Input: Send + Sync,
    A::Output: Send + Sync,
{
    REGISTERING.with(|n| *n.borrow_mut() = name);
    defs.register_activity::<A>(runner);
    REGISTERING.with(|n| n.borrow_mut().clear());
}

fn registering() -> String {
    REGISTERING.with(|n| n.borrow().clone())
}

/// An activity type: its definition (named per agent and tool when it is registered,
/// see [`register`]) and its execution by `$run(runner, ctx, input)`.
macro_rules! activity {
    ($(#[$doc:meta])* $name:ident: $input:ty => $output:ty, $run:ident) => {
        $(#[$doc])*
        pub(crate) struct $name {
            name: String,
        }

        impl $name {
            pub(crate) fn named(name: String) -> Self {
                $name { name }
            }
        }

        impl ActivityDefinition for $name {
            type Input = $input;
            type Output = $output;

            fn name(&self) -> &str {
                &self.name
            }
        }

        impl ExecutableActivity for $name {
            type Implementer = Runner;
            const REQUIRES_INSTANCE: bool = true;

            fn definition() -> Self {
                $name::named(registering())
            }

            fn execute(
                runner: Option<Arc<Runner>>,
                ctx: ActivityContext,
                input: $input,
            ) -> BoxFuture<'static, Result<$output, ActivityError>> {
                Box::pin(async move { $run(runner.ok_or_else(no_runner)?, ctx, input).await })
            }
        }
    };
}

activity!(
    /// `{agent}.plan`: the run's plan and opening messages.
    PlanActivity: PlanTask => Opening, plan
);
activity!(
    /// `{agent}.model`: one model turn.
    ModelActivity: ModelTask => ModelTurn, model_turn
);
activity!(
    /// `{agent}.tool.{tool}`: one tool call.
    ToolActivity: ToolTask => StepResult, tool_call
);

async fn plan(runner: Arc<Runner>, _ctx: ActivityContext, task: PlanTask) -> Result<Opening, ActivityError> {
    let agent = &runner.agent;
    Ok(Opening { plan: agent.plan(), messages: agent.opening(task.input, task.history), settings: runner.settings })
}

async fn model_turn(runner: Arc<Runner>, _ctx: ActivityContext, task: ModelTask) -> Result<ModelTurn, ActivityError> {
    match runner.agent.reply(&task.messages, task.force_choice).await {
        Ok(reply) => Ok(ModelTurn { message: reply.message, finish_reason: reply.finish_reason, usage: reply.usage }),
        Err(error) => Err(model_failure(&error).into()),
    }
}

/// A model error as an activity failure: retried when waiting may help (rate limits,
/// server errors, a lost connection, no answer in time), not otherwise.
fn model_failure(error: &ModelError) -> ApplicationFailure {
    let message = error.to_string();
    let (retry, wait) = match error {
        ModelError::RateLimited { retry_after, .. } | ModelError::Server { retry_after, .. } => (true, *retry_after),
        ModelError::Unreachable { .. }
        | ModelError::ConnectionClosed { .. }
        | ModelError::StreamError { .. }
        | ModelError::Timeout { .. } => (true, None),
        _ => (false, None),
    };
    let builder = ApplicationFailure::builder(message).type_name("toolkit.model".to_owned()).non_retryable(!retry);
    match wait {
        Some(wait) => builder.next_retry_delay(wait).build(),
        None => builder.build(),
    }
}

async fn tool_call(runner: Arc<Runner>, ctx: ActivityContext, task: ToolTask) -> Result<StepResult, ActivityError> {
    if runner.tool.as_deref() != Some(task.call.name.as_str()) {
        let message = format!("activity {} was asked to run tool `{}`", ctx.info().activity_type, task.call.name);
        return Err(ApplicationFailure::non_retryable(message).into());
    }
    let annotations = runner.agent.tools().spec(&task.call.name).map(|s| s.annotations).unwrap_or_default();
    let mut step = Step::new(task.run_id, task.session);
    if let Some(decision) = task.decision {
        step = step.decision(decision);
    }
    if let Some(reason) = task.block {
        step = step.block(reason);
    }
    let heartbeat = ctx.info().heartbeat_timeout.unwrap_or(Duration::from_millis(runner.settings.heartbeat_ms));
    let call = runner.agent.call_step(task.call, &step);
    let done = with_heartbeats(&ctx, heartbeat, call).await;
    match done.result.kind() {
        Some(kind) if retry::retryable(kind, annotations) => {
            let failure = ApplicationFailure::builder(done.result.content.clone())
                .type_name(retry::failure_type(kind))
                .details(done)
                .build();
            Err(failure.into())
        }
        _ => Ok(done),
    }
}

/// Runs `work`, telling the server every third of `timeout` that the worker is alive:
/// when a worker dies in the middle of a call, the server knows within `timeout`.
async fn with_heartbeats<T>(ctx: &ActivityContext, timeout: Duration, work: impl Future<Output = T>) -> T {
    let every = (timeout / 3).max(Duration::from_millis(100));
    let mut work = std::pin::pin!(work);
    // The first beat after a period: a call that ends sooner sends none.
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tokio::select! {
            done = &mut work => return done,
            _ = ticks.tick() => {
                if let Err(error) = ctx.record_heartbeat(()).await {
                    tracing::warn!(%error, "a heartbeat could not be recorded");
                }
            }
        }
    }
}

#[cold]
fn no_runner() -> ActivityError {
    ApplicationFailure::non_retryable("the activity was registered without its agent").into()
}
