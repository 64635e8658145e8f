//! Building an [`Agent`]: its model, toolbox, hooks, limits and options.

use std::sync::Arc;

use super::{Agent, AgentEvent, Inner, OnLength};
use crate::hook::{DuplicateHook, Hook};
use crate::hooks::EffectLedger;
use crate::model::ToolChoice;

/// Builds an [`Agent`].
pub struct AgentBuilder {
    pub(super) inner: Inner,
    /// The first mistake found; `build` reports it.
    pub(super) problem: Option<AgentBuildError>,
}

/// A mistake in an agent's configuration, reported by [`AgentBuilder::build`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentBuildError {
    /// `tool_choice` names a tool the toolbox does not have.
    #[error("tool_choice names `{name}`, which is not in the toolbox (it has: {available})")]
    UnknownToolChoice {
        /// The name given.
        name: String,
        /// The toolbox's tools.
        available: String,
    },
    /// `max_iterations` is 0: the model could never be asked.
    #[error("max_iterations must be at least 1")]
    NoIterations,
    /// Two agent hooks share a name.
    #[error("{0}")]
    DuplicateHook(String),
}

impl AgentBuilder {
    /// The agent's name or role: the `agent` label hooks see and records carry.
    pub fn name(mut self, name: impl Into<Arc<str>>) -> Self {
        self.inner.name = Some(name.into());
        self
    }

