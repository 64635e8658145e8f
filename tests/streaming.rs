//! Streaming runs: the model's text as it is written, tool calls and results, turn
//! boundaries and the outcome last, one event type for every model; dropping the stream
//! cancels the run, and every call it started is still recorded.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolkit::Outcome;
use toolkit::agent::{Agent, AgentError, RunEvent};
use toolkit::model::{ModelError, ScriptedModel, StreamExt, Turn};
use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Wait a long time.
#[tool]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(30)).await;
    "done".into()
}

#[tokio::test]
async fn events_arrive_in_order_and_the_deltas_make_the_answer() {
    let model = ScriptedModel::new([
        Turn::calls([("add", r#"{"a": 2, "b": 3}"#), ("add", r#"{"a": 10, "b": 20}"#)]),
        Turn::text("The sums are 5 and 30."),
    ]);
    let agent = Agent::builder(model, toolbox![add]).build().unwrap();
    let events: Vec<RunEvent> = agent.run_stream("Add twice.").collect().await;
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match e {
            RunEvent::TurnStarted { iteration } => format!("turn {iteration}"),
            RunEvent::TextDelta { .. } => "delta".into(),
            RunEvent::TurnEnded { finish_reason, .. } => format!("end {finish_reason}"),
            RunEvent::ToolCall { call } => format!("call {}", call.arguments),
            RunEvent::ToolResult { record } => format!("result {}", record.content),
            RunEvent::Finished(_) => "finished".into(),
            _ => "other".into(),
        })
        .collect();
    let mut deduped = kinds.clone();
    deduped.dedup();
    assert_eq!(
        deduped,
        [
            "turn 1",
            "end tool_calls",
            r#"call {"a": 2, "b": 3}"#,
            r#"call {"a": 10, "b": 20}"#,
            "result 5",
            "result 30",
            "turn 2",
            "delta",
            "end stop",
            "finished"
        ]
    );
    assert!(kinds.iter().filter(|k| *k == "delta").count() > 1, "the text came in pieces: {kinds:?}");
    let text: String = events
        .iter()
        .filter_map(|e| if let RunEvent::TextDelta { text, .. } = e { Some(text.as_str()) } else { None })
        .collect();
    let Some(RunEvent::Finished(Ok(run))) = events.last() else { panic!("{:?}", events.last()) };
    assert_eq!(text, run.text);
    assert_eq!(run.records.len(), 2);
    // The events carry the run's own records, not copies of them.
    let streamed: Vec<_> = events
        .iter()
        .filter_map(|e| if let RunEvent::ToolResult { record } = e { Some(record) } else { None })
        .collect();
    assert_eq!(streamed.len(), 2);
    for (event, kept) in streamed.iter().zip(&run.records) {
        assert!(std::sync::Arc::ptr_eq(event, kept), "{event:?} is a copy of {kept:?}");
    }
}

#[tokio::test]
async fn a_model_error_ends_the_stream_with_it() {
    let model = ScriptedModel::new([Turn::fail(ModelError::MalformedResponse { message: "cut".into() })]);
    let agent = Agent::builder(model, Toolbox::new()).build().unwrap();
    let events: Vec<RunEvent> = agent.run_stream("Hi").collect().await;
    assert!(matches!(events.last(), Some(RunEvent::Finished(Err(AgentError::Model { .. })))), "{events:?}");
}

#[tokio::test]
async fn dropping_the_stream_cancels_running_calls_and_records_them() {
    let seen: Arc<Mutex<Vec<CallRecord>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let tools = toolbox![slow].with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone()));
    let model = ScriptedModel::new([Turn::call("slow", "{}"), Turn::text("never")]);
    let agent = Agent::builder(model, tools).build().unwrap();
    let mut events = agent.run_stream("Wait.");
    // Read until the call has started, then give it a moment to be running.
    while let Some(event) = events.next().await {
        if matches!(event, RunEvent::ToolCall { .. }) {
            break;
        }
    }
    let _ = tokio::time::timeout(Duration::from_millis(50), events.next()).await;
    drop(events);
    let records = seen.lock().unwrap().clone();
    assert_eq!(records.len(), 1, "the cancelled call has its record, delivered as the stream is dropped");
    assert_eq!(records[0].outcome, Outcome::Cancelled);
    // Dropping did not wait for the 30 s tool: it never finished (no timing assertion).
    assert_eq!(records[0].tool_duration, None, "dropping does not wait for the tool");
}
