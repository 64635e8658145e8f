//! Assertions on what an agent did: its trajectory, the [`CallRecord`]s of a run
//! ([`AgentRun::records`](crate::agent::AgentRun::records), or a toolbox's sink).
//!
//! Describe each call you expect with [`call`]: the tool, then only the arguments that
//! matter (equal to a value, or passing a predicate; the others are ignored unless you
//! ask for [`only`](ExpectedCall::only)), and the outcome if it matters. Then check the
//! records against the list:
//!
//! | check | passes when |
//! |---|---|
//! | [`exact`] | the calls are these, in this order, and no others |
//! | [`in_order`] | these calls happened in this order, others around them allowed |
//! | [`unordered`] | each of these happened (each matched by a call of its own), in any order, others allowed |
//!
//! Each returns a [`Mismatch`] that prints the expected and the actual calls side by
//! side, marking where they part; `assert_*` panics with it.
//!
//! [`Replay`] turns a production audit log into a regression test: a scripted model
//! makes the logged calls again, the tools run for real, and [`Replay::diff`] shows
//! which outcomes changed.
//!
//! ```
//! use toolkit::prelude::*;
//! use toolkit::testing::{assert_in_order, call};
//! use toolkit::{CallRecord, Outcome};
//!
//! /// Add two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let records = std::sync::Arc::new(std::sync::Mutex::new(Vec::<CallRecord>::new()));
//! let sink = std::sync::Arc::clone(&records);
//! let tools = toolbox![add].with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone()));
//! tools.call(ToolCall::new("1", "add", r#"{"a": 1, "b": 2}"#)).await;
//! tools.call(ToolCall::new("2", "add", r#"{"a": 5, "b": -7}"#)).await;
//!
//! let records = records.lock().unwrap();
//! assert_in_order(&records, &[
//!     call("add").arg("a", 1),
//!     call("add").arg_where("b", "negative", |b| b.as_i64().is_some_and(|b| b < 0)).outcome(Outcome::Ok),
//! ]);
//! # }
//! ```

mod replay;

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::record::{CallRecord, Outcome};

pub use replay::{Replay, ReplayDiff, ReplayError};

/// One call a test expects: see [`call`].
#[derive(Clone)]
pub struct ExpectedCall {
    tool: String,
    args: Vec<(String, ArgCheck)>,
    only: bool,
    outcome: Option<Outcome>,
}

#[derive(Clone)]
enum ArgCheck {
    Equals(Value),
    Passes(String, Arc<dyn Fn(&Value) -> bool + Send + Sync>),
}

/// A call of `tool`, whatever its arguments and outcome (narrow it with the methods).
pub fn call(tool: impl Into<String>) -> ExpectedCall {
    ExpectedCall { tool: tool.into(), args: Vec::new(), only: false, outcome: None }
}

impl ExpectedCall {
    /// Argument `name` equals `value` (as JSON: `1` and `1.0` differ).
    pub fn arg(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.args.push((name.into(), ArgCheck::Equals(value.into())));
        self
    }

    /// Argument `name` is present and passes `check`; `what` says what it checks, for
    /// the failure message (`"a date in 2026"`).
    pub fn arg_where(
        mut self,
        name: impl Into<String>,
        what: impl Into<String>,
        check: impl Fn(&Value) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.args.push((name.into(), ArgCheck::Passes(what.into(), Arc::new(check))));
        self
    }

    /// No arguments but the ones named (by [`arg`](ExpectedCall::arg) or
    /// [`arg_where`](ExpectedCall::arg_where)).
    pub fn only(mut self) -> Self {
        self.only = true;
        self
    }

    /// The call ended this way (`Ok`, `Blocked`, ...).
    pub fn outcome(mut self, outcome: Outcome) -> Self {
        self.outcome = Some(outcome);
        self
    }

