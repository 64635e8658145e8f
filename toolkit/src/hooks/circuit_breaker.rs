//! The circuit breaker: a tool that keeps failing is paused instead of being called
//! again and again.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::carry::{Carried, owner};
use super::duration_text::Readable;
use super::store::{MemoryStore, Store};
use crate::error::ErrorKind;
use crate::hook::{
    AfterCall, AfterHook, BeforeCall, BeforeHook, Decision, ErrorCall, ErrorHook, Hook, HookError, HookStep, OnFailure,
    Recovery,
};
use crate::record::Outcome;

/// A hook (before, after and error) that pauses a tool after `n` failures in a row.
///
/// - **closed** (normal): calls run; each failure of the tool (it returned an error,
///   panicked, timed out, or was unavailable; *not* a mistake in the model's
///   arguments) adds one to the tool's count, each success resets it;
/// - **open**: after `n` failures in a row, calls are blocked for the cool-down with
///   ``blocked: `fetch` is failing repeatedly (5 failures in a row); it is paused for
///   30s``, so the model stops calling it and can do something else;
/// - **half-open**: once the cool-down has passed, one trial call runs (the others are
///   blocked meanwhile); its success closes the breaker, its failure opens it for
///   another cool-down.
///
/// Each tool has its own breaker. The state lives in a [`Store`] (in memory unless
/// [`store`](CircuitBreaker::store) says otherwise), so several processes can share it.
///
/// Named `circuit_breaker`, priority 60: its before hook blocks before other hooks
/// spend anything on the call, and its error hook sees a failure before an error hook
/// of lower priority replaces the message or asks for a retry (an error hook of
/// *higher* priority that does either hides the failure from the breaker). A success
/// resets the count only if it was above zero when the call started, so healthy tools
/// cost no store write. It fails open: if its store cannot answer, calls go on as if
/// the breaker were closed.
///
/// ```
/// use std::time::Duration;
/// use toolkit::prelude::*;
/// use toolkit::hooks::CircuitBreaker;
///
/// /// Fetch a page.
/// #[tool]
/// fn fetch(url: String) -> Result<String, String> { Err(format!("{url} is down")) }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![fetch].with_hook(CircuitBreaker::after(2).cool_down(Duration::from_secs(30)));
/// let call = || ToolCall::new("1", "fetch", r#"{"url": "https://example.com"}"#);
/// tools.call(call()).await;
/// tools.call(call()).await;
/// let r = tools.call(call()).await;
/// assert_eq!(r.content, "blocked: `fetch` is failing repeatedly (2 failures in a row); it is paused for 30s");
/// # }
/// ```
#[derive(Clone)]
pub struct CircuitBreaker {
    name: Cow<'static, str>,
    threshold: u64,
    cool_down: Duration,
    store: Arc<dyn Store>,
}

impl fmt::Debug for CircuitBreaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CircuitBreaker")
            .field("name", &self.name)
            .field("threshold", &self.threshold)
            .field("cool_down", &self.cool_down)
            .finish()
    }
}

impl CircuitBreaker {
    /// Opens after `failures` failures in a row (at least 1); the cool-down is 30s.
    pub fn after(failures: u32) -> Self {
        CircuitBreaker {
            name: Cow::Borrowed("circuit_breaker"),
            threshold: u64::from(failures.max(1)),
            cool_down: Duration::from_secs(30),
            store: Arc::new(MemoryStore::new()),
        }
    }

    /// How long the tool stays paused before a trial call.
    pub fn cool_down(mut self, cool_down: Duration) -> Self {
        self.cool_down = cool_down;
        self
    }

    /// Keeps the state in `store` (shared with other hooks or processes).
    pub fn store(mut self, store: impl Store) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Sets the hook's name (default `circuit_breaker`); it is also part of the store
    /// keys.
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }
}

/// The breaker's view of one call, carried from its before hook to its after or error
/// hook.
#[derive(Clone, Copy)]
struct Ticket {
    /// The count of failures in a row when the call started.
    failures: u64,
    /// This call is the half-open trial.
    probe: bool,
}

