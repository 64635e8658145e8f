//! Trace context across MCP (W3C Trace Context in `params._meta`: `traceparent`,
//! `tracestate`).
//!
//! Every `tools/call` the server serves runs in a `tools/call {tool}` span (kind server),
//! the parent of the toolbox's `execute_tool` span, and a root unless the request names
//! its parent. With the `otel` feature, a request's
//! `traceparent` becomes that span's parent, so the call joins the client's trace in any
//! OpenTelemetry backend; and [`McpTools`](super::McpTools) sends the context of the span
//! it calls from. Without the feature (or without a `tracing-opentelemetry` layer in the
//! subscriber) the context is neither read nor sent.

use rmcp::model::RequestMetaObject;

/// The span a served `tools/call` of `tool` runs in: the parent of its `execute_tool`
/// span, itself a child of the client's span when the request carries a valid
/// `traceparent` (feature `otel`).
pub(super) fn server_span(tool: &str, meta: &RequestMetaObject) -> tracing::Span {
    if !tracing::dispatcher::has_been_set() {
        return tracing::Span::none();
    }
    // A root of its own unless the client's context is its parent: not a child of the
    // SDK's connection span, which would put a whole session's calls in one trace.
    let span = tracing::info_span!(
        parent: None,
        "tools/call",
        otel.name = %format_args!("tools/call {tool}"),
        otel.kind = "server",
        mcp.method.name = "tools/call",
        gen_ai.tool.name = %tool,
    );
    #[cfg(feature = "otel")]
    if let Some(parent) = meta.get_traceparent().and_then(|p| otel::remote(p, meta.get_tracestate())) {
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        // Refused only when no OpenTelemetry layer is installed: nothing to join then.
        let _ = span.set_parent(parent);
    }
    #[cfg(not(feature = "otel"))]
    let _ = meta;
    span
}

/// Puts the current span's trace context into `meta` (`traceparent`, and `tracestate`
/// when there is one), for the server to continue the trace. Nothing without the `otel`
/// feature, or when the current span has no OpenTelemetry context.
pub(super) fn inject(meta: &mut Option<RequestMetaObject>) {
    #[cfg(feature = "otel")]
    if let Some((parent, state)) = otel::current() {
        let meta = meta.get_or_insert_with(RequestMetaObject::default);
        meta.set_traceparent(parent);
        if let Some(state) = state {
            meta.set_tracestate(state);
        }
    }
    #[cfg(not(feature = "otel"))]
    let _ = meta;
}

#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// The remote parent a `traceparent` (version `00`: `00-{trace id}-{span id}-{flags}`,
    /// lowercase hex) names; `None` for a malformed one or all-zero ids, which W3C says
    /// to ignore. A malformed `tracestate` is dropped, the parent kept.
    pub(super) fn remote(traceparent: &str, tracestate: Option<&str>) -> Option<opentelemetry::Context> {
        let mut parts = traceparent.trim().split('-');
        let (version, trace, span, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let lower_hex =
            |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        // Version 00 has exactly four fields; a later version may add fields after them.
        if !lower_hex(version, 2) || version == "ff" || (version == "00" && parts.next().is_some()) {
            return None;
        }
        if !lower_hex(trace, 32) || !lower_hex(span, 16) || !lower_hex(flags, 2) {
            return None;
        }
        let trace_id = TraceId::from_hex(trace).ok()?;
        let span_id = SpanId::from_hex(span).ok()?;
        if trace_id == TraceId::INVALID || span_id == SpanId::INVALID {
            return None;
        }
        let flags = TraceFlags::new(u8::from_str_radix(flags, 16).ok()? & TraceFlags::SAMPLED.to_u8());
        let state = tracestate.and_then(|s| s.parse::<TraceState>().ok()).unwrap_or_default();
        let context = SpanContext::new(trace_id, span_id, flags, true, state);
        Some(opentelemetry::Context::new().with_remote_span_context(context))
    }

    /// The current span's `traceparent` and `tracestate`, when it has a valid context.
    pub(super) fn current() -> Option<(String, Option<String>)> {
        let context = tracing::Span::current().context();
        let span = context.span();
        let span = span.span_context();
        if !span.is_valid() {
            return None;
        }
        let parent = format!("00-{}-{}-{:02x}", span.trace_id(), span.span_id(), span.trace_flags().to_u8());
        let state = span.trace_state().header();
        Some((parent, (!state.is_empty()).then_some(state)))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn traceparents_are_read_as_w3c_says() {
            let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
            let context = remote(good, Some("vendor=value")).expect("valid");
            let span = context.span();
            let span = span.span_context();
            assert_eq!(span.trace_id().to_string(), "0af7651916cd43dd8448eb211c80319c");
            assert_eq!(span.span_id().to_string(), "b7ad6b7169203331");
            assert!(span.is_sampled() && span.is_remote());
            assert_eq!(span.trace_state().get("vendor"), Some("value"));
            for bad in [
                "",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
                "00-00000000000000000000000000000000-b7ad6b7169203331-01",
                "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
                "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
                "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",
            ] {
                assert!(remote(bad, None).is_none(), "{bad:?}");
            }
            // A later version may carry more fields after the four it shares with 00.
            assert!(remote("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-more", None).is_some());
            // A malformed tracestate is dropped; the parent stays.
            assert!(remote(good, Some("=,=")).is_some());
        }
    }
}
