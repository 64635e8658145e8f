//! Serving one `tools/call`: a slot to run in, the call through the toolbox, a deferred
//! call's approval through the host, and the result in MCP's shape.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ProtocolVersion};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use super::{McpServer, Structured};
use crate::call::{ToolCall, ToolResult};
use crate::durable::PendingCall;
use crate::hook::{Decided, Scope};
use crate::mcp::approval::{Answer, can_ask, decisions};

impl McpServer {
    pub(super) async fn run_call(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let inner = &*self.inner;
        let connection = &*self.connection;
        let refused = |text: String| CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]));
        // A slot to run in: at once, or after the calls ahead of it, in a bounded queue.
        let slot = match Arc::clone(&connection.running).try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                if connection.queued.fetch_add(1, Ordering::Relaxed) >= inner.max_queued {
                    connection.queued.fetch_sub(1, Ordering::Relaxed);
                    tracing::warn!(id = %cx.id, running = inner.max_running, queued = inner.max_queued, "too many tool calls; refusing one");
                    return refused(format!(
                        "The server is running {} calls and {} more are waiting, its limits; try again when one has \
                         finished.",
                        inner.max_running, inner.max_queued
                    ));
                }
                let waited = tokio::select! {
                    slot = Arc::clone(&connection.running).acquire_owned() => slot.ok(),
                    () = cx.ct.cancelled() => None,
                };
                connection.queued.fetch_sub(1, Ordering::Relaxed);
                match waited {
                    Some(slot) => slot,
                    None => return refused("The call was cancelled.".to_owned()),
                }
            }
        };
        let output = match inner.routes.get(request.name.as_ref()).map(|r| r.output) {
            Some(Structured::Any) if !modern(&cx) => Structured::Never,
            Some(output) => output,
            None => Structured::Never,
        };
        // The call as the toolbox takes it under `id` (made again only when it was
        // deferred: for the pending call, and to run it with a decision).
        let call_of = |id: String| {
            let arguments = match &request.arguments {
                Some(arguments) => serde_json::to_string(arguments).unwrap_or_default(),
                // No arguments at all: the toolbox reads "" as `{}` for a tool that takes
                // none, and tells the model which arguments are missing otherwise.
                None => String::new(),
            };
            ToolCall::new(id, request.name.clone(), arguments)
        };
        // The retry of a call that asked for approval (2026-07-28) brings the answer: it
        // runs under the deferred call's id with the decision, or, when the answer does
        // not hold, is blocked saying why (it still gets its record).
        let retry = request.request_state.is_some() || request.input_responses.is_some();
        let answer = if retry { Some(inner.approvals.answer(&request).await) } else { None };
        let id = match &answer {
            Some(Answer::Decided { call_id, .. }) => call_id.clone(),
            // Unique per server, and still showing the client's request id.
            _ => format!("mcp-{}-{}", inner.calls.fetch_add(1, Ordering::Relaxed) + 1, cx.id),
        };
        // The records carry the MCP session (streamable HTTP), else the connection.
        let session = cx
            .extensions
            .get::<hyper::http::request::Parts>()
            .and_then(|parts| parts.headers.get("mcp-session-id"))
            .and_then(|id| id.to_str().ok())
            .map_or_else(|| Arc::clone(&connection.label), Arc::from);
        let mut scope = Scope::new().with_session(session);
        match answer {
            Some(Answer::Decided { call_id, decided }) => scope = scope.with_decisions(decisions(call_id, decided)),
            Some(Answer::Refused(reason)) => scope = scope.blocking("toolkit:approval", move |_| Some(reason.clone())),
            None => {}
        }
        // A task tool, called by a client that takes tasks: a task now, the call in the
        // background (it keeps its slot).
        if let Some(tasks) = inner.tasks.as_ref().filter(|t| t.runs(&request.name))
            && !retry
            && cx.client_capabilities().is_some_and(|c| c.supports_tasks())
        {
            return self.start_task(Arc::clone(tasks), call_of(id), scope, output, slot, &cx).await;
        }
        // A client that asked for progress (`_meta.progressToken`) gets the tool's.
        let relay = cx.meta.get_progress_token().map(|token| {
            let (relay, sending) = crate::mcp::progress::Relay::start(cx.peer.clone(), token);
            scope = std::mem::take(&mut scope).with_progress(Arc::clone(&relay));
            (relay, sending)
        });
        let mut result = self.run_in(call_of(id.clone()), &scope, &cx).await;
        // A call a hook deferred asks the person at the client, as the client can be asked.
        let mut input_required = None;
        let deferred = result.as_ref().filter(|r| r.kind() == Some(crate::error::ErrorKind::Deferred));
        if let Some(pending) = deferred.and_then(|r| PendingCall::of(&call_of(id.clone()), r)) {
            if !can_ask(&cx) {
                if let Some(result) = &mut result {
                    result.content.push_str(
                        "; this MCP client cannot ask a person (it did not declare the elicitation capability), \
                         so the call did not run",
                    );
                }
            } else if modern(&cx) {
                input_required = Some(inner.approvals.input_required(&pending, &request));
            } else {
                let approval = inner.approvals.ask(&pending, &cx).await;
                let decided = Decided { digest: pending.digest().to_owned(), approval };
                let scope = scope.clone().with_decisions(decisions(id.clone(), decided));
                result = self.run_in(call_of(id), &scope, &cx).await;
            }
        }
        drop((scope, slot));
        if let Some((relay, sending)) = relay {
            relay.finish();
            drop(relay);
            // The notifications go out before the result.
            let _ = sending.await;
        }
        if let Some(asked) = input_required {
            return CallToolResponse::InputRequired(asked);
        }
        if let Some(result) = &result {
            self.note_search(result, &cx).await;
        }
        match result {
            Some(result) => CallToolResponse::Complete(to_mcp_result(result, output)),
            None => refused("The call was cancelled.".to_owned()),
        }
    }

    /// Runs the call, finishing it when the client disconnects (its record is written);
    /// `None` when the client cancelled it.
    async fn run_in(&self, call: ToolCall, scope: &Scope, cx: &RequestContext<RoleServer>) -> Option<ToolResult> {
        let (inner, connection) = (&*self.inner, &*self.connection);
        // The call's `tools/call` span: the client's span is its parent (feature `otel`).
        let span = crate::mcp::trace::server_span(&call.name, &cx.meta);
        let calling = tracing::Instrument::instrument(inner.toolbox.call_in(call, scope), span);
        let mut running = std::pin::pin!(connection.calls.track_future(calling));
        tokio::select! {
            biased;
            result = &mut running => Some(result),
            () = cx.ct.cancelled() => {
                if connection.closed.is_cancelled() {
                    // The client is gone, not cancelling: finish the call so its record is
                    // written (the tool's own timeout bounds the wait).
                    tracing::debug!(id = %cx.id, "client disconnected mid-call; finishing the call");
                    Some(running.await)
                } else {
                    tracing::info!(id = %cx.id, "tool call cancelled by the client");
                    None
                }
            }
        }
    }
}

