//! Trace context across MCP (feature `otel`), recorded with the OpenTelemetry SDK's
//! in-memory exporter behind `tracing-opentelemetry`: a request's `traceparent` becomes
//! the parent of the served call's spans, and `McpTools` sends the span it calls from, so
//! a call through an imported tool is one trace from the client's span to the server's
//! `execute_tool`.

mod support;

use std::sync::OnceLock;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use toolkit::mcp::{McpServer, McpTools};
use toolkit::prelude::*;
use toolkit::{ToolCall, Toolbox};
use tracing_subscriber::layer::SubscriberExt;

/// Add two integers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The spans of this test binary, recorded by one global subscriber.
fn exporter() -> &'static InMemorySpanExporter {
    static EXPORTER: OnceLock<InMemorySpanExporter> = OnceLock::new();
    EXPORTER.get_or_init(|| {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("mcp-trace-test"));
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).unwrap();
        exporter
    })
}

/// The finished spans named `name`.
fn spans(name: &str) -> Vec<SpanData> {
    exporter().get_finished_spans().unwrap().into_iter().filter(|s| s.name == name).collect()
}

/// The span whose id is `id`.
fn by_id(id: opentelemetry::trace::SpanId) -> Option<SpanData> {
    exporter().get_finished_spans().unwrap().into_iter().find(|s| s.span_context.span_id() == id)
}

async fn serve() -> (String, impl FnOnce()) {
    let http = McpServer::new(toolbox![add]).bind_http("127.0.0.1:0").await.unwrap();
    let (url, stop) = (http.url(), http.shutdown_token());
    tokio::spawn(http.run());
    (url, move || stop.cancel())
}

/// A stateless `tools/call` of `add` with JSON-RPC id `id` and these `_meta` entries;
/// then the `tools/call add` span that served it (found through its `execute_tool`
/// span, whose call id ends with the JSON-RPC id).
async fn served_span(url: &str, id: u64, trace: serde_json::Value) -> SpanData {
    let params = json!({"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": trace});
    let (_, reply) = support::modern_request(url, id, "tools/call", params, json!({}), &[]).await;
    assert_eq!(reply["result"]["content"][0]["text"], "5", "{reply}");
    let suffix = format!("-{id}");
    let tool = spans("execute_tool add")
        .into_iter()
        .find(|s| {
            s.attributes
                .iter()
                .any(|kv| kv.key.as_str() == "gen_ai.tool.call.id" && kv.value.as_str().ends_with(&suffix))
        })
        .expect("the call's execute_tool span");
    let served = by_id(tool.parent_span_id).expect("execute_tool has a recorded parent");
    assert_eq!(served.name, "tools/call add");
    assert_eq!(served.span_context.trace_id(), tool.span_context.trace_id());
    served
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_requests_traceparent_is_the_parent_of_the_served_call() {
    exporter();
    let (url, stop) = serve().await;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let served = served_span(&url, 4101, json!({"traceparent": traceparent, "tracestate": "vendor=1"})).await;
    assert_eq!(served.span_context.trace_id().to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(served.span_kind, opentelemetry::trace::SpanKind::Server);
    assert_eq!(served.parent_span_id.to_string(), "00f067aa0ba902b7", "the client's span is its parent");
    assert!(served.parent_span_is_remote);
    assert_eq!(served.span_context.trace_state().get("vendor"), Some("1"));

    // A malformed traceparent is ignored (as W3C says): the call starts a trace of its own
    // (a root: not a child of the SDK's connection span).
    let malformed = "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01";
    let served = served_span(&url, 4102, json!({"traceparent": malformed})).await;
    assert_eq!(served.parent_span_id, opentelemetry::trace::SpanId::INVALID);
    assert_ne!(served.span_context.trace_id().to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
    stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_tool_carries_its_trace_to_the_server() {
    exporter();
    let (url, stop) = serve().await;
    let remote = McpTools::connect_http(&url).await.unwrap().with_prefix("remote_");
    let mut tools = Toolbox::new();
    remote.add_to(&mut tools).unwrap();

    let root = tracing::info_span!("agent turn");
    let trace = {
        use opentelemetry::trace::TraceContextExt;
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        root.context().span().span_context().trace_id()
    };
    let result =
        tracing::Instrument::instrument(tools.call(ToolCall::new("1", "remote_add", r#"{"a":1,"b":2}"#)), root).await;
    assert_eq!(result.content, "3");
    remote.close().await;
    stop();

    // Client side: `execute_tool remote_add`; server side, in the same trace, a
    // `tools/call add` whose parent is that span, and its `execute_tool add`.
    let in_trace =
        |name: &str| spans(name).into_iter().filter(|s| s.span_context.trace_id() == trace).collect::<Vec<_>>();
    let client = in_trace("execute_tool remote_add");
    assert_eq!(client.len(), 1, "{client:?}");
    let served = in_trace("tools/call add");
    assert_eq!(served.len(), 1, "the server joined the client's trace: {served:?}");
    assert_eq!(served[0].parent_span_id, client[0].span_context.span_id());
    let executed = in_trace("execute_tool add");
    assert_eq!(executed.len(), 1, "{executed:?}");
    assert_eq!(executed[0].parent_span_id, served[0].span_context.span_id());
}
