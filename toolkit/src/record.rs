//! One call after the fact: its [`CallRecord`] (outcome, hooks that acted, timings), the
//! [`Event`]s hooks act on, and the [`RecordSink`]s records go to.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::error::ErrorKind;

/// How a call ended, as its [`CallRecord`] tells it.
///
/// ```
/// use toolkit::{ErrorKind, Outcome};
/// assert_eq!(Outcome::Failed(ErrorKind::TimedOut).to_string(), "failed(timed_out)");
/// assert_eq!(Outcome::Cached.to_string(), "cached");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The tool ran and returned its output.
    Ok,
    /// A hook blocked the call; the model was told why.
    Blocked,
    /// A before hook answered the call without running the tool (a cache hit).
    Cached,
    /// The call failed; the kind says why.
    Failed(ErrorKind),
    /// The call failed and an error hook replaced the message the model sees.
    Recovered(ErrorKind),
    /// The caller stopped waiting (its future was dropped: an MCP client cancelled, an
    /// agent run was abandoned) before the call ended; nothing reached the model.
    Cancelled,
    /// A before hook deferred the call ([`Decision::Defer`](crate::Decision::Defer)): it
    /// did not run and waits for a decision; an agent run pauses on it.
    Deferred,
    /// The call had already run in an earlier attempt of the same run (a resume, a
    /// replay, an engine's retry): the [`EffectLedger`](crate::hooks::EffectLedger)
    /// returned the result it recorded then, and the tool did not run again.
    Replayed,
}

impl Outcome {
    /// `ok`, `blocked`, `cached`, `failed`, `recovered`, `cancelled`, `deferred` or
    /// `replayed`, without the kind.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Blocked => "blocked",
            Outcome::Cached => "cached",
            Outcome::Failed(_) => "failed",
            Outcome::Recovered(_) => "recovered",
            Outcome::Cancelled => "cancelled",
            Outcome::Deferred => "deferred",
            Outcome::Replayed => "replayed",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Failed(kind) | Outcome::Recovered(kind) => write!(f, "{}({kind})", self.label()),
            _ => f.write_str(self.label()),
        }
    }
}

/// The events a hook can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// Before the tool runs.
    Before,
    /// After an output (from the tool or a before hook's `Return`).
    After,
    /// On a failure.
    Error,
}

impl Event {
    /// `before`, `after` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Event::Before => "before",
            Event::After => "after",
            Event::Error => "error",
        }
    }
}

/// What a hook did to a call, as its [`CallRecord`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Effect {
    /// Rewrote the arguments (before) or the model-visible text (after). A hook that
    /// asked for mutable access counts, whether or not it changed anything.
    Rewrote,
    /// Blocked the call.
    Blocked,
    /// Answered the call without the tool (`Decision::Return`).
    Returned,
    /// Replaced the failure's message (`Recovery::Message`).
    Recovered,
    /// Asked for a retry that was run.
    Retried,
    /// Failed (error, panic or timeout); its policy was applied.
    Failed,
    /// Deferred the call to a decision (`Decision::Defer`).
    Deferred,
    /// Deferred the call, and the decision it was resumed with answered it: approved,
    /// approved with edited arguments, or denied (the record's `detail` says which).
    Decided,
    /// Answered the call with the result an earlier attempt recorded
    /// (`Decision::Replay`).
    Replayed,
}

/// One hook that acted on a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookAction {
    /// The hook's name.
    pub hook: Cow<'static, str>,
    /// The event it acted on.
    pub event: Event,
    /// What it did.
    pub effect: Effect,
    /// Operator detail (why it failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One call after the fact: what the model asked for, what it got back, which hooks
