//! The effect ledger: a call's effect happens at most once, whatever is retried, replayed
//! or resumed.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use super::carry::{Carried, owner};
use super::store::Store;
use crate::call::Output;
use crate::error::{ErrorKind, ToolError};
use crate::hook::{AfterCall, AfterHook, BeforeCall, BeforeHook, Decision, ErrorCall, ErrorHook, Hook, HookError};
use crate::hook::{HookStep, OnFailure, Recovery};

/// A built-in pair of hooks that makes a call's effect happen at most once: it writes
/// "started" to a [`Store`] just before the tool runs and "finished", with the result
/// the model saw, just after. Every call is known by its
/// [idempotency key](crate::CallContext::idempotency_key) (run, call id, arguments).
///
/// When the same call comes again (a paused run resumed twice, a state replayed after a
/// crash, an engine retrying an activity, two processes resuming one run at once):
///
/// | the ledger holds | what happens | outcome |
/// |---|---|---|
/// | nothing | the tool runs | `ok` |
/// | "finished" | the recorded result is returned; the tool does not run | `replayed` |
/// | "started" only | the call *may* have taken effect (a crash between the two writes, or it is running elsewhere right now): it is not run; the model is told so, or a [`reconcile`](EffectLedger::reconcile) function decides | `failed(in_doubt)` |
///
/// A failure the tool reports itself (`Err`) is recorded as its result, so a replay gives
/// the same answer; for a tool declared `idempotent` or `read_only` it is forgotten
/// instead, so that it may be tried again. A timeout or a panic leaves the call in doubt
/// (it may have done its work). A call that never reached the tool (its arguments failed
/// after hooks rewrote them) is forgotten.
///
/// What it covers: calls of tools declared `destructive`, calls resumed with a decision
/// ([`Agent::resume`](crate::agent::Agent::resume)), and the tools named with
/// [`tools`](EffectLedger::tools) (or [`all`](EffectLedger::all)). An agent built with
/// [`durable`](crate::agent::AgentBuilder::durable) adds one over its store.
///
/// Its before hook has the lowest priority, so "started" is written after every other
/// before hook (approval, sandbox, rate limit) has let the call through, and its after
/// hook runs last, so the recorded text is what the model saw. A second hook, of the
/// highest priority, records failures before any error hook replaces their message.
/// The store failing blocks the call (fail closed): without the ledger, at most once
/// cannot be promised. Entries expire after [`ttl`](EffectLedger::ttl) (30 days by
/// default): a replay later than that runs the tool again.
///
/// What it cannot promise: the effect and the "finished" write are two steps, so a crash
/// between them is reported as in doubt, never run twice; pass
/// [`idempotency_key`](crate::CallContext::idempotency_key) to the downstream API as
/// well, and that API will tell the two apart. The ledger records the result text (after
/// every after hook, so redaction applies): it holds what the model saw.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::{EffectLedger, MemoryStore};
///
/// /// Send a payment.
/// #[tool(destructive)]
/// fn pay(cents: u64) -> String { format!("paid {cents}") }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![pay].with_hooks(EffectLedger::new(MemoryStore::new()));
/// let call = ToolCall::new("call_1", "pay", r#"{"cents": 500}"#);
/// assert_eq!(tools.call(call.clone()).await.content, "paid 500");
/// // The same call again (a replay): the recorded result, and the tool does not run.
/// let again = tools.call(call).await;
/// assert_eq!(again.content, "paid 500");
/// # }
/// ```
pub struct EffectLedger {
    name: Cow<'static, str>,
    store: Arc<dyn Store>,
    tools: Vec<Cow<'static, str>>,
    all: bool,
    destructive: bool,
    ttl: Duration,
    reconcile: Option<Arc<ReconcileFn>>,
}

type ReconcileFn = dyn Fn(InDoubt) -> BoxFuture<'static, Reconciled> + Send + Sync;

impl fmt::Debug for EffectLedger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EffectLedger")
            .field("name", &self.name)
            .field("tools", &self.tools)
            .field("all", &self.all)
            .field("destructive", &self.destructive)
            .field("ttl", &self.ttl)
            .field("reconcile", &self.reconcile.is_some())
            .finish_non_exhaustive()
    }
}

/// A call the ledger found started and never finished, as a
/// [`reconcile`](EffectLedger::reconcile) function sees it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct InDoubt {
    /// The tool.
    pub tool: String,
    /// The call id.
    pub call_id: String,
    /// The call's idempotency key: ask the downstream system whether it saw it.
    pub idempotency_key: String,
    /// The arguments the call runs with.
    pub arguments: Map<String, Value>,
    /// When the earlier attempt started.
    pub started_at: SystemTime,
}

/// What a [`reconcile`](EffectLedger::reconcile) function found out about a call in doubt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reconciled {
    /// It took effect; this is the result to give the model (recorded as finished).
    Happened(String),
    /// It did not take effect: run it now.
    DidNotHappen,
    /// Nobody can tell: the call stays in doubt.
    Unknown,
}

