//! The scope a run's calls are made in: labels, hooks, records, progress, the decisions
//! of a resume, and the blocks the loop itself imposes. The loop, a resume and an
//! engine's step ([`Agent::call_step`](super::Agent::call_step)) all build it here.

use std::collections::HashMap;
use std::sync::Arc;

use super::{AgentEvent, Inner, RunSink, emit};
use crate::call::ToolCall;
use crate::hook::{Decided, Scope};

impl Inner {
    /// `scope` with a hook, first of all, that blocks the calls of this turn past
    /// [`max_calls_per_turn`](crate::agent::AgentBuilder::max_calls_per_turn), saying why.
    pub(super) fn limit_calls(&self, scope: &Scope, calls: &[ToolCall]) -> Scope {
        let (limit, asked) = (self.max_calls_per_turn, calls.len());
        let over: std::collections::HashSet<String> = calls[limit..].iter().map(|c| c.id.clone()).collect();
        let reason = format!(
            "not run: this reply asked for {asked} tool calls and at most {limit} run per reply; ask for it again"
        );
        scope
            .clone()
            .blocking("toolkit:max_calls_per_turn", move |call_id| over.contains(call_id).then(|| reason.clone()))
    }

    /// The scope of a run's calls: its labels, the agent's hooks, `sink` for the
    /// records, and the run's events for progress reports.
    pub(super) fn scope(
        &self,
        session: &Arc<str>,
        run_id: &Arc<str>,
        labels: [&Option<Arc<str>>; 2],
        sink: &RunSink,
    ) -> Scope {
        let [task, parent] = labels;
        let mut scope = Scope::new()
            .with_session(Arc::clone(session))
            .with_run(Arc::clone(run_id))
            .with_hooks(self.hooks.clone())
            .with_sink(sink.clone());
        if let Some(name) = &self.name {
            scope = scope.with_agent(Arc::clone(name));
        }
        if let Some(task) = task {
            scope = scope.with_task(Arc::clone(task));
        }
        if let Some(parent) = parent {
            scope = scope.with_parent(Arc::clone(parent));
        }
        if let Some(on_event) = sink.on_event.clone() {
            let on_event = Some(on_event);
            scope = scope.with_progress(move |report: &crate::progress::Progress<'_>| {
                emit(&on_event, &AgentEvent::ToolProgress { report });
            });
        }
        scope
    }

    /// `scope` for calls resumed with `decisions`: each answers its call's deferral,
    /// and the resume hooks (a ledger in memory, when the agent is not durable) see that
    /// a call a decision lets run runs at most once.
    pub(super) fn decided(&self, scope: Scope, decisions: HashMap<String, Decided>) -> Scope {
        let mut scope = scope.with_decisions(decisions);
        for hook in &self.resume_hooks {
            // The names are the ledger's own; an agent hook of the same name is the
            // user's ledger, which then does the job.
            let _ = scope.hooks_mut().add(hook.clone());
        }
        scope
    }
}
