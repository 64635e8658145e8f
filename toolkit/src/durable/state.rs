//! A paused run as data: [`RunState`], its [`PendingCall`]s, and the [`CallDecision`]s
//! that answer them.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::call::{ToolCall, ToolResult};
use crate::hook::Approval;
use crate::model::{Message, Usage};
use crate::record::CallRecord;

/// The version of the [`RunState`] format this build writes and reads.
pub const STATE_VERSION: u32 = 1;

/// Everything needed to continue a paused agent run, in this process or any other: the
/// conversation, the turn it paused in, the calls waiting for a decision, the records
/// and usage so far, and the loop's progress. Serializes to JSON (format version 1,
/// documented in [`durable`](crate::durable#the-format)).
///
/// Obtained from [`AgentError::Paused`](crate::agent::AgentError::Paused); continued
/// with [`Agent::resume`](crate::agent::Agent::resume); kept in a
/// [`RunStore`](super::RunStore) or wherever you like ([`to_json`](RunState::to_json),
/// [`from_json`](RunState::from_json)). A state written by a later format version is
/// refused with [`StateError::UnknownVersion`], never misread.
///
/// It holds the tools' arguments and results as the model saw them: treat it like the
/// conversation itself. Its `Debug` shows no arguments.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct RunState {
    version: u32,
    pub(crate) run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    pub(crate) session: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) parent: Option<String>,
    /// Unix milliseconds.
    pub(crate) paused_at: u64,
    pub(crate) iterations: usize,
    pub(crate) usage: Usage,
    pub(crate) messages: Vec<Message>,
    pub(crate) turn: Vec<TurnCall>,
    pub(crate) pending: Vec<PendingCall>,
    pub(crate) records: Vec<Arc<CallRecord>>,
    pub(crate) progress: Progress,
}

/// One call of the turn the run paused in, with its result if it finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TurnCall {
    pub(crate) call: ToolCall,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<ToolResult>,
}

/// Where the loop stood: what it has spent of its allowances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct Progress {
    /// A forced `tool_choice` (required, or a named tool) was used on the first turn.
    pub(crate) choice_spent: bool,
    /// Continuations asked for after answers cut by the token limit.
    pub(crate) continuations: usize,
    /// Corrections asked for after answers that did not fit the required type.
    pub(crate) corrections: usize,
}

/// A call a hook deferred: what whoever decides needs to see, and the digest a decision
/// on it is bound to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCall {
    pub(crate) call_id: String,
    pub(crate) tool: String,
    /// The arguments as the deferring hook saw them (after earlier hooks' rewrites).
    pub(crate) arguments: String,
    pub(crate) reason: String,
    pub(crate) digest: String,
}

impl PendingCall {
    /// The pending call a result stands for, when a hook deferred `call`
    /// ([`ErrorKind::Deferred`](crate::ErrorKind::Deferred)): the arguments the deferring
    /// hook saw, its reason, and their digest.
    pub fn of(call: &ToolCall, result: &ToolResult) -> Option<PendingCall> {
        if result.kind() != Some(crate::error::ErrorKind::Deferred) {
            return None;
        }
        let shown = result.error.as_ref().and_then(|e| e.detail.clone()).unwrap_or_else(|| call.arguments.clone());
        let reason = result.content.strip_prefix("deferred: ").unwrap_or(&result.content).to_owned();
        Some(PendingCall {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            digest: crate::digest::text_digest(&shown),
            arguments: shown,
            reason,
        })
    }

    /// Whether `decision` answers this call: made for its id and for the arguments it
    /// shows (the digest the decision carries, the call's, and the one of the arguments
    /// it shows all agree). A decision that does not is refused before anything runs.
    pub fn check(&self, decision: &CallDecision) -> Result<(), ResumeError> {
        if decision.call_id != self.call_id {
            return Err(ResumeError::UnknownCall(decision.call_id.clone()));
        }
        if decision.digest != self.digest || crate::digest::text_digest(&self.arguments) != self.digest {
            return Err(ResumeError::ArgumentsChanged { call_id: decision.call_id.clone() });
        }
        Ok(())
    }

    /// The call id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The arguments the call would run with, as JSON text (after the rewrites of the
    /// hooks before the one that deferred it). Redact before showing them to anyone who
    /// may not see secrets ([`Redactor::redact`](crate::hooks::Redactor::redact)).
    pub fn arguments(&self) -> &str {
        &self.arguments
    }

    /// Why it was deferred (the hook's reason).
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The SHA-256 of the arguments' canonical JSON, in hex: what a decision is bound to.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Approves the call as it is.
    pub fn approve(&self) -> CallDecision {
        self.decide(Approval::Approve)
    }

    /// Approves the call with these arguments instead (they still go through every
    /// hook, and must fit the tool).
    pub fn approve_with(&self, arguments: Map<String, Value>) -> CallDecision {
        self.decide(Approval::ApproveWith(arguments))
    }

    /// Denies the call; the model reads ``blocked: the user rejected this call: {message}``.
    pub fn deny(&self, message: impl Into<String>) -> CallDecision {
        self.decide(Approval::Reject(message.into()))
    }

