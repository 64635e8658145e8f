//! What a running tool may know: the [`CallContext`] of its call and the toolbox's
//! shared [`State`].

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::spec::ToolSpec;

/// Shared values a toolbox hands to tools that declare a `#[state]` parameter, keyed
/// by type.
#[derive(Clone, Default)]
pub struct State {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl State {
    /// Stores a value, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// Stores a value that is already shared.
    pub fn insert_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.values.insert(TypeId::of::<T>(), value);
    }

    /// The value of type `T`, if one was stored.
    ///
    /// A value stored as an `Arc<T>` (`Toolbox::with_state(Arc::new(db))`) is found too.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        match self.values.get(&TypeId::of::<T>()) {
            Some(v) => v.downcast_ref(),
            None => self.values.get(&TypeId::of::<Arc<T>>())?.downcast_ref::<Arc<T>>().map(|a| &**a),
        }
    }

    /// The shared value of type `T`, if one was stored.
    ///
    /// A value stored as an `Arc<T>` is found too (the same `Arc`, not a copy).
    pub fn get_arc<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        match self.values.get(&TypeId::of::<T>()) {
            Some(v) => v.clone().downcast().ok(),
            None => self.values.get(&TypeId::of::<Arc<T>>())?.downcast_ref::<Arc<T>>().cloned(),
        }
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State").field("values", &self.values.len()).finish()
    }
}

/// What a tool may know about the call it is serving. Declare a parameter
/// `#[context] cx: &CallContext` to receive it; it never appears in the schema.
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Say which call this is.
/// #[tool]
/// fn whoami(#[context] cx: &CallContext<'_>) -> String {
///     format!("{} via {}", cx.call_id(), cx.tool().name)
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CallContext<'a> {
    call_id: &'a str,
    spec: &'a ToolSpec,
    state: &'a State,
    keep_raw: bool,
    run: Option<&'a str>,
    /// The arguments as the model sent them (for the idempotency key).
    arguments: &'a str,
    /// Where progress reports go (the scope's sink).
    progress: Option<&'a crate::progress::ProgressTo>,
}

impl<'a> CallContext<'a> {
    /// A context for one call.
    #[inline]
    pub fn new(call_id: &'a str, spec: &'a ToolSpec, state: &'a State) -> Self {
        CallContext { call_id, spec, state, keep_raw: false, run: None, arguments: "", progress: None }
    }

    /// Asks the tool to keep its typed return value in the [`Output`] (an after hook
    /// will read it).
    #[doc(hidden)]
    #[inline]
    pub fn keeping_raw(mut self, keep: bool) -> Self {
        self.keep_raw = keep;
        self
    }

    /// Whether an after hook will read the typed return value
    /// ([`Output::with_raw`]); generated code keeps it only then.
    /// The run the call belongs to and the arguments the model sent: what its
    /// [idempotency key](CallContext::idempotency_key) is made of.
    #[doc(hidden)]
    #[inline]
    pub fn in_run(mut self, run: Option<&'a str>, arguments: &'a str) -> Self {
        self.run = run;
        self.arguments = arguments;
        self
    }

    /// Where the call's progress reports go (its scope's sink).
    #[inline]
    pub(crate) fn reporting(mut self, progress: Option<&'a crate::progress::ProgressTo>) -> Self {
        self.progress = progress;
        self
    }

    /// Reports progress: `done` of `total` (when known), and what the tool is doing now.
    /// Where it goes is up to whoever runs the call: an MCP client that asked for
    /// progress gets `notifications/progress` (at most ten a second, and the last: a
    /// chatty tool cannot flood it), an agent's `on_event` gets
    /// [`AgentEvent::ToolProgress`](crate::agent::AgentEvent::ToolProgress); otherwise it
    /// goes nowhere, at the cost of a branch.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Index the files.
    /// #[tool]
    /// fn index(#[context] cx: &CallContext<'_>, files: Vec<String>) -> String {
    ///     for (i, file) in files.iter().enumerate() {
    ///         cx.progress(i as f64, Some(files.len() as f64), file);
    ///     }
    ///     format!("indexed {} files", files.len())
    /// }
    /// ```
    pub fn progress(&self, done: f64, total: Option<f64>, message: &str) {
        if let Some(to) = self.progress {
            let report =
                crate::progress::Progress { call_id: self.call_id, tool: &self.spec.name, done, total, message };
            to.report(&report);
        }
    }

    /// The call's idempotency key: the same for this call in every attempt, every process
    /// and every replay of its run, and different for any other call. Pass it to a
    /// downstream API that takes one (a payment's `Idempotency-Key` header, a message
    /// id), so that an effect the [`EffectLedger`](crate::hooks::EffectLedger) cannot
    /// vouch for (a crash between the effect and its record) is still not repeated
    /// downstream.
    ///
    /// Made of the run id ([`Scope::with_run`](crate::Scope::with_run), set by agents
    /// and kept in a paused run's state), the call id the model gave, and the digest of
    /// the arguments as the model sent them (canonical JSON, so key order does not
    /// matter): `tk1-` and 40 hex characters. Outside a run, the call id and the
    /// arguments alone make it: give calls distinct ids there.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Charge a card.
    /// #[tool(destructive)]
    /// fn charge(#[context] cx: &CallContext<'_>, cents: u64) -> String {
    ///     format!("charged {cents} with key {}", cx.idempotency_key())
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let tools = toolbox![charge];
    /// let a = tools.call(ToolCall::new("call_1", "charge", r#"{"cents": 500}"#)).await;
    /// let b = tools.call(ToolCall::new("call_1", "charge", r#"{ "cents":500 }"#)).await;
    /// assert_eq!(a.content, b.content, "the same call, the same key");
    /// assert!(a.content.contains("tk1-"));
    /// # }
    /// ```
    pub fn idempotency_key(&self) -> String {
        crate::digest::idempotency_key(self.run, self.call_id, self.arguments)
    }

    /// The run the call belongs to, if any.
    pub fn run(&self) -> Option<&'a str> {
        self.run
    }

    #[doc(hidden)]
    #[inline]
    pub fn keeps_raw(&self) -> bool {
        self.keep_raw
    }

    /// The id of the call (`tool_call_id`).
    pub fn call_id(&self) -> &'a str {
        self.call_id
    }

    /// The spec of the tool being called.
    pub fn tool(&self) -> &'a ToolSpec {
        self.spec
    }

    /// The toolbox's shared state.
    pub fn state(&self) -> &'a State {
        self.state
    }
}