    /// The system prompt, sent first in every run (unless the history has one).
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.inner.system_prompt = Some(prompt.into());
        self
    }

    /// What to do with an answer cut by the token limit (default: return it).
    pub fn on_length(mut self, policy: OnLength) -> Self {
        self.inner.on_length = policy;
        self
    }

    /// The most model turns in one run (default 10); past it the run ends with
    /// [`AgentError::MaxIterations`](super::AgentError::MaxIterations).
    pub fn max_iterations(mut self, n: usize) -> Self {
        self.inner.max_iterations = n;
        self
    }

    /// How many times a typed run ([`Agent::run_typed`](super::Agent::run_typed)) asks
    /// the model again, with the reason, when its answer does not fit the type (default
    /// 2).
    pub fn answer_retries(mut self, retries: usize) -> Self {
        self.inner.answer_retries = retries;
        self
    }

    /// Whether, and which, tools the model must call (default [`ToolChoice::Auto`]).
    ///
    /// `Required` and a named tool bind the **first** turn only; once the model has
    /// called tools, later turns use `Auto` so that it can answer (otherwise it could
    /// only ever call tools, until `max_iterations`). `None` holds for every turn.
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.inner.tool_choice = choice;
        self
    }

    /// Whether the model may ask for several calls in one message (default `true`);
    /// the calls of one message run concurrently when on, one after another when off.
    pub fn parallel_tool_calls(mut self, parallel: bool) -> Self {
        self.inner.parallel_tool_calls = parallel;
        self
    }

    /// The most tool calls run from one reply (default 64). A reply that asks for more
    /// gets the rest blocked, each with a result saying why (and its record), rather
    /// than a burst of thousands of calls from one reply.
    pub fn max_calls_per_turn(mut self, n: usize) -> Self {
        self.inner.max_calls_per_turn = n;
        self
    }

    /// Sends every tool in strict mode (OpenAI Structured Outputs; default `false`:
    /// only tools declared `strict`).
    pub fn strict(mut self, strict: bool) -> Self {
        self.inner.strict = strict;
        self
    }

    /// Adds an agent-scoped hook: it acts on this agent's calls only, after global and
    /// toolbox hooks of the same priority.
    pub fn hook(mut self, hook: impl Into<Hook>) -> Self {
        if let Err(e @ DuplicateHook(_)) = self.inner.hooks.add(hook.into()) {
            self.problem.get_or_insert(AgentBuildError::DuplicateHook(e.to_string()));
        }
        self
    }

    /// Adds agent-scoped hooks.
    pub fn hooks(mut self, hooks: impl IntoIterator<Item = Hook>) -> Self {
        for hook in hooks {
            self = self.hook(hook);
        }
        self
    }

    /// Chooses, each turn, which tools the model is shown: `filter` sees the
    /// conversation so far and each tool (after deferral: see [`search`](crate::search))
    /// and keeps those it returns `true` for. An allow-list, a rule on the tools'
    /// annotations, or a choice by what the conversation is about. The toolbox and its
    /// hooks still govern every call, whichever tools the model saw; a `tool_choice`
    /// naming a tool the filter hides is the provider's to refuse.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::agent::Agent;
    /// use toolkit::model::{Message, ScriptedModel, Turn};
    ///
    /// /// Read a file.
    /// #[tool(read_only)]
    /// fn read(path: String) -> String { path }
    ///
    /// /// Delete a file.
    /// #[tool(destructive)]
    /// fn delete(path: String) -> String { path }
    ///
    /// let model = ScriptedModel::new([Turn::text("ok")]);
    /// // Destructive tools only once the user has said "delete".
    /// let agent = Agent::builder(model.clone(), toolbox![read, delete])
    ///     .tool_filter(|messages: &[Message], tool: &toolkit::ToolSpec| {
    ///         !tool.annotations.destructive
    ///             || messages.iter().any(|m| matches!(m, Message::User { content } if content.contains("delete")))
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// agent.run("What is in notes.txt?").await.unwrap();
    /// assert_eq!(model.requests()[0].tool_names(), ["read"]);
    /// # });
    /// ```
    pub fn tool_filter(
        mut self,
        filter: impl Fn(&[crate::model::Message], &crate::spec::ToolSpec) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.inner.tool_filter = Some(Arc::new(filter));
        self
    }

    /// Calls `f` with every [`AgentEvent`] of every run, on the task running it.
    pub fn on_event(mut self, f: impl Fn(&AgentEvent<'_>) + Send + Sync + 'static) -> Self {
        self.inner.on_event = Some(Arc::new(f));
        self
    }

    /// Makes the agent's runs durable over `store`: an
    /// [`EffectLedger`] in it covers every `destructive`
    /// tool and every call resumed with a decision, so each such call takes effect at
    /// most once across attempts, resumes, replays and processes. Use a store every
    /// process that may resume the agent's runs shares: a
    /// [`FileStore`](crate::hooks::FileStore) on one machine, a
    /// [`RedisStore`](crate::hooks::RedisStore) across machines.
    ///
    /// Without it, pausing and resuming work all the same, and calls resumed with a
    /// decision are still run at most once, but only within this agent's process (the
    /// ledger is in its memory).
    pub fn durable(mut self, store: impl crate::hooks::store::Store) -> Self {
        self.inner.store = Some(Arc::new(store));
        self
    }

    /// The agent, or what is wrong with its configuration.
    pub fn build(mut self) -> Result<Agent, AgentBuildError> {
        match &self.inner.store {
            Some(store) => {
                for hook in EffectLedger::shared(Arc::clone(store)) {
                    if let Err(e) = self.inner.hooks.add(hook) {
                        self.problem.get_or_insert(AgentBuildError::DuplicateHook(e.to_string()));
                    }
                }
            }
            None => {
                let ledger = EffectLedger::new(crate::hooks::MemoryStore::new()).only_named();
                self.inner.resume_hooks = ledger.into_iter().collect();
            }
        }
        if self.inner.max_iterations == 0 {
            self.problem.get_or_insert(AgentBuildError::NoIterations);
        }
        let named: &[String] = match &self.inner.tool_choice {
            ToolChoice::Tool(name) => std::slice::from_ref(name),
            ToolChoice::Allowed { tools, .. } => tools,
            _ => &[],
        };
        if let Some(name) = named.iter().find(|name| self.inner.tools.spec(name).is_none()) {
            let available = self.inner.tools.names().iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
            self.problem.get_or_insert(AgentBuildError::UnknownToolChoice { name: name.clone(), available });
        }
        match self.problem {
            Some(problem) => Err(problem),
            None => Ok(Agent { inner: Arc::new(self.inner) }),
        }
    }
}