    /// `approval` for this call, bound to its id and the digest of its arguments.
    pub fn decide(&self, approval: Approval) -> CallDecision {
        CallDecision { call_id: self.call_id.clone(), digest: self.digest.clone(), approval }
    }
}

/// A decision on one pending call, bound to the call id and the digest of the arguments
/// that were shown: it answers that call with those arguments and nothing else, and it
/// is used once (a call it let run is run at most once, whatever is resumed or replayed:
/// see [`Agent::resume`](crate::agent::Agent::resume)). Serializable, so a web page or a
/// queue can carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallDecision {
    /// The call it answers.
    pub call_id: String,
    /// The digest of the arguments it was made for ([`PendingCall::digest`]).
    pub digest: String,
    /// What was decided.
    pub approval: Approval,
}

/// Why a text is not a run state this build can read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// A later (or unknown) format version: resume it with a build that reads it.
    #[error(
        "this run state is format version {found}; this build reads version {known} and refuses what it does not \
         know rather than misread it: resume it with a build that knows version {found}"
    )]
    UnknownVersion {
        /// The version in the state.
        found: u64,
        /// The version this build reads.
        known: u32,
    },
    /// Not a run state, or a damaged one.
    #[error("not a readable run state: {0}")]
    Malformed(String),
}

impl RunState {
    /// The run's id: unique per run, kept across pauses and resumes, and part of every
    /// call's [idempotency key](crate::CallContext::idempotency_key).
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The agent's name, when it has one (a state is resumed by an agent of that name).
    pub fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// The run's session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The run's task label.
    pub fn task(&self) -> Option<&str> {
        self.task.as_deref()
    }

    /// The calls waiting for a decision, in call order.
    pub fn pending(&self) -> &[PendingCall] {
        &self.pending
    }

    /// The conversation so far, ending with the assistant message of the paused turn.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// One record per call so far, the deferred ones included.
    pub fn records(&self) -> &[Arc<CallRecord>] {
        &self.records
    }

    /// The tokens used so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The model turns taken so far.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// When the run paused.
    pub fn paused_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.paused_at)
    }

    /// The state as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| unreachable!("a run state is JSON: {e}"))
    }

    /// A state from JSON text: refused if its version is not this build's.
    pub fn from_json(text: &str) -> Result<RunState, StateError> {
        let value: Value = serde_json::from_str(text).map_err(|e| StateError::Malformed(e.to_string()))?;
        RunState::from_value(value)
    }

    fn from_value(value: Value) -> Result<RunState, StateError> {
        match value.get("version").map(Value::as_u64) {
            Some(Some(1)) => RunState::deserialize(value).map_err(|e| StateError::Malformed(e.to_string())),
            Some(Some(found)) => Err(StateError::UnknownVersion { found, known: STATE_VERSION }),
            _ => Err(StateError::Malformed("no `version` number: not a toolkit run state".to_owned())),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        run_id: String,
        agent: Option<String>,
        labels: [Option<String>; 3],
        messages: Vec<Message>,
        turn: Vec<TurnCall>,
        pending: Vec<PendingCall>,
        records: Vec<Arc<CallRecord>>,
        (iterations, usage, progress): (usize, Usage, Progress),
    ) -> Self {
        let [session, task, parent] = labels;
        RunState {
            version: STATE_VERSION,
            run_id,
            agent,
            session: session.unwrap_or_default(),
            task,
            parent,
            paused_at: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64),
            iterations,
            usage,
            messages,
            turn,
            pending,
            records,
            progress,
        }
    }
}

impl Serialize for RunState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RunState::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for RunState {
    /// Reads the version first: a state of a version this build does not know is an
    /// error saying so, whatever else it holds.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        RunState::from_value(value).map_err(serde::de::Error::custom)
    }
}

impl fmt::Debug for RunState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pending: Vec<(&str, &str)> = self.pending.iter().map(|p| (p.call_id.as_str(), p.tool.as_str())).collect();
        f.debug_struct("RunState")
            .field("run_id", &self.run_id)
            .field("agent", &self.agent)
            .field("iterations", &self.iterations)
            .field("messages", &self.messages.len())
            .field("pending", &pending)
            .finish_non_exhaustive()
    }
}

/// Why a paused run was not resumed ([`AgentError::Resume`](crate::agent::AgentError::Resume)): nothing ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The state belongs to an agent of another name.
    #[error("this run belongs to agent {found:?}; it was resumed by agent {expected:?}")]
    OtherAgent {
        /// The resuming agent's name.
        expected: Option<String>,
        /// The state's.
        found: Option<String>,
    },
    /// A decision names a call that is not pending in this state.
    #[error("a decision names call `{0}`, which is not pending in this run")]
    UnknownCall(String),
    /// Two decisions name one call.
    #[error("two decisions name call `{0}`")]
    DuplicateDecision(String),
    /// A decision was made for other arguments than the pending call's (the state or
    /// the decision was changed after the decision was made).
    #[error(
        "the decision on call `{call_id}` was made for other arguments than the call has now; nothing was run: \
         decide again on what the call holds"
    )]
    ArgumentsChanged {
        /// The call.
        call_id: String,
    },
}