/// Whether the request of `cx` speaks the 2026-07-28 revision (or a later one).
pub(super) fn modern(cx: &RequestContext<RoleServer>) -> bool {
    cx.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The MCP result of a toolbox result.
pub(super) fn to_mcp_result(result: ToolResult, output: Structured) -> CallToolResult {
    if result.is_error() {
        return CallToolResult::error(vec![ContentBlock::text(result.content)]);
    }
    // A typed output's text is its JSON: parsed back only for tools that publish an
    // output schema. An after hook may have rewritten the text (truncated it, say);
    // then there is no structured copy to give, and the text alone goes out.
    let structured = match output {
        Structured::Never => None,
        Structured::Object => match serde_json::from_str::<Value>(&result.content) {
            Ok(value @ Value::Object(_)) => Some(value),
            _ => None,
        },
        Structured::Any => serde_json::from_str::<Value>(&result.content).ok(),
    };
    if output != Structured::Never && structured.is_none() {
        tracing::debug!(tool = %result.name, "output is no longer its typed JSON; sending text only");
    }
    let mut out = CallToolResult::success(crate::mcp::content::to_blocks(result.content, &result.parts));
    out.structured_content = structured;
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn errors_carry_no_structured_content_and_typed_outputs_do() {
        let ok = to_mcp_result(ToolResult::ok("1", "w", r#"{"t":1}"#), Structured::Object);
        assert_eq!(ok.structured_content, Some(json!({"t": 1})));
        assert_eq!(ok.is_error, Some(false));
        let failed = to_mcp_result(
            ToolResult::failed("1", "w", crate::error::ToolError::new(crate::error::ErrorKind::Blocked, "no")),
            Structured::Any,
        );
        assert_eq!(failed.structured_content, None);
        assert_eq!(failed.is_error, Some(true));
        let truncated = to_mcp_result(ToolResult::ok("1", "w", r#"{"t":1"#), Structured::Object);
        assert_eq!(truncated.structured_content, None);
        let list = to_mcp_result(ToolResult::ok("1", "w", "[2,3,5]"), Structured::Any);
        assert_eq!(list.structured_content, Some(json!([2, 3, 5])));
        assert_eq!(to_mcp_result(ToolResult::ok("1", "w", "[2,3,5]"), Structured::Object).structured_content, None);
        assert_eq!(to_mcp_result(ToolResult::ok("1", "w", "7"), Structured::Never).structured_content, None);
    }
}