/// The keys of one tool's breaker.
struct Keys {
    failures: String,
    open: String,
    probe: String,
}

impl Keys {
    fn new(name: &str, tool: &str) -> Self {
        let base = format!("toolkit:{name}:{tool}");
        Keys { failures: format!("{base}:failures"), open: format!("{base}:open"), probe: format!("{base}:probe") }
    }
}

/// Whether a failure of this kind says something about the tool's health.
fn counts(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::ToolFailed | ErrorKind::Panicked | ErrorKind::TimedOut | ErrorKind::Unavailable)
}

fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The value of the `open` key: the failure count and when the pause ends.
fn open_value(failures: u64, until: Option<SystemTime>) -> Vec<u8> {
    // `None`: a pause longer than the clock can count.
    format!("{failures} {}", until.map_or(u64::MAX, unix_ms)).into_bytes()
}

fn parse_open(value: &[u8]) -> Option<(u64, u64)> {
    let text = std::str::from_utf8(value).ok()?;
    let (failures, until) = text.split_once(' ')?;
    Some((failures.parse().ok()?, until.parse().ok()?))
}

fn parse_count(value: Option<Vec<u8>>) -> u64 {
    value.and_then(|v| std::str::from_utf8(&v).ok()?.parse().ok()).unwrap_or(0)
}

/// The breaker's shared state; its three hooks hold it.
struct Shared {
    config: CircuitBreaker,
}

#[derive(Clone)]
struct Handle(Arc<Shared>);

impl Handle {
    fn owner(&self) -> usize {
        owner(&self.0)
    }

    async fn before(&self, tool: &str, trial_for: Duration) -> Result<Result<Ticket, String>, HookError> {
        let c = &self.0.config;
        let keys = Keys::new(&c.name, tool);
        let store = &c.store;
        if let Some(open) = store.get(&keys.open).await.map_err(HookError::new)? {
            let (failures, until) = parse_open(&open).unwrap_or((c.threshold, 0));
            let left = Duration::from_millis(until.saturating_sub(unix_ms(SystemTime::now())));
            return Ok(Err(format!(
                "`{tool}` is failing repeatedly ({failures} failures in a row); it is paused for {}",
                Readable(left)
            )));
        }
        let failures = parse_count(store.get(&keys.failures).await.map_err(HookError::new)?);
        if failures < c.threshold {
            return Ok(Ok(Ticket { failures, probe: false }));
        }
        // Half-open: one trial call; the key expires, should the trial never report back
        // (its process ended), so that another call can try; not before the trial could
        // have ended (a failing tool often fails by timing out, after longer than the
        // cool-down).
        if store.set_if_absent(&keys.probe, b"1".to_vec(), Some(trial_for)).await.map_err(HookError::new)? {
            tracing::info!(hook = %c.name, gen_ai.tool.name = tool, "circuit half-open: letting one trial call through");
            return Ok(Ok(Ticket { failures, probe: true }));
        }
        Ok(Err(format!(
            "`{tool}` is failing repeatedly ({failures} failures in a row); a trial call is in progress, try again in a moment"
        )))
    }

    async fn succeeded(&self, tool: &str, ticket: Ticket) -> Result<(), HookError> {
        let c = &self.0.config;
        let keys = Keys::new(&c.name, tool);
        c.store.delete(&keys.failures).await.map_err(HookError::new)?;
        if ticket.probe {
            c.store.delete(&keys.probe).await.map_err(HookError::new)?;
            tracing::info!(hook = %c.name, gen_ai.tool.name = tool, "circuit closed: the trial call succeeded");
        }
        Ok(())
    }

