//! An agent run as a workflow: the loop's decisions in deterministic code, the model and
//! the tools in activities, approvals as signals. What a run takes and gives is here;
//! the workflow itself in `run`.

// The workflow macros add an undocumented constant per method.
#[allow(missing_docs)]
mod run;

pub use run::AgentWorkflow;

use serde::{Deserialize, Serialize};
use toolkit::CallRecord;
use toolkit::durable::PendingCall;
use toolkit::model::{FinishReason, Message, Usage};

/// What a run starts from: the agent (by name) and the user's message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunInput {
    /// The agent's name, as the worker serves it.
    pub agent: String,
    /// The user's message.
    pub input: String,
    /// Earlier messages to continue a conversation from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
    /// The session its calls are labelled with (default: the run's id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl RunInput {
    /// A run of `agent` on `input`.
    pub fn new(agent: impl Into<String>, input: impl Into<String>) -> Self {
        RunInput { agent: agent.into(), input: input.into(), history: Vec::new(), session: None }
    }

    /// Continues the conversation of `messages`.
    pub fn history(mut self, messages: Vec<Message>) -> Self {
        self.history = messages;
        self
    }

    /// Labels its calls with `session`.
    pub fn session(mut self, session: impl Into<String>) -> Self {
        self.session = Some(session.into());
        self
    }
}

/// What a finished run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunResult {
    /// The final answer.
    pub text: String,
    /// The whole conversation, as [`AgentRun::messages`](toolkit::agent::AgentRun::messages).
    pub messages: Vec<Message>,
    /// One record per tool call, in call order.
    pub records: Vec<CallRecord>,
    /// Tokens used, summed over every model turn.
    pub usage: Usage,
    /// Model turns taken.
    pub iterations: usize,
    /// Why the model stopped the last time.
    pub finish_reason: Option<FinishReason>,
}

/// Where a run stands, for a query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunStatus {
    /// Model turns taken so far.
    pub iterations: usize,
    /// The calls waiting for a decision.
    pub pending: Vec<PendingCall>,
    /// Decisions the run refused, and why (a decision for a call that is not pending,
    /// for other arguments, or a second one for one call).
    pub refused: Vec<Refused>,
}

/// A decision a run refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Refused {
    /// The call it named.
    pub call_id: String,
    /// Why it was refused.
    pub reason: String,
}
