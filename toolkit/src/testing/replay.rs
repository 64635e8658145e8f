//! Replaying an audit log as a regression test: the model's calls as they were recorded,
//! the tools run for real, and what changed.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::call::ToolCall;
use crate::model::{ScriptedModel, Turn};
use crate::record::{CallRecord, Outcome};

// Here, beside `Replay`, so that the model module does not depend on testing.
impl ScriptedModel {
    /// A model that makes the calls of an audit log again, one per turn, then ends: see
    /// [`Replay`], which also compares what the replay did with the log.
    pub fn from_audit(path: impl AsRef<Path>) -> Result<Self, ReplayError> {
        Ok(Replay::from_audit(path)?.model())
    }
}

/// The calls of an [`AuditLog`](crate::hooks::AuditLog) file, to replay against the tools
/// as they are now ([`model`](Replay::model)) and to compare with what the replay did
/// ([`diff`](Replay::diff)).
///
/// The model of a replay makes each recorded call in its own turn, in the order of the
/// log, with the arguments the model sent (a line's `model_arguments` when a hook
/// rewrote them, else its `arguments`), then ends with a text turn. The tools and every
/// hook run for real. [`diff`](Replay::diff) then compares each call's tool and outcome
/// (and error kind) with the log's, and with [`compare_results`](Replay::compare_results)
/// the start of its result too.
///
/// What a replay cannot reproduce:
/// - arguments the log's redactor replaced (`[REDACTED:...]`) are replayed as written;
/// - calls made in one turn, in parallel, are replayed one per turn;
/// - the calls of an agent used as a tool (lines with a `parent`) are left out: the
///   outer call runs that agent, which asks its own model.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::agent::Agent;
/// use toolkit::testing::Replay;
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// // Two lines of a production audit log.
/// let log = concat!(
///     r#"{"call_id":"c1","session":"s1","tool":"add","arguments":{"a":2,"b":40},"outcome":"ok","kind":null,"result_head":"42"}"#, "\n",
///     r#"{"call_id":"c2","session":"s1","tool":"add","arguments":{"a":"x"},"outcome":"failed","kind":"invalid_type","result_head":"..."}"#, "\n",
/// );
/// let replay = Replay::parse(log).unwrap();
/// let agent = Agent::builder(replay.model(), toolbox![add]).build().unwrap();
/// let run = agent.run("replay").await.unwrap();
/// replay.assert(&run.records);
///
/// // Had the second call worked in production, the replay would show the change.
/// let changed = Replay::parse(&log.replace(r#""failed","kind":"invalid_type""#, r#""ok","kind":null"#)).unwrap();
/// let diff = changed.diff(&run.records).unwrap_err();
/// assert_eq!(diff.changed(), 1);
/// let row = diff.to_string().lines().find(|l| l.starts_with(" !")).unwrap().to_owned();
/// assert!(row.contains("add ok") && row.ends_with("add failed (invalid_type)"), "{row}");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Replay {
    calls: Vec<Logged>,
    source: String,
    results: bool,
}

/// One call of the log.
#[derive(Debug, Clone)]
struct Logged {
    /// The line it came from (1-based).
    line: usize,
    call_id: String,
    tool: String,
    session: Option<String>,
    arguments: String,
    outcome: String,
    kind: Option<String>,
    result_head: String,
}

/// The fields of an audit line a replay reads.
#[derive(Deserialize)]
struct Line {
    call_id: String,
    tool: String,
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    parent: Option<String>,
    arguments: Value,
    #[serde(default)]
    model_arguments: Option<Value>,
    outcome: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    result_head: String,
}

/// Why an audit log could not be read for a replay.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The file could not be read.
    #[error("cannot read the audit log {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not an audit log line.
    #[error("{source_name}:{line}: not an audit log line: {why}")]
    Line {
        /// The file (or `audit log` for text).
        source_name: String,
        /// The line (1-based).
        line: usize,
        /// What is wrong with it.
        why: String,
    },
}