    async fn failed(&self, tool: &str, ticket: Option<Ticket>) -> Result<(), HookError> {
        let c = &self.0.config;
        let keys = Keys::new(&c.name, tool);
        let failures = c.store.incr(&keys.failures, None).await.map_err(HookError::new)?;
        let probe = ticket.is_some_and(|t| t.probe);
        if probe || failures >= c.threshold {
            let until = SystemTime::now().checked_add(c.cool_down);
            c.store.set(&keys.open, open_value(failures, until), Some(c.cool_down)).await.map_err(HookError::new)?;
            tracing::warn!(
                hook = %c.name,
                gen_ai.tool.name = tool,
                failures,
                cool_down = ?c.cool_down,
                "circuit open: the tool is paused"
            );
        }
        if probe {
            c.store.delete(&keys.probe).await.map_err(HookError::new)?;
        }
        Ok(())
    }

    /// A trial that ended without saying anything about the tool (an argument error, a
    /// cached answer): another call may try.
    async fn released(&self, tool: &str) -> Result<(), HookError> {
        let c = &self.0.config;
        c.store.delete(&Keys::new(&c.name, tool).probe).await.map_err(HookError::new)
    }
}

impl BeforeHook for Handle {
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        HookStep::Pending(Box::pin(async move {
            let tool = call.tool();
            let cool_down = self.0.config.cool_down;
            let trial_for = call.spec().and_then(|s| s.timeout).map_or(cool_down, |timeout| timeout.max(cool_down));
            match self.before(tool, trial_for).await? {
                Ok(ticket) => {
                    if ticket.probe {
                        // However the trial ends without a verdict on the tool (a later
                        // hook blocked it, a cache answered, it was cancelled), its slot
                        // is released at once for another call to try.
                        let (handle, tool) = (self.clone(), tool.to_owned());
                        call.on_end(move |outcome| {
                            if matches!(outcome, Outcome::Ok | Outcome::Failed(_) | Outcome::Recovered(_)) {
                                return;
                            }
                            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                                runtime.spawn(async move { handle.released(&tool).await });
                            }
                        });
                    }
                    if ticket.failures > 0 || ticket.probe {
                        Carried::put(call.extensions_mut(), self.owner(), ticket);
                    }
                    Ok(Decision::Continue)
                }
                Err(reason) => Ok(Decision::Block(reason)),
            }
        }))
    }
}

impl AfterHook for Handle {
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()> {
        let Some(ticket) = Carried::<Ticket>::take(out.extensions_mut(), self.owner()) else {
            return HookStep::Ready(Ok(()));
        };
        let (tool, cached) = (out.tool(), out.is_cached());
        HookStep::Pending(Box::pin(async move {
            match cached {
                // The tool did not run: nothing learned about it. A trial's slot is
                // released by its end (`on_end`, for `cached`); releasing it here too could
                // release the slot of a trial that took it in between.
                true => Ok(()),
                false => self.succeeded(tool, ticket).await,
            }
        }))
    }
}

impl ErrorHook for Handle {
    fn error<'a>(&'a self, err: &'a mut ErrorCall<'_>) -> HookStep<'a, Recovery> {
        let ticket = Carried::<Ticket>::take(err.extensions_mut(), self.owner());
        let (tool, kind) = (err.tool(), err.kind());
        if !counts(kind) {
            return match ticket {
                Some(t) if t.probe => {
                    HookStep::Pending(Box::pin(async move { self.released(tool).await.map(|()| Recovery::Propagate) }))
                }
                _ => HookStep::Ready(Ok(Recovery::Propagate)),
            };
        }
        HookStep::Pending(Box::pin(async move { self.failed(tool, ticket).await.map(|()| Recovery::Propagate) }))
    }
}

impl From<CircuitBreaker> for Hook {
    fn from(breaker: CircuitBreaker) -> Hook {
        let name = breaker.name.clone();
        let handle = Handle(Arc::new(Shared { config: breaker }));
        // A breaker whose state cannot be read must not stop every call: it fails open.
        Hook::new(name)
            .priority(60)
            .on_failure(OnFailure::Continue)
            .on_before(handle.clone())
            .on_after(handle.clone())
            .on_error(handle)
    }
}
