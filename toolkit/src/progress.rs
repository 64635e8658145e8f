//! Progress from inside a running tool: [`CallContext::progress`](crate::CallContext::progress)
//! reports it, and whoever runs the call decides where it goes
//! ([`Scope::with_progress`](crate::Scope::with_progress)): an MCP client's
//! `notifications/progress`, an agent's
//! [`AgentEvent::ToolProgress`](crate::agent::AgentEvent::ToolProgress), or nowhere (the
//! default: a report then costs a branch).

use std::fmt;
use std::sync::Arc;

/// One progress report of a running call.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Progress<'a> {
    /// The call's id.
    pub call_id: &'a str,
    /// The tool.
    pub tool: &'a str,
    /// How much is done (in the tool's own unit: items, bytes, percent).
    pub done: f64,
    /// How much there is, when the tool knows.
    pub total: Option<f64>,
    /// What it is doing now (may be empty).
    pub message: &'a str,
}

/// Where the progress reports of a scope's calls go. Called on the tool's own thread,
/// as the tool reports: hand the report on (a channel, a notification) and return.
pub trait ProgressSink: Send + Sync + 'static {
    /// One report.
    fn progress(&self, report: &Progress<'_>);
}

impl<F: Fn(&Progress<'_>) + Send + Sync + 'static> ProgressSink for F {
    fn progress(&self, report: &Progress<'_>) {
        self(report)
    }
}

/// A scope's progress sink.
#[derive(Clone)]
pub(crate) struct ProgressTo(pub(crate) Arc<dyn ProgressSink>);

impl fmt::Debug for ProgressTo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressTo(..)")
    }
}

impl ProgressTo {
    pub(crate) fn report(&self, report: &Progress<'_>) {
        // A sink that panics must not take the tool with it.
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.0.progress(report))).is_err() {
            tracing::error!(tool = report.tool, "a progress sink panicked; the call goes on");
        }
    }
}
