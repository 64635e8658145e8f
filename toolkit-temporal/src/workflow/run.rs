//! The workflow of an agent run.

use std::time::Duration;

use futures_util::future::join_all;
use temporalio_common::error::IncomingError;
use temporalio_macros::{workflow, workflow_methods};
use temporalio_sdk::{
    ActivityExecutionError, ActivityOptions, ApplicationFailure, SyncWorkflowContext, WorkflowContext,
    WorkflowContextView, WorkflowResult,
};
use toolkit::agent::{RunPlan, StepResult};
use toolkit::durable::{CallDecision, PendingCall, idempotency_key};
use toolkit::model::{Message, Usage};
use toolkit::{ErrorKind, ToolCall, ToolError, ToolResult};

use super::{Refused, RunInput, RunResult, RunStatus};
use crate::activities::{ModelActivity, ModelTask, Opening, PlanActivity, PlanTask, Settings, ToolActivity, ToolTask};
use crate::retry;

/// The workflow of an agent run (type `toolkit.agent`). Start it with
/// [`Agents::start`](crate::Agents::start); it runs on any worker built with
/// [`AgentWorker`](crate::AgentWorker).
///
/// - The plan, each model turn and each tool call are activities; the workflow itself
///   only decides what comes next, from their recorded results, so a worker that
///   replays the history after a crash reaches the same place without calling the
///   model or a tool again.
/// - A call a hook defers (an [`ApprovalGate::deferring`](toolkit::hooks::ApprovalGate::deferring))
///   waits for the signal `decide` with a [`CallDecision`]; the query `status` shows the
///   calls waiting. Nothing waits in a worker's memory: the run may wait for days, and
///   every worker may restart meanwhile.
#[workflow]
#[derive(Default)]
pub struct AgentWorkflow {
    status: RunStatus,
    /// Decisions accepted and not yet used.
    decisions: Vec<CallDecision>,
}