impl EffectLedger {
    /// A ledger in `store` covering `destructive` tools and calls resumed with a decision.
    pub fn new(store: impl Store) -> Self {
        EffectLedger::shared(Arc::new(store))
    }

    /// [`new`](EffectLedger::new) over a store shared with other hooks.
    pub fn shared(store: Arc<dyn Store>) -> Self {
        EffectLedger {
            name: Cow::Borrowed("effect_ledger"),
            store,
            tools: Vec::new(),
            all: false,
            destructive: true,
            ttl: Duration::from_secs(30 * 24 * 3600),
            reconcile: None,
        }
    }

    /// Covers these tools as well.
    pub fn tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        self.tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Covers every call.
    pub fn all(mut self) -> Self {
        self.all = true;
        self
    }

    /// Covers only the tools named and calls resumed with a decision, not every
    /// `destructive` tool.
    pub fn only_named(mut self) -> Self {
        self.destructive = false;
        self
    }

    /// How long entries are kept (default 30 days, as long as a [`RunStore`](crate::durable::RunStore) keeps a paused run).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The hooks' names: `{name}` and `{name}:errors`, and the stores' keys'
    /// `toolkit:{name}:` prefix (default `effect_ledger`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// Asks `f` about a call in doubt instead of refusing it at once: it can look the
    /// call's idempotency key up downstream and say whether the effect happened.
    ///
    /// ```
    /// use toolkit::hooks::{EffectLedger, MemoryStore, Reconciled};
    ///
    /// let ledger = EffectLedger::new(MemoryStore::new()).reconcile(|call| async move {
    ///     // Ask the payment provider whether it saw `call.idempotency_key`.
    ///     let _ = call.idempotency_key;
    ///     Reconciled::Unknown
    /// });
    /// ```
    pub fn reconcile<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(InDoubt) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Reconciled> + Send + 'static,
    {
        self.reconcile = Some(Arc::new(move |call| Box::pin(f(call))));
        self
    }
}

impl IntoIterator for EffectLedger {
    type Item = Hook;
    type IntoIter = std::array::IntoIter<Hook, 2>;

    /// The two hooks: add both (`Toolbox::with_hooks`, `AgentBuilder::hooks`).
    fn into_iter(self) -> Self::IntoIter {
        let name = self.name.clone();
        let errors: Cow<'static, str> = format!("{name}:errors").into();
        let ledger = Ledger(Arc::new(self));
        [
            Hook::new(name)
                .priority(i32::MIN)
                .on_failure(OnFailure::Block)
                .on_before(ledger.clone())
                .on_after(ledger.clone()),
            Hook::new(errors).priority(i32::MAX).on_failure(OnFailure::Continue).on_error(ledger),
        ]
        .into_iter()
    }
}

/// What the store holds for a call, as text: `started {ms}`, `finished {ms}` then a line
/// break and the result (`finished+parts {ms}` and `{"text", "parts"}` as JSON for a
/// result with parts), or `failed {ms}` then the error as JSON (times in Unix
/// milliseconds). Short to write on every covered call, and readable in `redis-cli`.
enum Entry {
    Started { at: u64 },
    Finished { content: String, parts: Vec<crate::parts::Part> },
    Failed { error: ToolError },
}

impl Entry {
    fn started() -> Vec<u8> {
        format!("started {}", now_ms()).into_bytes()
    }

    fn finished(content: &str, parts: &[crate::parts::Part]) -> Vec<u8> {
        if !parts.is_empty() {
            // A result with parts: its text and parts as JSON (the bytes in base64).
            let mut bytes = format!("finished+parts {}\n", now_ms()).into_bytes();
            let json = serde_json::json!({"text": content, "parts": parts});
            bytes.extend_from_slice(json.to_string().as_bytes());
            return bytes;
        }
        let mut bytes = format!("finished {}\n", now_ms()).into_bytes();
        bytes.extend_from_slice(content.as_bytes());
        bytes
    }

    fn failed(error: &ToolError) -> Vec<u8> {
        let mut bytes = format!("failed {}\n", now_ms()).into_bytes();
        bytes.extend(serde_json::to_vec(error).unwrap_or_default());
        bytes
    }

