//! Who a call is made for: the [`Scope`] of labels, hooks and record sinks.

use std::collections::HashMap;
use std::sync::Arc;

use super::decision::Decided;
use super::registry::Hooks;
use crate::record::{RecordSink, Sinks};

/// Who a call is made for: agent, task and session labels (hooks read them; records
/// carry them), the agent's own hooks, and record sinks of its own (an agent collects
/// the records of one run this way). Pass one to
/// [`Toolbox::call_in`](crate::Toolbox::call_in).
///
/// ```
/// use toolkit::hook::Scope;
/// let scope = Scope::new().with_agent("researcher").with_session("s-42");
/// assert_eq!(scope.agent(), Some("researcher"));
/// ```
#[derive(Clone, Default, Debug)]
pub struct Scope {
    pub(crate) agent: Option<Arc<str>>,
    pub(crate) task: Option<Arc<str>>,
    pub(crate) session: Option<Arc<str>>,
    pub(crate) parent: Option<Arc<str>>,
    /// The run the calls belong to: part of their idempotency keys.
    pub(crate) run: Option<Arc<str>>,
    /// The decisions a resumed run's calls carry, by call id.
    pub(crate) decisions: Option<Arc<HashMap<String, Decided>>>,
    pub(crate) hooks: Hooks,
    pub(crate) sinks: Sinks,
    /// Where the calls' progress reports go.
    pub(crate) progress: Option<crate::progress::ProgressTo>,
}

impl Scope {
    /// No labels, no hooks, no sinks.
    pub const fn new() -> Self {
        Scope {
            agent: None,
            task: None,
            session: None,
            parent: None,
            run: None,
            decisions: None,
            hooks: Hooks::new(),
            sinks: Sinks::new(),
            progress: None,
        }
    }

    /// Also delivers the [`CallRecord`](crate::CallRecord) of every call made in this
    /// scope to `sink`, after the toolbox's own sinks.
    pub fn with_sink(mut self, sink: impl RecordSink) -> Self {
        self.sinks.push(Arc::new(sink));
        self
    }

    /// Sets the agent label.
    pub fn with_agent(mut self, agent: impl Into<Arc<str>>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// Sets the task label.
    pub fn with_task(mut self, task: impl Into<Arc<str>>) -> Self {
        self.task = Some(task.into());
        self
    }

    /// Sets the session label.
    pub fn with_session(mut self, session: impl Into<Arc<str>>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// Sets the id of the call this scope's calls are made inside (an agent used as a
    /// tool runs its calls in a scope whose parent is the outer call).
    pub fn with_parent(mut self, call_id: impl Into<Arc<str>>) -> Self {
        self.parent = Some(call_id.into());
        self
    }

    /// The run these calls belong to: part of every call's
    /// [idempotency key](crate::CallContext::idempotency_key), so that one call id in two
    /// runs is two calls (agents set it; see [`RunState::run_id`](crate::durable::RunState::run_id)).
    pub fn with_run(mut self, run: impl Into<Arc<str>>) -> Self {
        self.run = Some(run.into());
        self
    }

    /// Sends the progress the calls of this scope report
    /// ([`CallContext::progress`](crate::CallContext::progress)) to `sink`.
    pub fn with_progress(mut self, sink: impl crate::progress::ProgressSink) -> Self {
        self.progress = Some(crate::progress::ProgressTo(Arc::new(sink)));
        self
    }

    /// The run id (see [`with_run`](Scope::with_run)).
    pub fn run(&self) -> Option<&str> {
        self.run.as_deref()
    }

    pub(crate) fn with_decisions(mut self, decisions: HashMap<String, Decided>) -> Self {
        self.decisions = Some(Arc::new(decisions));
        self
    }

    pub(crate) fn decision(&self, call_id: &str) -> Option<&Decided> {
        self.decisions.as_ref()?.get(call_id)
    }

    /// This scope with a hook, first of all, named after `name` (made unique among the
    /// scope's hooks), that blocks the calls `reason` gives a reason for (by call id),
    /// saying it: such a call still gets its result and its record.
    pub(crate) fn blocking(
        mut self,
        name: &str,
        reason: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        let block = move |call: &mut super::BeforeCall<'_>| match reason(call.call_id()) {
            Some(reason) => super::Decision::Block(reason),
            None => super::Decision::Continue,
        };
        let mut name = name.to_owned();
        while self.hooks.names().iter().any(|n| *n == name) {
            name.push('_');
        }
        let added = self.hooks.add(super::Hook::before(name, block).priority(i32::MAX));
        debug_assert!(added.is_ok(), "the name was free");
        self
    }

    /// Sets the scope's (agent's) hooks; they run after global and toolbox hooks of the
    /// same priority.
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// The scope's hooks, to add or remove some.
    pub fn hooks_mut(&mut self) -> &mut Hooks {
        &mut self.hooks
    }

    /// The agent label.
    pub fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// The task label.
    pub fn task(&self) -> Option<&str> {
        self.task.as_deref()
    }

    /// The session label.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The id of the call this scope's calls are made inside, if any.
    pub fn parent(&self) -> Option<&str> {
        self.parent.as_deref()
    }
}

pub(crate) static NO_SCOPE: Scope = Scope::new();
