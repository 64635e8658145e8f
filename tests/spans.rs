//! Every call runs in an `execute_tool` span that any tracing subscriber (or
//! OpenTelemetry exporter) sees, with the GenAI attributes; what a tool logs lands in it.
//!
//! One test in its own binary, with a global subscriber: tracing caches each callsite's
//! interest process-wide, so a scoped subscriber racing other test threads could miss
//! events.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolkit::prelude::*;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    tracing::info!("adding");
    a + b
}

/// Wait, then answer.
#[tool]
async fn wait(
    /// Milliseconds to wait.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    tracing::info!("waited");
    "done".into()
}

// ---- a subscriber that remembers spans, their fields, and where events happened ----

#[derive(Default)]
struct Captured {
    spans: Vec<(String, BTreeMap<String, String>)>,
    /// Each span's parent: the span current where it was created.
    parents: Vec<Option<u64>>,
    events: Vec<(String, Option<u64>)>,
}

#[derive(Default)]
struct Capture {
    seen: Mutex<Captured>,
}

thread_local! {
    static CURRENT: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_string(), format!("{value:?}"));
    }
}

/// The subscriber: a handle on the shared [`Capture`].
struct Probe(Arc<Capture>);

impl Subscriber for Probe {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = CURRENT.with(|c| c.borrow().last().copied());
        let mut seen = self.0.seen.lock().unwrap();
        seen.spans.push((attrs.metadata().name().to_string(), fields));
        seen.parents.push(parent);
        Id::from_u64(seen.spans.len() as u64)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut seen = self.0.seen.lock().unwrap();
        let index = span.into_u64() as usize - 1;
        values.record(&mut Fields(&mut seen.spans[index].1));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let current = CURRENT.with(|c| c.borrow().last().copied());
        let message = fields.remove("message").unwrap_or_default();
        self.0.seen.lock().unwrap().events.push((message, current));
    }
    fn enter(&self, span: &Id) {
        CURRENT.with(|c| c.borrow_mut().push(span.into_u64()));
    }
    fn exit(&self, _: &Id) {
        CURRENT.with(|c| c.borrow_mut().pop());
    }
}

#[test]
fn every_call_runs_in_an_execute_tool_span_with_the_genai_attributes() {
    let capture = Arc::new(Capture::default());
    tracing::subscriber::set_global_default(Probe(Arc::clone(&capture))).expect("the only subscriber");
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    let tools = toolbox![add, wait];
    let guarded = toolbox![add]
        .with_hook(toolkit::Hook::before("deny", |_: &mut BeforeCall<'_>| toolkit::Decision::Block("not now".into())));
    rt.block_on(async {
        tools.call(ToolCall::new("call_1", "add", r#"{"a": 1, "b": 2}"#)).await;
        tools.call(ToolCall::new("call_2", "wait", r#"{"ms": 5}"#)).await;
        tools.call(ToolCall::new("call_3", "add", "{}")).await;
        guarded.call(ToolCall::new("call_4", "add", r#"{"a": 1, "b": 2}"#)).await;
    });
    let seen = capture.seen.lock().unwrap();
    let spans: Vec<_> = seen.spans.iter().filter(|(name, _)| name == "execute_tool").collect();
    assert_eq!(spans.len(), 4);
    let (_, first) = spans[0];
    assert_eq!(first["otel.name"], "execute_tool add");
    assert_eq!(first["gen_ai.operation.name"], "execute_tool");
    assert_eq!(first["gen_ai.tool.name"], "add");
    assert_eq!(first["gen_ai.tool.call.id"], "call_1");
    assert_eq!(first["gen_ai.tool.type"], "function");
    assert!(!first.contains_key("error.type"), "a success records no error");
    assert_eq!(spans[2].1["error.type"], "missing_field");
    assert_eq!(first["toolkit.outcome"], "ok");
    assert_eq!(spans[2].1["toolkit.outcome"], "failed");
    assert_eq!(spans[3].1["toolkit.outcome"], "blocked", "a hooked call is traced the same way");
    assert_eq!(spans[3].1["error.type"], "blocked");

    // What the tools log happens inside their call's span, sync and async alike.
    let span_of = |message: &str| seen.events.iter().find(|(m, _)| m == message).and_then(|(_, s)| *s);
    let id_of = |call_id: &str| {
        seen.spans
            .iter()
            .position(|(_, f)| f.get("gen_ai.tool.call.id").is_some_and(|v| v == call_id))
            .map(|i| i as u64 + 1)
    };
    assert_eq!(span_of("adding"), id_of("call_1"));
    assert_eq!(span_of("waited"), id_of("call_2"));
    drop(seen);

    // An agent run is an `invoke_agent` span, and its tool calls are traced inside it.
    let model = ScriptedModel::new([Turn::call("add", r#"{"a": 2, "b": 2}"#), Turn::text("4")]);
    let agent = Agent::builder(model, toolbox![add]).name("calculator").build().unwrap();
    rt.block_on(async { agent.run("2 + 2?").await }).unwrap();
    let seen = capture.seen.lock().unwrap();
    let run = seen.spans.iter().position(|(name, _)| name == "invoke_agent").expect("an invoke_agent span");
    assert_eq!(seen.spans[run].1["gen_ai.agent.name"], "calculator");
    assert_eq!(seen.spans[run].1["gen_ai.operation.name"], "invoke_agent");
    let call = seen.spans.iter().enumerate().skip(run).find(|(_, (name, _))| name == "execute_tool").map(|(i, _)| i);
    assert_eq!(call.map(|i| seen.parents[i]), Some(Some(run as u64 + 1)), "the call's span is inside the run's");
}