#[workflow_methods]
impl AgentWorkflow {
    /// The run.
    #[run(name = "toolkit.agent")]
    pub async fn run(ctx: &mut WorkflowContext<Self>, input: RunInput) -> WorkflowResult<RunResult> {
        let agent = input.agent;
        let run_id = ctx.workflow_id().to_owned();
        let session = input.session.unwrap_or_else(|| run_id.clone());
        let task = PlanTask { input: input.input, history: input.history };
        let options = ActivityOptions::with_start_to_close_timeout(Duration::from_secs(60))
            // Reading the plan has no effect: retried like a read-only call.
            .retry_policy(retry::backoff(3, Duration::from_secs(30)))
            .build();
        let opening = ctx.execute_activity(PlanActivity::named(retry::plan_activity(&agent)), task, options).await;
        let Opening { plan, mut messages, settings } = match opening {
            Ok(opening) => opening,
            Err(error) => {
                let message = format!(
                    "the plan of agent `{agent}` could not be read ({}): is a worker serving this agent on task queue `{}`?",
                    failure_message(&error),
                    ctx.task_queue()
                );
                return Err(ApplicationFailure::non_retryable(message).into());
            }
        };
        let run = Run { agent, run_id, session, plan, settings };

        let mut records = Vec::new();
        let mut usage = Usage::default();
        let mut force_choice = run.plan.forces_call;
        for iteration in 1..=run.plan.max_iterations {
            ctx.state_mut(|s| s.status.iterations = iteration);
            let task = ModelTask { messages: messages.clone(), force_choice };
            let turn = match ctx
                .execute_activity(ModelActivity::named(retry::model_activity(&run.agent)), task, run.model_options())
                .await
            {
                Ok(turn) => turn,
                Err(error) => {
                    let message = format!("the model call of turn {iteration} failed: {}", failure_message(&error));
                    return Err(ApplicationFailure::non_retryable(message).into());
                }
            };
            usage += turn.usage;
            let calls = turn.message.tool_calls.clone();
            if calls.is_empty() {
                let text = turn.message.content.clone().unwrap_or_default();
                messages.push(Message::Assistant(turn.message));
                return Ok(RunResult {
                    text,
                    messages,
                    records,
                    usage,
                    iterations: iteration,
                    finish_reason: Some(turn.finish_reason),
                });
            }
            messages.push(Message::Assistant(turn.message));
            force_choice = false;

            let limit = run.plan.max_calls_per_turn;
            let tasks: Vec<ToolTask> = calls
                .iter()
                .enumerate()
                .map(|(i, call)| {
                    let block = (i >= limit).then(|| {
                        format!(
                            "not run: this reply asked for {} tool calls and at most {limit} run per reply; ask for it again",
                            calls.len()
                        )
                    });
                    run.task(call.clone(), None, block)
                })
                .collect();
            let mut steps = run.calls(ctx, tasks).await;

            // Calls a hook deferred wait for their decisions; each decided call runs
            // again with its decision, and may be deferred again.
            loop {
                let pending: Vec<PendingCall> = steps.iter().filter_map(|s| s.pending.clone()).collect();
                if pending.is_empty() {
                    break;
                }
                ctx.state_mut(|s| s.status.pending = pending);
                ctx.wait_condition(|s| {
                    s.decisions.iter().any(|d| s.status.pending.iter().any(|p| p.call_id() == d.call_id))
                })
                .await?;
                let decided: Vec<CallDecision> = ctx.state_mut(|s| {
                    let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut s.decisions)
                        .into_iter()
                        .partition(|d| s.status.pending.iter().any(|p| p.call_id() == d.call_id));
                    s.decisions = later;
                    s.status.pending.retain(|p| !now.iter().any(|d| d.call_id == p.call_id()));
                    now
                });
                let mut again = Vec::with_capacity(decided.len());
                let mut at = Vec::with_capacity(decided.len());
                for decision in decided {
                    if let Some(i) = calls.iter().position(|c| c.id == decision.call_id) {
                        at.push(i);
                        again.push(run.task(calls[i].clone(), Some(decision), None));
                    }
                }
                for (i, step) in at.into_iter().zip(run.calls(ctx, again).await) {
                    steps[i] = step;
                }
            }
            ctx.state_mut(|s| s.status.pending.clear());
            for step in steps {
                messages.push(Message::tool(&step.result));
                records.extend(step.record);
            }
        }
        let message = format!(
            "the run took its {} model turns without a final answer (raise max_iterations, or make the task smaller)",
            run.plan.max_iterations
        );
        Err(ApplicationFailure::non_retryable(message).into())
    }

    /// Decides a call waiting for one (signal `decide`). A decision for a call that is
    /// not waiting, for other arguments than it shows, or a second one for one call, is
    /// refused and listed in [`status`](Self::status).
    #[signal(name = "decide")]
    pub fn decide(&mut self, _ctx: &mut SyncWorkflowContext<Self>, decision: CallDecision) {
        let refuse = |reason: String| Refused { call_id: decision.call_id.clone(), reason };
        let Some(pending) = self.status.pending.iter().find(|p| p.call_id() == decision.call_id) else {
            let refused = refuse(format!("call `{}` is not waiting for a decision", decision.call_id));
            self.status.refused.push(refused);
            return;
        };
        if let Err(error) = pending.check(&decision) {
            self.status.refused.push(refuse(error.to_string()));
            return;
        }
        if self.decisions.iter().any(|d| d.call_id == decision.call_id) {
            self.status.refused.push(refuse(format!("call `{}` is decided already", decision.call_id)));
            return;
        }
        self.decisions.push(decision);
    }

    /// Where the run stands (query `status`): its turns, the calls waiting for a
    /// decision, and the decisions refused.
    #[query(name = "status")]
    pub fn status(&self, _ctx: &WorkflowContextView) -> RunStatus {
        self.status.clone()
    }
}

/// What the workflow knows of its run once the plan is read.
struct Run {
    agent: String,
    run_id: String,
    session: String,
    plan: RunPlan,
    settings: Settings,
}

