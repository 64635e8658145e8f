//! Which failed calls Temporal may try again, and the names the worker and the
//! workflow agree on.

use std::time::Duration;

use temporalio_common::RetryPolicy;
use toolkit::{Annotations, ErrorKind};

/// The workflow type every agent run is (`AgentWorkflow`'s name in the history).
pub const WORKFLOW: &str = "toolkit.agent";

/// The activity that reads an agent's [`RunPlan`](toolkit::agent::RunPlan) and opening
/// messages: `{agent}.plan`.
pub fn plan_activity(agent: &str) -> String {
    format!("{agent}.plan")
}

/// The activity of one model turn of `agent`: `{agent}.model`.
pub fn model_activity(agent: &str) -> String {
    format!("{agent}.model")
}

/// The activity of one call of `agent`'s tool `tool`: `{agent}.tool.{tool}`. Stable: it
/// changes only when the agent or the tool is renamed, so a run under way finds its
/// activities after a deploy.
pub fn tool_activity(agent: &str, tool: &str) -> String {
    format!("{agent}.tool.{tool}")
}

/// Whether a call that failed with `kind` may be tried again by the engine:
///
/// | outcome | retried |
/// |---|---|
/// | invalid arguments, unknown tool, blocked, deferred, in doubt, a tool's own error (`tool_failed`) | never: the same call would fail the same way, or must not run again |
/// | timed out, unavailable, panicked | only for a tool declared `read_only` or `idempotent`, and never for a `destructive` one |
///
/// A worker lost in the middle of a call (its heartbeats stop) is retried under the
/// same rule: a call that may have taken effect runs again only if running it again is
/// safe. Otherwise the model reads that the call is in doubt.
pub fn retryable(kind: ErrorKind, annotations: Annotations) -> bool {
    let transient = matches!(kind, ErrorKind::TimedOut | ErrorKind::Unavailable | ErrorKind::Panicked);
    transient && repeatable(annotations)
}

/// Whether running a call of a tool with `annotations` twice is safe.
pub(crate) fn repeatable(annotations: Annotations) -> bool {
    annotations.repeatable() && !annotations.destructive
}

/// The retry policy of a tool's activity: up to `attempts` attempts with exponential
/// backoff (1 s, doubling, at most 30 s apart) for a tool that may be retried, one
/// attempt for any other.
pub fn tool_retry_policy(annotations: Annotations, attempts: u32) -> RetryPolicy {
    backoff(if repeatable(annotations) { attempts } else { 1 }, Duration::from_secs(30))
}

/// Up to `attempts` attempts (at least one), 1 s apart, doubling, at most `longest`.
pub(crate) fn backoff(attempts: u32, longest: Duration) -> RetryPolicy {
    RetryPolicy::builder()
        .initial_interval(Duration::from_secs(1))
        .backoff_coefficient(2.0)
        .maximum_interval(longest)
        .maximum_attempts(attempts.max(1))
        .build()
}

/// The failure type name a retryable tool failure carries: `toolkit.{kind}`.
pub(crate) fn failure_type(kind: ErrorKind) -> String {
    format!("toolkit.{}", kind.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotated(read_only: bool, idempotent: bool, destructive: bool) -> Annotations {
        Annotations { read_only, idempotent, destructive, ..Default::default() }
    }

    #[test]
    fn only_transient_failures_of_repeatable_tools_are_retried() {
        let plain = Annotations::default();
        let read_only = annotated(true, false, false);
        let idempotent = annotated(false, true, false);
        let destructive = annotated(false, true, true);
        for kind in [ErrorKind::TimedOut, ErrorKind::Unavailable, ErrorKind::Panicked] {
            assert!(retryable(kind, read_only), "{kind:?}");
            assert!(retryable(kind, idempotent), "{kind:?}");
            assert!(!retryable(kind, plain), "{kind:?}");
            assert!(!retryable(kind, destructive), "{kind:?}: destructive, even when idempotent");
        }
        for kind in [
            ErrorKind::MissingField,
            ErrorKind::MalformedJson,
            ErrorKind::UnknownTool,
            ErrorKind::Blocked,
            ErrorKind::Deferred,
            ErrorKind::InDoubt,
            ErrorKind::ToolFailed,
        ] {
            assert!(!retryable(kind, read_only), "{kind:?}");
        }
    }
}