impl Replay {
    /// The calls of the audit log at `path`.
    pub fn from_audit(path: impl AsRef<Path>) -> Result<Replay, ReplayError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ReplayError::Io { path: path.to_owned(), source })?;
        Replay::read(&text, path.display().to_string())
    }

    /// The calls of audit log lines in `text`.
    pub fn parse(text: &str) -> Result<Replay, ReplayError> {
        Replay::read(text, "audit log".to_owned())
    }

    fn read(text: &str, source: String) -> Result<Replay, ReplayError> {
        let mut calls = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let line: Line = serde_json::from_str(raw).map_err(|e| ReplayError::Line {
                source_name: source.clone(),
                line: i + 1,
                why: e.to_string(),
            })?;
            if line.parent.is_some() {
                continue;
            }
            let sent = line.model_arguments.unwrap_or(line.arguments);
            let arguments = match sent {
                Value::String(text) => text,
                json => json.to_string(),
            };
            calls.push(Logged {
                line: i + 1,
                call_id: line.call_id,
                tool: line.tool,
                session: line.session,
                arguments,
                outcome: line.outcome,
                kind: line.kind,
                result_head: line.result_head,
            });
        }
        Ok(Replay { calls, source, results: false })
    }

    /// Only the calls of this session (the `session` label of the log's scope).
    pub fn session(mut self, session: &str) -> Replay {
        self.calls.retain(|c| c.session.as_deref() == Some(session));
        self
    }

    /// Also compare the start of each result with the log's `result_head` (off by
    /// default: results that hold times or ids differ at every replay).
    pub fn compare_results(mut self, yes: bool) -> Replay {
        self.results = yes;
        self
    }

    /// How many calls will be replayed.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// A model that makes the logged calls, one per turn, then says it is done.
    pub fn model(&self) -> ScriptedModel {
        let turns = self.calls.iter().map(|c| Turn::tool_calls([ToolCall::new(&c.call_id, &c.tool, &c.arguments)]));
        ScriptedModel::new(turns.chain([Turn::text(format!("replayed {} calls", self.calls.len()))])).named("replay")
    }

    /// What the replay's records (in the order the calls were made) changed against
    /// the log: `Ok` when every call has the same tool and outcome (and result start,
    /// with [`compare_results`](Replay::compare_results)), and there are as many calls.
    pub fn diff<R: AsRef<CallRecord>>(&self, records: &[R]) -> Result<(), ReplayDiff> {
        let mut rows = Vec::new();
        let mut changed = 0;
        for i in 0..self.calls.len().max(records.len()) {
            let logged = self.calls.get(i);
            let now = records.get(i).map(AsRef::as_ref);
            let same = match (logged, now) {
                (Some(l), Some(r)) => self.same(l, r),
                _ => false,
            };
            changed += usize::from(!same);
            rows.push(Row {
                line: logged.map(|l| l.line),
                was: logged.map(|l| format!("{} {}", l.tool, outcome_of(l))),
                now: now.map(|r| format!("{} {}", r.tool, outcome_label(r.outcome))),
                note: match (logged, now, same) {
                    (Some(l), Some(r), false) if l.tool == r.tool && outcome_of(l) == outcome_label(r.outcome) => Some(
                        format!("result {:?} was {:?}", head(&r.content, l.result_head.chars().count()), l.result_head),
                    ),
                    _ => None,
                },
                same,
            });
        }
        if changed == 0 {
            return Ok(());
        }
        Err(ReplayDiff { source: self.source.clone(), rows, changed })
    }

    /// [`diff`](Replay::diff), panicking with the differences.
    #[track_caller]
    pub fn assert<R: AsRef<CallRecord>>(&self, records: &[R]) {
        if let Err(diff) = self.diff(records) {
            panic!("{diff}");
        }
    }

    fn same(&self, logged: &Logged, record: &CallRecord) -> bool {
        logged.tool == record.tool
            && outcome_of(logged) == outcome_label(record.outcome)
            && (!self.results || head(&record.content, logged.result_head.chars().count()) == logged.result_head)
    }
}

/// A logged outcome with its kind: `failed (invalid_type)`.
fn outcome_of(logged: &Logged) -> String {
    match &logged.kind {
        Some(kind) => format!("{} ({kind})", logged.outcome),
        None => logged.outcome.clone(),
    }
}

fn outcome_label(outcome: Outcome) -> String {
    match outcome {
        Outcome::Failed(kind) | Outcome::Recovered(kind) => format!("{} ({})", outcome.label(), kind.as_str()),
        other => other.label().to_owned(),
    }
}

fn head(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// What a replay changed against its log: each call side by side, marked where they
/// differ.
#[derive(Debug, Clone)]
pub struct ReplayDiff {
    source: String,
    rows: Vec<Row>,
    changed: usize,
}

#[derive(Debug, Clone)]
struct Row {
    line: Option<usize>,
    was: Option<String>,
    now: Option<String>,
    note: Option<String>,
    same: bool,
}

impl ReplayDiff {
    /// How many calls differ (a call missing on either side counts).
    pub fn changed(&self) -> usize {
        self.changed
    }
}

impl fmt::Display for ReplayDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "the replay of {} differs in {} of {} calls:", self.source, self.changed, self.rows.len())?;
        let width =
            self.rows.iter().filter_map(|r| r.was.as_ref().map(|w| w.chars().count())).max().unwrap_or(0).max(8);
        writeln!(f, "   {:>5}  {:<width$}  replayed", "line", "logged")?;
        for row in &self.rows {
            let mark = if row.same { ' ' } else { '!' };
            let line = row.line.map_or("-".to_owned(), |l| l.to_string());
            let was = row.was.as_deref().unwrap_or("(no call)");
            let now = row.now.as_deref().unwrap_or("(no call)");
            writeln!(f, " {mark} {line:>5}  {was:<width$}  {now}")?;
            if let Some(note) = &row.note {
                writeln!(f, "          {note}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ReplayDiff {}
