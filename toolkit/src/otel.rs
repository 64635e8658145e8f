//! OpenTelemetry metrics of tool calls, after the GenAI semantic conventions (feature
//! `otel`).
//!
//! Every call already runs in an `execute_tool {tool}` span (`tracing`; bridge it to
//! OpenTelemetry with `tracing-opentelemetry`), with `gen_ai.operation.name`,
//! `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, `error.type` on
//! failure and `toolkit.outcome`; [`Toolbox::with_span_content`](crate::Toolbox::with_span_content)
//! adds the arguments and the result, redacted. [`ToolMetrics`] adds the duration
//! histogram. Exporting (OTLP or another) is the application's choice of SDK and
//! exporter; the `otel_export` example sends both over OTLP/HTTP.

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};

use crate::record::{CallRecord, Outcome, RecordSink};

/// The name of the duration histogram.
pub const DURATION: &str = "gen_ai.execute_tool.duration";

/// The bucket boundaries of the duration, in seconds: those the GenAI conventions give
/// for operation durations (10 ms doubling to about 82 s).
pub const DURATION_BUCKETS: [f64; 14] =
    [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/// A [`RecordSink`] that records each call's duration in the histogram
/// `gen_ai.execute_tool.duration` (seconds), with `gen_ai.operation.name`
/// (`execute_tool`), `gen_ai.tool.name`, `toolkit.outcome` and, for a failed call,
/// `error.type` (its [`ErrorKind`](crate::ErrorKind)). One record per call, so every
/// call is counted once, whatever ended it (a block, a cache hit, a cancellation).
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::otel::ToolMetrics;
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// // The meter of the application's `MeterProvider` (or the global one).
/// let meter = opentelemetry::global::meter("my-agent");
/// let tools = toolbox![add].with_sink(ToolMetrics::new(&meter));
/// # drop(tools);
/// ```
#[derive(Clone)]
pub struct ToolMetrics {
    duration: Histogram<f64>,
}

impl ToolMetrics {
    /// The histogram, made by `meter`.
    pub fn new(meter: &Meter) -> Self {
        let duration = meter
            .f64_histogram(DURATION)
            .with_unit("s")
            .with_description("Duration of tool execution")
            .with_boundaries(DURATION_BUCKETS.to_vec())
            .build();
        ToolMetrics { duration }
    }

    /// The histogram, made by the global meter provider's meter `toolkit`.
    pub fn global() -> Self {
        Self::new(&opentelemetry::global::meter("toolkit"))
    }
}

impl std::fmt::Debug for ToolMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolMetrics").field("histogram", &DURATION).finish()
    }
}

impl RecordSink for ToolMetrics {
    fn record(&self, record: &CallRecord) {
        let mut attributes = Vec::with_capacity(4);
        attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        attributes.push(KeyValue::new("gen_ai.tool.name", record.tool.clone()));
        attributes.push(KeyValue::new("toolkit.outcome", record.outcome.label()));
        if let Outcome::Failed(kind) | Outcome::Recovered(kind) = record.outcome {
            attributes.push(KeyValue::new("error.type", kind.as_str()));
        }
        self.duration.record(record.duration.as_secs_f64(), &attributes);
    }
}
