//! Toolkit's telemetry over OTLP: each call's `execute_tool` span (with its arguments
//! and result, redacted) under the run's `invoke_agent` span, and the
//! `gen_ai.execute_tool.duration` histogram, sent to an OpenTelemetry collector.
//!
//! ```sh
//! # A collector listening for OTLP/HTTP on localhost:4318 (the OpenTelemetry Collector,
//! # Jaeger, Grafana Alloy, ...), then:
//! cargo run --example otel_export
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 cargo run --example otel_export
//! ```
//!
//! The model is scripted (no key needed): it looks a customer up (the call carries an
//! API key, which the span's copy of the arguments redacts), then asks for a refund the
//! tool refuses (the span says `error.type = tool_failed`).

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use toolkit::agent::Agent;
use toolkit::hooks::Redactor;
use toolkit::model::{ScriptedModel, Turn};
use toolkit::otel::ToolMetrics;
use toolkit::prelude::*;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Look a customer up by email.
#[tool(read_only)]
fn lookup(
    /// The customer's email.
    email: String,
    /// The CRM's API key.
    api_key: String,
) -> String {
    let _ = api_key;
    format!("{email}: gold tier, 3 open orders")
}

/// Refund an order.
#[tool(destructive)]
fn refund(
    /// The order number.
    order: u64,
) -> Result<String, String> {
    Err(format!("order {order} is older than 90 days and cannot be refunded"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint = std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").unwrap_or_else(|_| "http://localhost:4318".into());
    let endpoint = endpoint.trim_end_matches('/');
    let resource = Resource::builder().with_service_name("toolkit-otel-example").build();

    // The SDK and its OTLP/HTTP exporters: the application's choice, not toolkit's.
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("{endpoint}/v1/traces"))
        .build()?;
    let tracer_provider =
        SdkTracerProvider::builder().with_batch_exporter(spans).with_resource(resource.clone()).build();
    let metrics = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_endpoint(format!("{endpoint}/v1/metrics"))
        .build()?;
    let meter_provider = SdkMeterProvider::builder().with_periodic_exporter(metrics).with_resource(resource).build();

    // toolkit's spans are `tracing` spans: bridged to OpenTelemetry by its layer.
    let tracer = tracer_provider.tracer("toolkit-otel-example");
    tracing_subscriber::registry().with(tracing_opentelemetry::layer().with_tracer(tracer)).init();

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let text = runtime.block_on(async {
        let tools = toolbox![lookup, refund]
            .with_sink(ToolMetrics::new(&meter_provider.meter("toolkit")))
            .with_span_content(Redactor::new());
        let model = ScriptedModel::new([
            Turn::call("lookup", r#"{"email": "ana@example.com", "api_key": "sk_live_51HxQ2sEv8YpLm4NcR7tWzK9b"}"#),
            Turn::call("refund", r#"{"order": 1042}"#),
            Turn::text("Ana is a gold customer; order 1042 is too old to refund."),
        ]);
        let agent = Agent::builder(model, tools).name("support").build()?;
        let run = agent.run("Refund Ana's order 1042.").await?;
        for record in &run.records {
            println!("{} {} in {:?}", record.tool, record.outcome, record.duration);
        }
        Ok::<_, Box<dyn std::error::Error>>(run.text)
    })?;
    println!("answer: {text}");

    // Flush: the batch exporter and the periodic reader send what they hold.
    tracer_provider.shutdown()?;
    meter_provider.shutdown()?;
    println!("spans and metrics sent to {endpoint}");
    Ok(())
}