    fn read(bytes: &[u8]) -> Option<Entry> {
        let text = std::str::from_utf8(bytes).ok()?;
        let (head, body) = text.split_once('\n').unwrap_or((text, ""));
        let (state, at) = head.split_once(' ')?;
        let at: u64 = at.parse().ok()?;
        match state {
            "started" => Some(Entry::Started { at }),
            "finished" => Some(Entry::Finished { content: body.to_owned(), parts: Vec::new() }),
            "finished+parts" => {
                #[derive(serde::Deserialize)]
                struct WithParts {
                    text: String,
                    parts: Vec<crate::parts::Part>,
                }
                let entry: WithParts = serde_json::from_str(body).ok()?;
                Some(Entry::Finished { content: entry.text, parts: entry.parts })
            }
            "failed" => Some(Entry::Failed { error: serde_json::from_str(body).ok()? }),
            _ => None,
        }
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The key this call holds in the store, carried from the before hook to the after and
/// error hooks of the same call.
struct Held(String);

#[derive(Clone)]
struct Ledger(Arc<EffectLedger>);

impl Ledger {
    fn covers(&self, call: &BeforeCall<'_>) -> bool {
        let config = &self.0;
        config.all
            || call.decision().is_some()
            || (config.destructive && call.spec().is_some_and(|s| s.annotations.destructive))
            || config.tools.iter().any(|t| t == call.tool())
    }

    fn key(&self, idempotency_key: &str) -> String {
        format!("toolkit:{}:{idempotency_key}", self.0.name)
    }
}

fn in_doubt(key: &str, at: u64) -> ToolError {
    let when = SystemTime::UNIX_EPOCH + Duration::from_millis(at);
    let ago = SystemTime::now().duration_since(when).unwrap_or_default().as_secs();
    ToolError::new(
        ErrorKind::InDoubt,
        format!(
            "not run: this call started {ago} s ago in an earlier attempt and never reported finishing, so it may \
             already have taken effect. Check whether it did before asking for it again (idempotency key {key})"
        ),
    )
}

impl BeforeHook for Ledger {
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        if !self.covers(call) {
            return HookStep::Ready(Ok(Decision::Continue));
        }
        let idempotency_key = call.idempotency_key();
        let key = self.key(&idempotency_key);
        let config = &self.0;
        HookStep::Pending(Box::pin(async move {
            // Twice at most: an entry that expires between the two reads is taken anew.
            for _ in 0..2 {
                if config.store.set_if_absent(&key, Entry::started(), Some(config.ttl)).await.map_err(HookError::new)? {
                    Carried::put(call.extensions_mut(), owner(&self.0), Held(key));
                    return Ok(Decision::Continue);
                }
                let Some(bytes) = config.store.get(&key).await.map_err(HookError::new)? else { continue };
                let entry = Entry::read(&bytes)
                    .ok_or_else(|| HookError::new(format!("the ledger entry `{key}` is unreadable")))?;
                return match entry {
                    Entry::Failed { error } => Ok(Decision::Fail(error)),
                    Entry::Finished { content, parts } => Ok(Decision::Replay(Output::text(content).with_parts(parts))),
                    Entry::Started { at } => {
                        let Some(reconcile) = &config.reconcile else {
                            return Ok(Decision::Fail(in_doubt(&idempotency_key, at)));
                        };
                        let asked = InDoubt {
                            tool: call.tool().to_owned(),
                            call_id: call.call_id().to_owned(),
                            idempotency_key: idempotency_key.clone(),
                            arguments: call.arguments().clone(),
                            started_at: SystemTime::UNIX_EPOCH + Duration::from_millis(at),
                        };
                        match reconcile(asked).await {
                            Reconciled::Happened(content) => {
                                let bytes = Entry::finished(&content, &[]);
                                config.store.set(&key, bytes, Some(config.ttl)).await.map_err(HookError::new)?;
                                Ok(Decision::Replay(Output::text(content)))
                            }
                            Reconciled::DidNotHappen => {
                                config
                                    .store
                                    .set(&key, Entry::started(), Some(config.ttl))
                                    .await
                                    .map_err(HookError::new)?;
                                Carried::put(call.extensions_mut(), owner(&self.0), Held(key));
                                Ok(Decision::Continue)
                            }
                            Reconciled::Unknown => Ok(Decision::Fail(in_doubt(&idempotency_key, at))),
                        }
                    }
                };
            }
            Err(HookError::new(format!("the ledger entry `{key}` kept vanishing")))
        }))
    }
}

impl AfterHook for Ledger {
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()> {
        let Some(Held(key)) = Carried::take(out.extensions_mut(), owner(&self.0)) else {
            return HookStep::Ready(Ok(()));
        };
        let bytes = Entry::finished(out.text(), out.parts());
        let config = &self.0;
        HookStep::Pending(Box::pin(async move {
            config.store.set(&key, bytes, Some(config.ttl)).await.map_err(HookError::new)
        }))
    }
}

impl ErrorHook for Ledger {
    fn error<'a>(&'a self, err: &'a mut ErrorCall<'_>) -> HookStep<'a, Recovery> {
        let Some(Held(key)) = Carried::take(err.extensions_mut(), owner(&self.0)) else {
            return HookStep::Ready(Ok(Recovery::Propagate));
        };
        let config = &self.0;
        let error = err.error().clone();
        let repeatable = err.retryable();
        HookStep::Pending(Box::pin(async move {
            match error.kind {
                // It may have done its work: leave it started, in doubt.
                ErrorKind::TimedOut | ErrorKind::Panicked => {}
                // Its own failure: the answer a replay gets, unless trying again is harmless.
                ErrorKind::ToolFailed if !repeatable => {
                    let bytes = Entry::failed(&error);
                    config.store.set(&key, bytes, Some(config.ttl)).await.map_err(HookError::new)?;
                }
                // It never ran, or may run again: forget it.
                _ => config.store.delete(&key).await.map_err(HookError::new)?,
            }
            Ok(Recovery::Propagate)
        }))
    }
}
