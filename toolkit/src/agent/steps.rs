//! A run one step at a time, for an engine that drives the loop itself (a workflow
//! engine such as Temporal: `toolkit-temporal`): what the loop knows as data
//! ([`RunPlan`]), the opening messages, one model turn ([`Agent::reply`]) and one tool
//! call ([`Agent::call_step`]), each exactly as [`Agent::run`] makes it.
//!
//! The engine keeps the conversation and decides what comes next; these steps keep
//! everything else the agent's: its model, its tools, its hooks, its labels and its
//! effect ledger. An engine that records each step's result (as a workflow history
//! does) replays the run without calling the model or any tool again.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Agent, RunSink, distinct_ids};
use crate::call::{ToolCall, ToolResult};
use crate::durable::{CallDecision, PendingCall};
use crate::hook::Decided;
use crate::model::{Message, ModelError, ModelReply, ModelRequest, ToolChoice};
use crate::record::CallRecord;
use crate::spec::Annotations;

/// What an engine needs to know to drive a run of an agent, as data: its limits and,
/// per tool, what decides how a failed call may be retried. An engine fetches it once
/// per run and keeps it with the run (a deploy that changes the agent does not change
/// a run under way).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunPlan {
    /// The agent's name.
    pub agent: Option<String>,
    /// The most model turns a run takes ([`AgentBuilder::max_iterations`](super::AgentBuilder::max_iterations)).
    pub max_iterations: usize,
    /// The most calls of one reply that run ([`AgentBuilder::max_calls_per_turn`](super::AgentBuilder::max_calls_per_turn)).
    pub max_calls_per_turn: usize,
    /// Whether a reply's calls run together ([`AgentBuilder::parallel_tool_calls`](super::AgentBuilder::parallel_tool_calls)).
    pub parallel_tool_calls: bool,
    /// Whether the agent's `tool_choice` forces a call (then the first turns force it,
    /// until a reply makes a call: pass `force_choice` to [`Agent::reply`]).
    pub forces_call: bool,
    /// The tools, in the toolbox's order.
    pub tools: Vec<ToolPlan>,
}

/// One tool as a [`RunPlan`] shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolPlan {
    /// The tool's name.
    pub name: String,
    /// Its annotations (`read_only`, `idempotent`, `destructive`, `open_world`).
    pub annotations: Annotations,
    /// Its own timeout, in milliseconds, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl RunPlan {
    /// The plan of the tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolPlan> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// Where one tool call of a run stands, for [`Agent::call_step`]: the run's labels, the
/// decision it was resumed with, or a reason to block it.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Step {
    run_id: String,
    session: String,
    decision: Option<CallDecision>,
    block: Option<String>,
}

impl Step {
    /// A call of run `run_id` (part of the call's idempotency key) in `session`.
    pub fn new(run_id: impl Into<String>, session: impl Into<String>) -> Self {
        Step { run_id: run_id.into(), session: session.into(), decision: None, block: None }
    }

    /// The call was deferred and is now decided: the decision answers the deferral where
    /// it happens, as in [`Agent::resume`]. Check it against the pending call first
    /// ([`PendingCall::check`]).
    pub fn decision(mut self, decision: CallDecision) -> Self {
        self.decision = Some(decision);
        self
    }

    /// Blocks the call before any hook of the agent's, with `reason` for the model (as
    /// the calls of a reply past `max_calls_per_turn` are): it still gets its result and
    /// its record.
    pub fn block(mut self, reason: impl Into<String>) -> Self {
        self.block = Some(reason.into());
        self
    }
}

/// What one tool call of [`Agent::call_step`] produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StepResult {
    /// The result the model reads.
    pub result: ToolResult,
    /// The call's record (absent only if the call produced none, which the pipeline
    /// does not do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<CallRecord>,
    /// When a hook deferred the call: what whoever decides needs to see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<PendingCall>,
}

impl Agent {
    /// What an engine needs to know to drive this agent's runs ([`RunPlan`]).
    pub fn plan(&self) -> RunPlan {
        let inner = &self.inner;
        RunPlan {
            agent: inner.name.as_deref().map(str::to_owned),
            max_iterations: inner.max_iterations,
            max_calls_per_turn: inner.max_calls_per_turn,
            parallel_tool_calls: inner.parallel_tool_calls,
            forces_call: inner.tool_choice.forces_a_call(),
            tools: inner
                .tools
                .specs()
                .into_iter()
                .map(|spec| ToolPlan {
                    name: spec.name.clone(),
                    annotations: spec.annotations,
                    timeout_ms: spec.timeout.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
                })
                .collect(),
        }
    }

    /// The messages a run on `input` begins with: the system prompt (unless `history`
    /// begins with one), `history`, and `input` as a user message.
    pub fn opening(&self, input: impl Into<String>, history: Vec<Message>) -> Vec<Message> {
        let mut messages = history;
        if let Some(prompt) = &self.inner.system_prompt
            && !matches!(messages.first(), Some(Message::System { .. }))
        {
            messages.insert(0, Message::system(prompt.clone()));
        }
        messages.push(Message::user(input.into()));
        messages
    }

