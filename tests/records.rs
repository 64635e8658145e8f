//! Every call leaves exactly one record, whatever happened to it. (Spans: `tests/spans.rs`.)

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolkit::prelude::*;
use toolkit::{CallRecord, Outcome};

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Wait, then answer.
#[tool(timeout = "50ms")]
async fn wait(
    /// Milliseconds to wait.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "done".into()
}

/// Fail loudly.
#[tool]
fn boom() -> String {
    panic!("boom")
}

fn collecting() -> (Toolbox, Arc<Mutex<Vec<CallRecord>>>) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let tools = toolbox![add, wait, boom].with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone()));
    (tools, records)
}

#[tokio::test]
async fn every_call_leaves_exactly_one_record_whatever_happened() {
    let (tools, records) = collecting();
    let calls = vec![
        ToolCall::new("1", "add", r#"{"a": 1, "b": 2}"#),
        ToolCall::new("2", "wait", r#"{"ms": 1}"#),
        ToolCall::new("3", "wait", r#"{"ms": 5000}"#),
        ToolCall::new("4", "boom", "{}"),
        ToolCall::new("5", "add", r#"{"a": "one"}"#),
        ToolCall::new("6", "subtract", "{}"),
        ToolCall::new("7", "add", "not json"),
    ];
    let results = tools.call_all(calls.clone()).await;
    let mut records = records.lock().unwrap().clone();
    assert_eq!(records.len(), calls.len(), "{records:#?}");
    records.sort_by(|a, b| a.call_id.cmp(&b.call_id));
    let outcomes: Vec<Outcome> = records.iter().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Ok,
            Outcome::Ok,
            Outcome::Failed(ErrorKind::TimedOut),
            Outcome::Failed(ErrorKind::Panicked),
            Outcome::Failed(ErrorKind::InvalidType),
            Outcome::Failed(ErrorKind::UnknownTool),
            Outcome::Failed(ErrorKind::MalformedJson),
        ]
    );
    for ((record, call), result) in records.iter().zip(&calls).zip(&results) {
        assert_eq!(record.call_id, call.id);
        assert_eq!(record.tool, call.name);
        assert_eq!(record.arguments, call.arguments, "arguments exactly as sent");
        assert_eq!(record.content, result.content, "the text the model saw");
    }
    assert_eq!(records[3].detail.as_deref(), Some("panic: boom"), "operator detail is kept");
    assert!(records[2].duration >= Duration::from_millis(50), "{:?}", records[2].duration);
}

#[tokio::test]
async fn a_panicking_sink_loses_nothing() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let tools = toolbox![add]
        .with_sink(|_: &CallRecord| panic!("sink failure"))
        .with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.call_id.clone()));
    let r = tools.call(ToolCall::new("x", "add", r#"{"a": 2, "b": 2}"#)).await;
    assert_eq!(r.content, "4");
    assert_eq!(*records.lock().unwrap(), ["x"]);
}