impl Run {
    fn task(&self, call: ToolCall, decision: Option<CallDecision>, block: Option<String>) -> ToolTask {
        ToolTask { run_id: self.run_id.clone(), session: self.session.clone(), call, decision, block }
    }

    fn model_options(&self) -> ActivityOptions {
        let s = self.settings;
        ActivityOptions::with_start_to_close_timeout(Duration::from_millis(s.model_timeout_ms))
            .retry_policy(retry::backoff(s.model_attempts, Duration::from_secs(60)))
            .build()
    }

    /// A call's activity: its id is the call's idempotency key; it heartbeats; it is
    /// retried as [`retryable`](crate::retryable) says.
    fn tool_options(&self, call: &ToolCall) -> ActivityOptions {
        let s = self.settings;
        let tool = self.plan.tool(&call.name);
        let annotations = tool.map(|t| t.annotations).unwrap_or_default();
        // A tool's own timeout (which ends the call first, with its error) plus room for
        // its hooks; the worker's default for a tool without one.
        let timeout = tool.and_then(|t| t.timeout_ms).map_or(s.tool_timeout_ms, |ms| ms.saturating_add(s.heartbeat_ms));
        let mut options = ActivityOptions::with_start_to_close_timeout(Duration::from_millis(timeout))
            .heartbeat_timeout(Duration::from_millis(s.heartbeat_ms))
            .retry_policy(retry::tool_retry_policy(annotations, s.tool_attempts))
            .summary(call.name.clone())
            .build();
        options.activity_id = Some(idempotency_key(Some(&self.run_id), &call.id, &call.arguments));
        options
    }

    /// Runs calls as activities: together when the agent runs a reply's calls in
    /// parallel, else one by one. One result per call, in order.
    async fn calls(&self, ctx: &WorkflowContext<AgentWorkflow>, tasks: Vec<ToolTask>) -> Vec<StepResult> {
        if self.plan.parallel_tool_calls {
            let running = tasks.into_iter().map(|task| self.call(ctx, task));
            return join_all(running).await;
        }
        let mut done = Vec::with_capacity(tasks.len());
        for task in tasks {
            done.push(self.call(ctx, task).await);
        }
        done
    }

    async fn call(&self, ctx: &WorkflowContext<AgentWorkflow>, task: ToolTask) -> StepResult {
        let call = task.call.clone();
        let options = self.tool_options(&call);
        let activity = ToolActivity::named(retry::tool_activity(&self.agent, &call.name));
        match ctx.execute_activity(activity, task, options).await {
            Ok(step) => step,
            Err(error) => self.lost(call, &error),
        }
    }

    /// The result of a call whose activity failed for good: the last attempt's own
    /// result when the tool failed in a way it may be retried for; otherwise the worker
    /// running it was lost (or timed out), and the call may or may not have taken effect.
    fn lost(&self, call: ToolCall, error: &ActivityExecutionError) -> StepResult {
        if let Some(IncomingError::Application(failure)) = error.cause()
            && let Ok(Some(step)) = failure.details::<StepResult>()
        {
            return step;
        }
        let annotations = self.plan.tool(&call.name).map(|t| t.annotations).unwrap_or_default();
        let error = if retry::repeatable(annotations) {
            ToolError::new(
                ErrorKind::Unavailable,
                format!("the call could not be completed: {}; try again later", failure_message(error)),
            )
        } else {
            ToolError::new(
                ErrorKind::InDoubt,
                format!(
                    "the worker running this call was lost ({}); it may or may not have taken effect, and it was \
                     not run again: check before asking for it again",
                    failure_message(error)
                ),
            )
        };
        StepResult::from(ToolResult::failed(call.id, call.name, error))
    }
}

/// The message of an activity's failure, its cause's when it has one.
fn failure_message(error: &ActivityExecutionError) -> String {
    match error.cause() {
        Some(cause) => cause.failure().message.clone(),
        None => error.to_string(),
    }
}
