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

/// A sink whose every method panics.
struct Broken;

impl toolkit::RecordSink for Broken {
    fn record(&self, _: &CallRecord) {
        panic!("record")
    }

    fn keeps_records(&self) -> bool {
        panic!("keeps_records")
    }
}

#[tokio::test]
async fn a_sink_that_panics_when_asked_whether_it_keeps_records_loses_nothing() {
    let keeper = Keeper::default();
    let tools = toolbox![add].with_sink(Broken).with_sink(keeper.clone());
    let r = tools.call(ToolCall::new("y", "add", r#"{"a": 2, "b": 3}"#)).await;
    assert_eq!((r.call_id.as_str(), r.content.as_str()), ("y", "5"));
    let text = tools.call_ref(ToolCallRef::new("z", "add", r#"{"a": 1, "b": 3}"#)).await;
    assert_eq!(text.unwrap(), "4");
    let kept: Vec<String> = keeper.0.lock().unwrap().iter().map(|r| r.call_id.clone()).collect();
    assert_eq!(kept, ["y", "z"]);
}

#[tokio::test]
async fn a_call_its_caller_stops_waiting_for_is_recorded_as_cancelled() {
    let (tools, records) = collecting();
    // The caller gives up after 5 ms on a call that would take 40 (within its timeout).
    let call = tools.call(ToolCall::new("c1", "wait", r#"{"ms": 40}"#));
    assert!(tokio::time::timeout(Duration::from_millis(5), call).await.is_err());
    // A call that ends is recorded once, as before; the abandoned one once, as cancelled.
    tools.call(ToolCall::new("c2", "add", r#"{"a": 1, "b": 2}"#)).await;
    let records = records.lock().unwrap().clone();
    let seen: Vec<(&str, Outcome)> = records.iter().map(|r| (r.call_id.as_str(), r.outcome)).collect();
    assert_eq!(seen, [("c1", Outcome::Cancelled), ("c2", Outcome::Ok)]);
    assert_eq!(records[0].arguments, r#"{"ms": 40}"#);
    assert_eq!(records[0].content, "", "nothing reached the model");
}

/// A sink that keeps every record it is lent.
#[derive(Clone, Default)]
struct Keeper(Arc<Mutex<Vec<Arc<CallRecord>>>>);

impl toolkit::RecordSink for Keeper {
    fn record(&self, record: &CallRecord) {
        self.0.lock().unwrap().push(Arc::new(record.clone()));
    }

    fn keeps_records(&self) -> bool {
        true
    }

    fn record_shared(&self, record: &Arc<CallRecord>) {
        self.0.lock().unwrap().push(Arc::clone(record));
    }
}

#[tokio::test]
async fn sinks_that_keep_records_share_one_copy_and_the_result_keeps_its_strings() {
    let (first, second) = (Keeper::default(), Keeper::default());
    let read = Arc::new(Mutex::new(Vec::new()));
    let reader = Arc::clone(&read);
    let tools = toolbox![add, boom]
        .with_sink(first.clone())
        .with_sink(move |r: &CallRecord| reader.lock().unwrap().push((r.call_id.clone(), r.content.clone())))
        .with_sink(second.clone());
    let ok = tools.call(ToolCall::new("call_1", "add", r#"{"a": 20, "b": 22}"#)).await;
    let failed = tools.call(ToolCall::new("call_2", "boom", "{}")).await;
    let text = tools.call_ref(ToolCallRef::new("call_3", "add", r#"{"a": 1, "b": 1}"#)).await;

    // The strings lent to the sinks came back into each result.
    assert_eq!(
        (ok.call_id.as_str(), ok.name.as_str(), ok.content.as_str(), ok.error.is_none()),
        ("call_1", "add", "42", true)
    );
    assert_eq!((failed.call_id.as_str(), failed.name.as_str()), ("call_2", "boom"));
    assert_eq!(failed.kind(), Some(ErrorKind::Panicked));
    assert_eq!(text.unwrap(), "2");

    // Every sink saw every call, in order, with the text the model read.
    let seen = read.lock().unwrap().clone();
    let expected: Vec<(String, String)> = [("call_1", "42"), ("call_2", failed.content.as_str()), ("call_3", "2")]
        .map(|(a, b)| (a.into(), b.into()))
        .into();
    assert_eq!(seen, expected);
    let (first, second) = (first.0.lock().unwrap(), second.0.lock().unwrap());
    assert_eq!(first.len(), 3);
    for (a, b) in first.iter().zip(second.iter()) {
        // One copy per call, whichever sinks keep it.
        assert!(Arc::ptr_eq(a, b), "{a:?} and {b:?} are separate copies");
    }
    assert_eq!(first[0].arguments, r#"{"a": 20, "b": 22}"#);
    assert_eq!(first[1].outcome, Outcome::Failed(ErrorKind::Panicked));
    assert_eq!(first[2].tool, "add");
}
