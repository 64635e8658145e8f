//! The `otel_export` example against an OTLP/HTTP receiver started here (an axum server
//! decoding the protocol's own protobuf messages, as a collector does): the spans and
//! the duration histogram arrive with the GenAI attributes, and the span's copy of the
//! arguments is redacted.

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

#[derive(Default)]
struct Received {
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
}

type Shared = Arc<Mutex<Received>>;

async fn traces(State(shared): State<Shared>, body: Bytes) -> &'static str {
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP trace export");
    shared.lock().unwrap().traces.push(request);
    ""
}

async fn metrics(State(shared): State<Shared>, body: Bytes) -> &'static str {
    let request = ExportMetricsServiceRequest::decode(body).expect("an OTLP metrics export");
    shared.lock().unwrap().metrics.push(request);
    ""
}

/// Attributes as strings (an integer as its digits).
fn attributes(list: &[KeyValue]) -> BTreeMap<String, String> {
    list.iter()
        .map(|kv| {
            let value = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(any_value::Value::StringValue(s)) => s.clone(),
                Some(any_value::Value::IntValue(i)) => i.to_string(),
                Some(any_value::Value::BoolValue(b)) => b.to_string(),
                other => format!("{other:?}"),
            };
            (kv.key.clone(), value)
        })
        .collect()
}

#[tokio::test]
async fn spans_and_the_duration_histogram_reach_an_otlp_receiver() {
    let shared = Shared::default();
    let app = Router::new()
        .route("/v1/traces", post(traces))
        .route("/v1/metrics", post(metrics))
        .with_state(Arc::clone(&shared));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let out = tokio::process::Command::new(support::example("otel_export"))
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
        .output()
        .await
        .expect("otel_export runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("lookup ok") && stdout.contains("refund failed"), "{stdout}");

    let received = shared.lock().unwrap();
    let spans: Vec<&Span> = received
        .traces
        .iter()
        .flat_map(|r| &r.resource_spans)
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans)
        .collect();
    let span = |name: &str| {
        spans
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no span `{name}` among {:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>()))
    };

    let lookup = span("execute_tool lookup");
    let attrs = attributes(&lookup.attributes);
    assert_eq!(attrs["gen_ai.operation.name"], "execute_tool");
    assert_eq!(attrs["gen_ai.tool.name"], "lookup");
    assert_eq!(attrs["gen_ai.tool.type"], "function");
    assert_eq!(attrs["toolkit.outcome"], "ok");
    assert!(attrs["gen_ai.tool.call.id"].starts_with("call_"), "{attrs:?}");
    let arguments = &attrs["gen_ai.tool.call.arguments"];
    assert!(arguments.contains("[REDACTED"), "{arguments}");
    assert!(!arguments.contains("sk_live_51HxQ2sEv8YpLm4NcR7tWzK9b"), "the key leaked: {arguments}");
    assert_eq!(attrs["gen_ai.tool.call.result"], "[REDACTED:email]: gold tier, 3 open orders");

    let refund = span("execute_tool refund");
    let attrs = attributes(&refund.attributes);
    assert_eq!(attrs["error.type"], "tool_failed");
    assert_eq!(attrs["toolkit.outcome"], "failed");
    assert!(!attrs.contains_key("gen_ai.tool.call.result"), "a failed call has no result: {attrs:?}");

    // Both calls belong to the run's trace, under its `invoke_agent` span.
    let agent = spans.iter().find(|s| s.name.starts_with("invoke_agent")).expect("the run's span");
    assert_eq!(lookup.trace_id, agent.trace_id);
    assert_eq!(refund.trace_id, agent.trace_id);

    // The histogram: one data point per tool, each counting its one call.
    let histogram = received
        .metrics
        .iter()
        .flat_map(|r| &r.resource_metrics)
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .find(|m| m.name == "gen_ai.execute_tool.duration")
        .expect("the duration histogram");
    assert_eq!(histogram.unit, "s");
    let Some(Data::Histogram(data)) = &histogram.data else { panic!("not a histogram: {histogram:?}") };
    let mut points: Vec<BTreeMap<String, String>> = data
        .data_points
        .iter()
        .map(|p| {
            let mut attrs = attributes(&p.attributes);
            attrs.insert("count".into(), p.count.to_string());
            attrs.insert("buckets".into(), p.explicit_bounds.len().to_string());
            attrs
        })
        .collect();
    points.sort_by(|a, b| a["gen_ai.tool.name"].cmp(&b["gen_ai.tool.name"]));
    assert_eq!(points.len(), 2, "{points:?}");
    assert_eq!(points[0]["gen_ai.tool.name"], "lookup");
    assert_eq!(points[0]["toolkit.outcome"], "ok");
    assert_eq!(points[0]["count"], "1");
    assert_eq!(points[0]["buckets"], "14");
    assert_eq!(points[1]["gen_ai.tool.name"], "refund");
    assert_eq!(points[1]["error.type"], "tool_failed");
    assert_eq!(points[1]["gen_ai.operation.name"], "execute_tool");
}
