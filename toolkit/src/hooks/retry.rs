//! [`Retry`]: a failed call run again after a pause that doubles each time.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use crate::error::ErrorKind;
use crate::hook::{ErrorCall, ErrorHook, Hook, HookStep, OnFailure, Recovery};
use crate::spec::RetryPolicy;

/// The name of the retry hook a toolbox adds for the tools that declare a policy
/// (`#[tool(retries = 3)]`, [`ToolSpec::with_retry`](crate::ToolSpec::with_retry)).
pub(crate) const DECLARED: &str = "retries";

/// Runs a call that failed on its own (the tool returned an error or overran its
/// timeout) again, after a pause: `backoff`, doubled at each retry up to a ceiling (30 s
/// by default), of which a random half is waited (equal jitter, so calls that failed
/// together do not come back together).
///
/// What is never retried:
/// - a tool that is not declared `read_only` or `idempotent`, or is declared
///   `destructive`: running it again could repeat its effect;
/// - a failure that another run would not change: arguments the tool refused, a call a
///   hook blocked or deferred, a panic, an unavailable tool;
/// - past the policy's retries, nor past [`Limits::max_retries`](crate::Limits::max_retries)
///   for a policy given here (a tool's declared policy is its own limit).
///
/// A tool's declared policy (`#[tool(retries = 3, backoff = "200ms")]`) needs no hook to
/// be added: the toolbox adds one, named `retries`, acting on those tools. `Retry::new`
/// is for the others, such as the tools of an MCP server:
///
/// ```
/// use std::time::Duration;
/// use toolkit::hook::Hook;
/// use toolkit::hooks::Retry;
///
/// let hook = Hook::from(Retry::new(3, Duration::from_millis(200))).matching("mcp_*");
/// assert_eq!(hook.name(), "retry");
/// ```
///
/// Each retry is in the call's record: `attempts`, and a `retry` action of the hook
/// saying how long it waited and why.
#[derive(Debug, Clone)]
pub struct Retry {
    policy: Option<RetryPolicy>,
    name: Cow<'static, str>,
    priority: i32,
}

impl Retry {
    /// Retries up to `retries` times, the first after about `backoff`.
    pub fn new(retries: u32, backoff: Duration) -> Self {
        Retry::with_policy(RetryPolicy::new(retries, backoff))
    }

    /// Retries by `policy` (its ceiling included).
    pub fn with_policy(policy: RetryPolicy) -> Self {
        Retry { policy: Some(policy), name: Cow::Borrowed("retry"), priority: PRIORITY }
    }

    /// The hook a toolbox adds for the tools that declare a policy: each tool's own.
    pub(crate) fn declared() -> Self {
        Retry { policy: None, name: Cow::Borrowed(DECLARED), priority: PRIORITY }
    }

    /// Another name (default `retry`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }
}

/// Below the circuit breaker's (60), so it counts every failed attempt; above the
/// default (0), so an error hook that explains failures to the model sees only the last.
const PRIORITY: i32 = 55;

impl From<Retry> for Hook {
    fn from(retry: Retry) -> Hook {
        let name = retry.name.clone();
        let priority = retry.priority;
        // A retry hook that fails (it cannot: it only waits) leaves the failure as it is.
        Hook::new(name).priority(priority).on_failure(OnFailure::Continue).on_error(retry)
    }
}

/// What a retry hook tells the call's record: how long it waited, and why.
pub(crate) struct Waited(pub(crate) String);

impl ErrorHook for Retry {
    fn error<'a>(&'a self, err: &'a mut ErrorCall<'_>) -> HookStep<'a, Recovery> {
        let Some(spec) = err.spec() else { return HookStep::Ready(Ok(Recovery::Propagate)) };
        let Some(policy) = spec.retry.or(self.policy) else { return HookStep::Ready(Ok(Recovery::Propagate)) };
        let transient = matches!(err.kind(), ErrorKind::ToolFailed | ErrorKind::TimedOut);
        let safe = spec.annotations.repeatable() && !spec.annotations.destructive;
        let retry = err.attempt();
        if !transient || !safe || retry > policy.retries {
            return HookStep::Ready(Ok(Recovery::Propagate));
        }
        let wait = policy.delay(retry, unit(err.call_id(), retry));
        let why = err.kind().as_str();
        err.extensions_mut().insert(Waited(format!(
            "attempt {} of {} after {} ms ({why})",
            retry + 1,
            policy.retries + 1,
            wait.as_millis()
        )));
        HookStep::Pending(Box::pin(async move {
            tokio::time::sleep(wait).await;
            Ok(Recovery::Retry)
        }))
    }
}

/// A number in `[0, 1)`, different for every call and retry (a process-seeded hash: the
/// jitter needs spreading, not secrecy).
fn unit(call_id: &str, retry: u32) -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write(call_id.as_bytes());
    hasher.write_u32(retry);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}
