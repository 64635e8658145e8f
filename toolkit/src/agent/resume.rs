//! Resuming a paused run: [`Agent::resume`], the request it returns, and the checks a
//! resume passes before anything runs.

use std::collections::HashMap;
use std::future::{Future, IntoFuture};
use std::pin::Pin;

use tracing::Instrument;

use super::{Agent, AgentError, AgentRun, Inner, Labels, Start};
use crate::durable::{CallDecision, ResumeError, RunState};
use crate::hook::Decided;

impl Agent {
    /// Continues a paused run ([`AgentError::Paused`]) with a decision per pending call,
    /// in this process or any other; await the returned request.
    ///
    /// The calls of the paused turn that finished keep their results; each pending call
    /// runs again through every hook, and where a hook defers it, its decision answers
    /// the deferral: approved (the call goes on), approved with edited arguments (they
    /// replace the arguments, and the hooks after it see them), or denied (the model reads
    /// ``blocked: the user rejected this call: {message}``). A pending call with no
    /// decision stays pending: the run pauses again. The run then goes on as it would
    /// have, and may pause again.
    ///
    /// Each decision is bound to the call id and the digest of the arguments shown
    /// ([`PendingCall::digest`](crate::durable::PendingCall::digest)): a decision for
    /// another call or other arguments is refused ([`AgentError::Resume`]) before
    /// anything runs. A call a decision lets run goes through the agent's
    /// [`EffectLedger`](crate::hooks::EffectLedger): resuming the same state twice, from
    /// two processes at once, or after a crash never runs it twice; the second attempt
    /// gets the recorded result (outcome `replayed`) or is told the call is in doubt.
    /// Across processes this needs [`AgentBuilder::durable`](super::AgentBuilder::durable) with a shared store.
    ///
    /// A resumed run goes on as a plain run: a run started with
    /// [`run_typed`](Agent::run_typed) or [`run_stream`](Agent::run_stream) that pauses is
    /// resumed without its answer type or its stream (neither is part of the state); its
    /// events still reach [`on_event`](super::AgentBuilder::on_event).
    pub fn resume(&self, state: RunState, decisions: impl IntoIterator<Item = CallDecision>) -> ResumeRequest<'_> {
        ResumeRequest { agent: self, state: Box::new(state), decisions: decisions.into_iter().collect() }
    }
}

/// A paused run being resumed ([`Agent::resume`]), ready to be awaited.
#[must_use = "a run does nothing until awaited"]
pub struct ResumeRequest<'a> {
    agent: &'a Agent,
    state: Box<RunState>,
    decisions: Vec<CallDecision>,
}

impl<'a> IntoFuture for ResumeRequest<'a> {
    type Output = Result<AgentRun, AgentError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        let inner = &self.agent.inner;
        let span = tracing::info_span!(
            "invoke_agent",
            gen_ai.operation.name = "invoke_agent",
            gen_ai.agent.name = inner.name.as_deref(),
            gen_ai.request.model = inner.model.name(),
            toolkit.run.id = self.state.run_id(),
            toolkit.run.resumed = true,
        );
        let labels = Labels { session: None, task: None, parent: None };
        Box::pin(
            async move {
                let decisions = match inner.check_resume(&self.state, self.decisions) {
                    Ok(decisions) => decisions,
                    Err(error) => return Err(AgentError::Resume { error, run: Box::new(AgentRun::of(*self.state)) }),
                };
                inner.drive(Start::Resume { state: self.state, decisions }, labels, None, None).await
            }
            .instrument(span),
        )
    }
}

impl Inner {
    /// The decisions of a resume, checked against the state before anything runs.
    fn check_resume(
        &self,
        state: &RunState,
        decisions: Vec<CallDecision>,
    ) -> Result<HashMap<String, Decided>, ResumeError> {
        if state.agent() != self.name.as_deref() {
            return Err(ResumeError::OtherAgent {
                expected: self.name.as_deref().map(str::to_owned),
                found: state.agent().map(str::to_owned),
            });
        }
        let mut checked = HashMap::with_capacity(decisions.len());
        for decision in decisions {
            let Some(pending) = state.pending().iter().find(|p| p.call_id() == decision.call_id) else {
                return Err(ResumeError::UnknownCall(decision.call_id));
            };
            pending.check(&decision)?;
            let CallDecision { call_id, digest, approval } = decision;
            if checked.insert(call_id.clone(), Decided { digest, approval }).is_some() {
                return Err(ResumeError::DuplicateDecision(call_id));
            }
        }
        Ok(checked)
    }
}