/// acted, and how long it took. A toolbox with [`RecordSink`]s delivers exactly one record
/// per call, whatever happened to it.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolkit::prelude::*;
/// use toolkit::{Hook, Decision, Outcome};
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let records = Arc::new(Mutex::new(Vec::<CallRecord>::new()));
/// let sink = Arc::clone(&records);
/// let no_negatives = Hook::before("no_negatives", |call| {
///     let negative = call.arguments().values().any(|v| v.as_i64().is_some_and(|n| n < 0));
///     if negative { Decision::Block("only non-negative numbers".into()) } else { Decision::Continue }
/// });
/// let tools = toolbox![add].with_hook(no_negatives).with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone()));
/// tools.call(ToolCall::new("1", "add", r#"{"a": 1, "b": 2}"#)).await;
/// tools.call(ToolCall::new("2", "add", r#"{"a": -1, "b": 2}"#)).await;
/// let records = records.lock().unwrap();
/// assert_eq!((records[0].outcome, records[0].content.as_str()), (Outcome::Ok, "3"));
/// assert_eq!(records[1].outcome, Outcome::Blocked);
/// assert_eq!(records[1].hooks[0].hook, "no_negatives");
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CallRecord {
    /// The call's id (`tool_call_id`).
    pub call_id: String,
    /// The tool name the model used.
    pub tool: String,
    /// The arguments exactly as the model sent them.
    pub arguments: String,
    /// The arguments the tool ran with, as JSON, when a before hook had write access to
    /// them (`None`: the tool ran with [`arguments`](CallRecord::arguments)).
    pub rewritten_arguments: Option<String>,
    /// How the call ended.
    pub outcome: Outcome,
    /// The model-visible text of the result.
    pub content: String,
    /// What the result carried besides text: each part's kind, MIME type, size and
    /// SHA-256, never its bytes (empty for a text result; left out of the JSON then).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<crate::parts::PartSummary>,
    /// Operator-only detail of a failure, if any.
    pub detail: Option<String>,
    /// The hooks that acted, in order.
    pub hooks: Vec<HookAction>,
    /// The agent label of the call's scope.
    pub agent: Option<Arc<str>>,
    /// The task label.
    pub task: Option<Arc<str>>,
    /// The session label.
    pub session: Option<Arc<str>>,
    /// The id of the call this one was made inside: the calls of an agent used as a
    /// tool carry the id of the outer call that ran it.
    pub parent: Option<Arc<str>>,
    /// How many times the tool was attempted (more than 1 after retries).
    pub attempts: u32,
    /// When the call started.
    pub started_at: SystemTime,
    /// How long the whole call took: parsing, hooks, tool.
    pub duration: Duration,
    /// How long the tool itself ran (its last attempt), if it ran.
    pub tool_duration: Option<Duration>,
}

/// So a slice of records or of shared records (`Arc<CallRecord>`, as runs keep them)
/// can be checked alike ([`testing`](crate::testing)).
impl AsRef<CallRecord> for CallRecord {
    fn as_ref(&self) -> &CallRecord {
        self
    }
}

impl CallRecord {
    /// The arguments the tool ran with: the rewritten ones if a hook had them, else as
    /// sent.
    pub fn effective_arguments(&self) -> &str {
        self.rewritten_arguments.as_deref().unwrap_or(&self.arguments)
    }
}

/// Receives every [`CallRecord`] of a toolbox (see [`Toolbox::with_sink`](crate::Toolbox::with_sink)).
///
/// Called on the calling task once the result is known, so it must be quick: a sink that
/// does I/O hands the record to a queue. A sink that panics is isolated: the call's result
/// and the other sinks are unaffected. Closures `Fn(&CallRecord)` are sinks.
///
/// A sink that only reads is lent the record, built from the call's own strings, which
/// go back into the call's result afterwards: it costs the call no copy. A sink that
/// keeps records says so ([`keeps_records`](RecordSink::keeps_records)) and takes them
/// in [`record_shared`](RecordSink::record_shared): the record of a call one of its sinks
/// keeps is built once as an `Arc` and shared by every sink that keeps it.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolkit::{CallRecord, Toolbox};
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let tools = Toolbox::new().with_sink(move |r: &CallRecord| log.lock().unwrap().push(r.outcome));
/// # drop(tools);
/// ```
pub trait RecordSink: Send + Sync + 'static {
    /// Takes one record.
    fn record(&self, record: &CallRecord);

    /// Whether this sink keeps records (hands them to another thread, stores them):
    /// `true` makes the toolbox give it shared records, in
    /// [`record_shared`](RecordSink::record_shared). Defaults to `false`: lent records,
    /// in [`record`](RecordSink::record). Asked once, when the sink is added to a toolbox
    /// or a scope.
    fn keeps_records(&self) -> bool {
        false
    }

    /// Takes one shared record, to keep (called instead of [`record`](RecordSink::record)
    /// when [`keeps_records`](RecordSink::keeps_records) says `true`): keep the `Arc`
    /// rather than copying. Defaults to [`record`](RecordSink::record).
    fn record_shared(&self, record: &Arc<CallRecord>) {
        self.record(record)
    }
}

impl<F: Fn(&CallRecord) + Send + Sync + 'static> RecordSink for F {
    fn record(&self, record: &CallRecord) {
        self(record)
    }
}

/// A list of record sinks (a toolbox's or a scope's), each with whether it keeps
/// records: a sink is asked once, when it is added.
#[derive(Clone, Default)]
pub(crate) struct Sinks {
    list: Vec<(Arc<dyn RecordSink>, bool)>,
    keeps: bool,
}

impl Sinks {
    pub(crate) const fn new() -> Self {
        Sinks { list: Vec::new(), keeps: false }
    }

    /// Adds a sink. One that panics when asked whether it keeps records is taken for one
    /// that does not (as one that panics on a record is skipped).
    pub(crate) fn push(&mut self, sink: Arc<dyn RecordSink>) {
        let keeps = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sink.keeps_records())).unwrap_or(false);
        self.keeps |= keeps;
        self.list.push((sink, keeps));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether a sink keeps records.
    pub(crate) fn keeps(&self) -> bool {
        self.keeps
    }

    /// Each sink, and whether it keeps records.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, (Arc<dyn RecordSink>, bool)> {
        self.list.iter()
    }
}

impl fmt::Debug for Sinks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} sink(s)", self.list.len())
    }
}