    /// One model turn on `messages`, as a run makes it: the agent's tools, choice
    /// (`force_choice`: whether a forcing `tool_choice` still applies; see
    /// [`RunPlan::forces_call`]), parallel and strict settings. The reply's tool calls
    /// each have their own id.
    pub async fn reply(&self, messages: &[Message], force_choice: bool) -> Result<ModelReply, ModelError> {
        let inner = &self.inner;
        let specs = visible_specs(&inner.tools, messages, inner.model.searches_tools(), inner.tool_filter.as_deref());
        let choice = if force_choice { &inner.tool_choice } else { &ToolChoice::Auto };
        let request = ModelRequest {
            messages,
            tools: &specs,
            tool_choice: choice,
            parallel_tool_calls: inner.parallel_tool_calls,
            strict: inner.strict,
            response_format: None,
            namespaces: inner.tools.namespaces(),
        };
        let mut reply = inner.model.complete(request).await?;
        distinct_ids(&mut reply.message.tool_calls);
        Ok(reply)
    }

    /// One tool call, as a run makes it (the same scope [`Agent::run`] builds): through
    /// the agent's hooks (and its effect ledger), labelled with the run, the session and
    /// the agent, its progress reports and record to the agent's `on_event`, answering a
    /// deferral with the step's decision if it has one. Never fails: every call gets one
    /// result and one record.
    pub async fn call_step(&self, call: ToolCall, step: &Step) -> StepResult {
        let inner = &self.inner;
        let sink = RunSink { records: Arc::default(), on_event: inner.on_event.clone() };
        let (session, run_id) = (Arc::from(step.session.as_str()), Arc::from(step.run_id.as_str()));
        let mut scope = inner.scope(&session, &run_id, [&None, &None], &sink);
        if let Some(decision) = &step.decision {
            let decided = Decided { digest: decision.digest.clone(), approval: decision.approval.clone() };
            scope = inner.decided(scope, HashMap::from([(decision.call_id.clone(), decided)]));
        }
        if let Some(reason) = step.block.clone() {
            scope = scope.blocking("toolkit:step_block", move |_| Some(reason.clone()));
        }
        let pending_of = call.clone();
        let result: ToolResult = inner.tools.call_in(call, &scope).await;
        let record = sink.records.lock().unwrap_or_else(|e| e.into_inner()).pop().map(Arc::unwrap_or_clone);
        let pending = PendingCall::of(&pending_of, &result);
        StepResult { result, record, pending }
    }
}

impl From<ToolResult> for StepResult {
    /// A step that never reached the agent (its worker was lost): the result alone.
    fn from(result: ToolResult) -> Self {
        StepResult { result, record: None, pending: None }
    }
}

/// The tools a model turn on `messages` is shown: every tool of `tools`, or, when some
/// are deferred, those that are not, then each deferred tool a `search_tools` call in
/// `messages` found, in the order found (so the list only ever grows at its end).
/// A model that searches tools itself ([`Model::searches_tools`](crate::model::Model::searches_tools))
/// gets every tool. Then the agent's filter, if any, keeps the tools it lets through.
pub(super) fn visible_specs<'a>(
    tools: &'a crate::toolbox::Toolbox,
    messages: &[Message],
    searches_tools: bool,
    filter: Option<&super::ToolFilter>,
) -> Vec<&'a crate::spec::ToolSpec> {
    let mut visible = found_specs(tools, messages, searches_tools);
    if let Some(filter) = filter {
        visible.retain(|spec| filter(messages, spec));
    }
    visible
}

/// The tools a turn shows before the agent's filter (see [`visible_specs`]).
fn found_specs<'a>(
    tools: &'a crate::toolbox::Toolbox,
    messages: &[Message],
    searches_tools: bool,
) -> Vec<&'a crate::spec::ToolSpec> {
    let specs = tools.specs();
    if !tools.has_deferred() || searches_tools {
        return specs;
    }
    let searches: Vec<&str> = messages
        .iter()
        .filter_map(|m| if let Message::Assistant(a) = m { Some(&a.tool_calls) } else { None })
        .flatten()
        .filter(|call| call.name == crate::search::SEARCH_TOOLS)
        .map(|call| call.id.as_str())
        .collect();
    let mut found: Vec<String> = Vec::new();
    for message in messages {
        if let Message::Tool { tool_call_id, content, .. } = message
            && searches.contains(&tool_call_id.as_str())
        {
            for name in crate::search::found_in(content) {
                if !found.contains(&name) {
                    found.push(name);
                }
            }
        }
    }
    let mut visible: Vec<&crate::spec::ToolSpec> = specs.iter().copied().filter(|spec| !spec.deferred).collect();
    visible.extend(found.iter().filter_map(|name| specs.iter().copied().find(|s| s.deferred && s.name == *name)));
    visible
}