    /// Whether `record` is such a call. The arguments are the ones the model sent.
    pub fn matches(&self, record: &CallRecord) -> bool {
        self.why_not(record).is_none()
    }

    /// Why `record` is not such a call, if it is not.
    fn why_not(&self, record: &CallRecord) -> Option<String> {
        if record.tool != self.tool {
            return Some(format!("tool `{}`", record.tool));
        }
        if let Some(outcome) = self.outcome.filter(|o| *o != record.outcome) {
            return Some(format!("outcome {} (expected {})", record.outcome, outcome));
        }
        let args: Map<String, Value> = serde_json::from_str(&record.arguments).unwrap_or_default();
        for (name, check) in &self.args {
            let value = args.get(name);
            let passes = match (check, value) {
                (_, None) => return Some(format!("no argument `{name}`")),
                (ArgCheck::Equals(expected), Some(value)) => value == expected,
                (ArgCheck::Passes(_, check), Some(value)) => check(value),
            };
            if !passes {
                return Some(format!("`{name}` is {}", value.map(Value::to_string).unwrap_or_default()));
            }
        }
        if self.only
            && let Some(extra) = args.keys().find(|k| !self.args.iter().any(|(name, _)| name == *k))
        {
            return Some(format!("an argument `{extra}` besides the expected"));
        }
        None
    }
}

impl fmt::Display for ExpectedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|(name, check)| match check {
                ArgCheck::Equals(value) => format!("{name}: {value}"),
                ArgCheck::Passes(what, _) => format!("{name}: <{what}>"),
            })
            .collect();
        let rest = if self.only {
            ""
        } else if args.is_empty() {
            ".."
        } else {
            ", .."
        };
        write!(f, "{}({}{rest})", self.tool, args.join(", "))?;
        match self.outcome {
            Some(outcome) => write!(f, " -> {outcome}"),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for ExpectedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// Records and expectations that did not agree: prints both lists side by side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Which check (`exact`, `in order`, `unordered`) and what went wrong.
    pub summary: String,
    /// The expected calls, one line each, marked where they were not met.
    pub expected: Vec<String>,
    /// The actual calls, one line each.
    pub actual: Vec<String>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.summary)?;
        let width = self.expected.iter().map(|l| l.chars().count()).max().unwrap_or(0).max(8);
        writeln!(f, "  {:<width$} | actual", "expected")?;
        for i in 0..self.expected.len().max(self.actual.len()) {
            let left = self.expected.get(i).map_or("", String::as_str);
            let right = self.actual.get(i).map_or("", String::as_str);
            writeln!(f, "  {left:<width$} | {right}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Mismatch {}

/// One line per record: `tool({"args"}) -> outcome`.
fn actual_lines<R: AsRef<CallRecord>>(records: &[R]) -> Vec<String> {
    records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let r = r.as_ref();
            format!("{i}: {}({}) -> {}", r.tool, r.arguments, r.outcome)
        })
        .collect()
}

fn mismatch<R: AsRef<CallRecord>>(
    summary: String,
    expected: &[ExpectedCall],
    marks: &[Option<String>],
    records: &[R],
) -> Mismatch {
    let expected = expected
        .iter()
        .enumerate()
        .map(|(i, e)| match marks.get(i).cloned().flatten() {
            Some(mark) => format!("{i}: {e}  <- {mark}"),
            None => format!("{i}: {e}"),
        })
        .collect();
    Mismatch { summary, expected, actual: actual_lines(records) }
}

/// The calls are exactly `expected`, in order, and no others.
pub fn exact<R: AsRef<CallRecord>>(records: &[R], expected: &[ExpectedCall]) -> Result<(), Mismatch> {
    let mut marks = vec![None; expected.len()];
    let mut first = None;
    for (i, e) in expected.iter().enumerate() {
        let why = match records.get(i) {
            Some(record) => e.why_not(record.as_ref()).map(|why| format!("call {i} has {why}")),
            None => Some("no such call".to_owned()),
        };
        if why.is_some() && first.is_none() {
            first = Some(i);
        }
        marks[i] = why;
    }
    if let Some(i) = first {
        return Err(mismatch(format!("exact: expected call {i} did not happen"), expected, &marks, records));
    }
    if records.len() > expected.len() {
        let summary = format!("exact: {} calls expected, {} happened", expected.len(), records.len());
        return Err(mismatch(summary, expected, &marks, records));
    }
    Ok(())
}

