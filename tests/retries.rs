//! Per-tool retry policies: `#[tool(retries = .., backoff = "..")]`, `ToolSpec::with_retry`
//! and the `Retry` hook. Time is Tokio's paused clock, so the pauses are exact and cost
//! nothing.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use toolkit::hook::Hook;
use toolkit::hooks::Retry;
use toolkit::prelude::*;
use toolkit::{CallRecord, DynTool, Effect, ErrorKind, FnTool, Outcome, RetryPolicy, ToolSpec};

/// How many times a tool ran, and how many of those should fail.
#[derive(Default)]
struct Flaky {
    ran: AtomicU32,
    failures: u32,
}

impl Flaky {
    fn failing(failures: u32) -> Self {
        Flaky { ran: AtomicU32::new(0), failures }
    }

    fn run(&self) -> Result<String, std::io::Error> {
        let n = self.ran.fetch_add(1, Ordering::SeqCst) + 1;
        if n <= self.failures {
            return Err(std::io::Error::other(format!("upstream unavailable (attempt {n})")));
        }
        Ok(format!("rates after {n} attempts"))
    }
}

/// Get exchange rates.
#[tool(read_only, retries = 3, backoff = "100ms")]
async fn rates(#[state] flaky: &Flaky, base: String) -> Result<String, std::io::Error> {
    let _ = base;
    flaky.run()
}

/// Get exchange rates, without a policy.
#[tool(read_only)]
async fn rates_once(#[state] flaky: &Flaky) -> Result<String, std::io::Error> {
    flaky.run()
}

/// Set a user's display name (the same call twice leaves the same name).
#[tool(idempotent, retries = 1)]
fn set_name(#[state] flaky: &Flaky, name: String) -> Result<String, std::io::Error> {
    flaky.run().map(|_| name)
}

fn recorded(tools: Toolbox) -> (Toolbox, Arc<Mutex<Vec<CallRecord>>>) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    (tools.with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone())), records)
}

