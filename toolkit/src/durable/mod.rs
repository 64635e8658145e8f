//! Runs that outlive a process (DESIGN §7b): a run is data, not a future.
//!
//! - A before hook defers a call ([`Decision::Defer`](crate::Decision::Defer);
//!   [`ApprovalGate::deferring`](crate::hooks::ApprovalGate::deferring) does it for
//!   approvals). The agent finishes the other calls of the turn and returns
//!   [`AgentError::Paused`](crate::agent::AgentError::Paused) with a [`RunState`]: the
//!   conversation, the calls waiting ([`PendingCall`]) and everything else the loop needs.
//! - The state is kept anywhere ([`RunStore`] over memory, a directory or Redis, or its
//!   JSON wherever you like), shown to whoever decides, and continued by
//!   [`Agent::resume`](crate::agent::Agent::resume) in this process or any other, with a
//!   [`CallDecision`] per pending call: approve, approve with edited arguments, or deny
//!   with a message the model reads.
//! - A decision is bound to the call id and the digest of the arguments that were shown,
//!   and a call it lets run runs at most once: the
//!   [`EffectLedger`](crate::hooks::EffectLedger) records it as started and finished, so
//!   resuming twice, resuming from two processes at once, or replaying the state after
//!   a crash returns the recorded result, or reports the call as in doubt, never runs it
//!   again.
//! - Every call has an [idempotency key](crate::CallContext::idempotency_key), stable for
//!   (run, call id, arguments) across attempts, processes and replays: pass it to the
//!   APIs your tools call.
//!
//! ```
//! use toolkit::prelude::*;
//! use toolkit::agent::AgentError;
//! use toolkit::hooks::{ApprovalGate, MemoryStore};
//!
//! /// Refund an order.
//! #[tool(destructive)]
//! fn refund(order: u32) -> String { format!("refunded order {order}") }
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let model = ScriptedModel::new([Turn::call("refund", r#"{"order": 42}"#), Turn::text("Order 42 is refunded.")]);
//! let agent = Agent::builder(model, toolbox![refund])
//!     .hook(ApprovalGate::deferring().destructive())
//!     .durable(MemoryStore::new())
//!     .build()?;
//!
//! // The run pauses on the refund: nothing waits in memory.
//! let Err(AgentError::Paused { state, .. }) = agent.run("Refund order 42").await else { panic!() };
//! let json = state.to_json(); // keep it anywhere
//!
//! // Later, anywhere: a person approves exactly what was shown.
//! let state = toolkit::durable::RunState::from_json(&json)?;
//! let approve = state.pending()[0].approve();
//! let run = agent.resume(state, [approve]).await?;
//! assert_eq!(run.text, "Order 42 is refunded.");
//! # Ok(()) }
//! ```
//!
//! # The format
//!
//! A [`RunState`] is a JSON object whose first field is `"version": 1`; a state of
//! another version is refused ([`StateError::UnknownVersion`]). Its fields:
//!
//! | field | what |
//! |---|---|
//! | `version` | `1` |
//! | `run_id` | the run's id (part of every call's idempotency key) |
//! | `agent`, `session`, `task`, `parent` | the run's labels (`agent` absent for an unnamed agent) |
//! | `paused_at` | Unix milliseconds |
//! | `iterations`, `usage` | model turns taken, tokens used (`prompt_tokens`, `completion_tokens`, `total_tokens`) |
//! | `messages` | the conversation in the Chat Completions wire format, ending with the assistant message of the paused turn |
//! | `turn` | that turn's calls in order, each `{"call": {id, name, arguments}, "result"?: {call_id, name, content, error?}}`; a call with no `result` is pending |
//! | `pending` | `[{call_id, tool, arguments, reason, digest}]`: `arguments` as the deferring hook saw them (JSON text), `digest` the SHA-256 of their canonical JSON |
//! | `records` | one [`CallRecord`](crate::CallRecord) per call so far |
//! | `progress` | `{choice_spent, continuations, corrections}`: what the loop spent of its allowances |
//!
//! A [`CallDecision`] is `{"call_id", "digest", "approval"}` with `approval` one of
//! `"approve"`, `{"approve_with": {...}}`, `{"reject": "message"}`.

mod runs;
mod state;

pub use crate::digest::idempotency_key;
pub use runs::{RunStore, RunStoreError};
pub use state::{CallDecision, PendingCall, ResumeError, RunState, STATE_VERSION, StateError};
pub(crate) use state::{Progress, TurnCall};