/// `expected` happened in this order; other calls before, between and after are allowed.
pub fn in_order<R: AsRef<CallRecord>>(records: &[R], expected: &[ExpectedCall]) -> Result<(), Mismatch> {
    let mut next = 0;
    let mut marks = vec![None; expected.len()];
    for (i, e) in expected.iter().enumerate() {
        match records[next.min(records.len())..].iter().position(|r| e.matches(r.as_ref())) {
            Some(at) => {
                marks[i] = None;
                next += at + 1;
            }
            None => {
                marks[i] = Some(format!("not found from call {next} on"));
                let summary = format!("in order: expected call {i} did not happen after the ones before it");
                return Err(mismatch(summary, expected, &marks, records));
            }
        }
    }
    Ok(())
}

/// Each of `expected` happened, each matched by a call of its own, in any order; other
/// calls are allowed. Matching is exact (a maximum bipartite matching), so a loose
/// expectation never takes the only call a stricter one could have.
pub fn unordered<R: AsRef<CallRecord>>(records: &[R], expected: &[ExpectedCall]) -> Result<(), Mismatch> {
    let fits: Vec<Vec<usize>> =
        expected.iter().map(|e| (0..records.len()).filter(|&r| e.matches(records[r].as_ref())).collect()).collect();
    let mut owner: Vec<Option<usize>> = vec![None; records.len()];
    let mut unmatched = Vec::new();
    for e in 0..expected.len() {
        let mut seen = vec![false; records.len()];
        if !augment(e, &fits, &mut owner, &mut seen) {
            unmatched.push(e);
        }
    }
    if unmatched.is_empty() {
        return Ok(());
    }
    let marks: Vec<Option<String>> = (0..expected.len())
        .map(|e| {
            unmatched.contains(&e).then(|| {
                if fits[e].is_empty() {
                    "no call like it".to_owned()
                } else {
                    "its calls are taken by others".to_owned()
                }
            })
        })
        .collect();
    let summary = format!("unordered: {} of {} expected calls did not happen", unmatched.len(), expected.len());
    Err(mismatch(summary, expected, &marks, records))
}

/// Kuhn's augmenting path: gives expectation `e` a record, moving others if need be.
fn augment(e: usize, fits: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
    for &r in &fits[e] {
        if seen[r] {
            continue;
        }
        seen[r] = true;
        if owner[r].is_none_or(|other| augment(other, fits, owner, seen)) {
            owner[r] = Some(e);
            return true;
        }
    }
    false
}

/// [`exact`], panicking with the side-by-side comparison.
#[track_caller]
pub fn assert_exact<R: AsRef<CallRecord>>(records: &[R], expected: &[ExpectedCall]) {
    if let Err(mismatch) = exact(records, expected) {
        panic!("{mismatch}");
    }
}

/// [`in_order`], panicking with the side-by-side comparison.
#[track_caller]
pub fn assert_in_order<R: AsRef<CallRecord>>(records: &[R], expected: &[ExpectedCall]) {
    if let Err(mismatch) = in_order(records, expected) {
        panic!("{mismatch}");
    }
}

/// [`unordered`], panicking with the side-by-side comparison.
#[track_caller]
pub fn assert_unordered<R: AsRef<CallRecord>>(records: &[R], expected: &[ExpectedCall]) {
    if let Err(mismatch) = unordered(records, expected) {
        panic!("{mismatch}");
    }
}