#[tokio::test(start_paused = true)]
async fn a_declared_policy_retries_with_growing_pauses_and_the_record_says_so() {
    let (tools, records) = recorded(toolbox![rates].with_state(Flaky::failing(2)));
    assert_eq!(tools.hooks().names(), ["retries"], "the toolbox adds the hook itself");

    let started = tokio::time::Instant::now();
    let result = tools.call(ToolCall::new("c1", "rates", r#"{"base": "EUR"}"#)).await;
    let waited = started.elapsed();

    assert_eq!(result.content, "rates after 3 attempts");
    assert!(!result.is_error());
    // Equal jitter: at least half of 100 ms, then of 200 ms; at most all of both.
    assert!(waited >= Duration::from_millis(150) && waited <= Duration::from_millis(300), "{waited:?}");
    let records = records.lock().unwrap();
    let record = &records[0];
    assert_eq!(record.outcome, Outcome::Ok);
    assert_eq!(record.attempts, 3);
    let retries: Vec<_> = record.hooks.iter().filter(|a| a.effect == Effect::Retried).collect();
    assert_eq!(retries.len(), 2);
    assert!(retries.iter().all(|a| a.hook == "retries"));
    let detail = retries[0].detail.as_deref().unwrap();
    assert!(detail.starts_with("attempt 2 of 4 after ") && detail.ends_with(" ms (tool_failed)"), "{detail}");
}

#[tokio::test(start_paused = true)]
async fn past_its_retries_the_last_failure_is_the_result() {
    let flaky = Flaky::failing(10);
    let (tools, records) = recorded(toolbox![rates].with_state(flaky));
    let result = tools.call(ToolCall::new("c1", "rates", r#"{"base": "EUR"}"#)).await;
    assert!(result.is_error());
    assert!(result.content.contains("upstream unavailable (attempt 4)"), "{}", result.content);
    let records = records.lock().unwrap();
    assert_eq!(records[0].outcome, Outcome::Failed(ErrorKind::ToolFailed));
    assert_eq!(records[0].attempts, 4, "retries = 3 is the tool's own limit, above the toolbox's 2");
}

#[tokio::test(start_paused = true)]
async fn a_call_the_model_got_wrong_is_not_retried() {
    let (tools, records) = recorded(toolbox![rates].with_state(Flaky::failing(1)));
    let result = tools.call(ToolCall::new("c1", "rates", r#"{"base": 7}"#)).await;
    assert!(result.is_error());
    assert_eq!(records.lock().unwrap()[0].attempts, 1);
}

#[tokio::test(start_paused = true)]
async fn tools_without_a_policy_are_not_retried_and_skip_the_hook() {
    let (tools, records) = recorded(toolbox![rates, rates_once].with_state(Flaky::failing(1)));
    let result = tools.call(ToolCall::new("c1", "rates_once", "{}")).await;
    assert!(result.is_error());
    let records = records.lock().unwrap();
    assert_eq!(records[0].attempts, 1);
    assert!(records[0].hooks.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_sync_idempotent_tool_is_retried_too() {
    let (tools, records) = recorded(toolbox![set_name].with_state(Flaky::failing(1)));
    let result = tools.call(ToolCall::new("c1", "set_name", r#"{"name": "Ada"}"#)).await;
    assert_eq!(result.content, "Ada");
    assert_eq!(records.lock().unwrap()[0].attempts, 2);
}

fn dynamic(name: &str, annotations: toolkit::Annotations, flaky: Arc<Flaky>) -> impl DynTool {
    let spec = ToolSpec::new(name, "Call upstream.", json!({"type": "object", "properties": {}}))
        .with_annotations(annotations)
        .with_retry(RetryPolicy::new(2, Duration::from_millis(50)));
    FnTool::new(spec, move |_| {
        let flaky = Arc::clone(&flaky);
        async move { flaky.run().map(Output::text).map_err(|e| ToolError::new(ErrorKind::ToolFailed, e.to_string())) }
    })
}

#[tokio::test(start_paused = true)]
async fn a_run_time_tool_declares_a_policy_in_its_spec_and_a_destructive_one_is_never_retried() {
    let safe = Arc::new(Flaky::failing(1));
    let unsafe_ = Arc::new(Flaky::failing(1));
    let mut tools = Toolbox::new();
    tools
        .add_dynamic(dynamic(
            "lookup",
            toolkit::Annotations { read_only: true, ..Default::default() },
            Arc::clone(&safe),
        ))
        .unwrap();
    let wipe = toolkit::Annotations { idempotent: true, destructive: true, ..Default::default() };
    tools.add_dynamic(dynamic("wipe", wipe, Arc::clone(&unsafe_))).unwrap();
    let (tools, records) = recorded(tools);

    assert_eq!(tools.call(ToolCall::new("c1", "lookup", "{}")).await.content, "rates after 2 attempts");
    assert!(tools.call(ToolCall::new("c2", "wipe", "{}")).await.is_error());
    assert_eq!(safe.ran.load(Ordering::SeqCst), 2);
    assert_eq!(unsafe_.ran.load(Ordering::SeqCst), 1, "destructive: never run again");
    assert_eq!(records.lock().unwrap()[1].attempts, 1);
}

#[tokio::test(start_paused = true)]
async fn the_retry_hook_gives_a_policy_to_tools_that_declare_none() {
    let flaky = Arc::new(Flaky::failing(2));
    let spec = ToolSpec::new("mcp_weather", "Weather.", json!({"type": "object", "properties": {}}))
        .with_annotations(toolkit::Annotations { read_only: true, ..Default::default() });
    let ran = Arc::clone(&flaky);
    let tool = FnTool::new(spec, move |_| {
        let flaky = Arc::clone(&ran);
        async move { flaky.run().map(Output::text).map_err(|e| ToolError::new(ErrorKind::ToolFailed, e.to_string())) }
    });
    let mut tools = Toolbox::new();
    tools.add_dynamic(tool).unwrap();
    let tools = tools.with_hook(Hook::from(Retry::new(5, Duration::from_millis(10))).matching("mcp_*"));
    let (tools, records) = recorded(tools);
    let result = tools.call(ToolCall::new("c1", "mcp_weather", "{}")).await;
    assert_eq!(result.content, "rates after 3 attempts");
    let records = records.lock().unwrap();
    assert_eq!(records[0].attempts, 3, "within the toolbox's limit of 2 retries");
    assert!(records[0].hooks.iter().all(|a| a.hook == "retry"));
}
