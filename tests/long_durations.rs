//! A duration longer than the clock can count (`Duration::MAX`, the natural way to write
//! "no limit" or "keep forever") wherever one is configured: a tool's timeout, a time to
//! live or window in the in-memory store, the cache, the circuit breaker and the rate
//! limit. Each means "never": the call goes on as with no limit, and nothing panics
//! (before, adding such a duration to the clock panicked, which the guard turned into a
//! failed call). The Redis store's side is in `tests/redis_store.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::json;
use toolkit::hooks::store::{Hit, MemoryStore, Store};
use toolkit::hooks::{Cache, CircuitBreaker, RateLimit};
use toolkit::prelude::*;
use toolkit::{ErrorKind, FnTool, Limits, Outcome, Output, ToolError, ToolSpec};

/// Waits a little (so the timeout's timer is started), then answers.
#[tool]
async fn nap() -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    "awake".into()
}

/// A read-only tool counting its runs, failing when `fail` says so.
fn counted(runs: &Arc<AtomicUsize>, fail: bool) -> impl toolkit::DynTool {
    let spec = ToolSpec::new("lookup", "Looks something up.", json!({"type": "object", "properties": {}}))
        .with_annotations(toolkit::Annotations { read_only: true, ..Default::default() });
    let runs = Arc::clone(runs);
    FnTool::new(spec, move |_| {
        let n = runs.fetch_add(1, Ordering::SeqCst) + 1;
        async move {
            if fail {
                Err(ToolError::new(ErrorKind::ToolFailed, "upstream down"))
            } else {
                Ok(Output::text(format!("run {n}")))
            }
        }
    })
}

/// A toolbox of the counted tool alone.
fn with_counted(runs: &Arc<AtomicUsize>, fail: bool) -> Toolbox {
    let mut tools = Toolbox::new();
    tools.add_dynamic(counted(runs, fail)).unwrap();
    tools
}

fn lookup() -> ToolCall {
    ToolCall::new("1", "lookup", "{}")
}

#[tokio::test]
async fn a_timeout_of_duration_max_never_fires() {
    let tools = toolbox![nap].with_limits(Limits { default_timeout: Some(Duration::MAX), ..Limits::default() });
    let r = tools.call(ToolCall::new("1", "nap", "{}")).await;
    assert_eq!((r.content.as_str(), r.error), ("awake", None));
}

#[tokio::test]
async fn the_memory_store_keeps_what_lives_for_duration_max() {
    let store = MemoryStore::new();
    let forever = Some(Duration::MAX);
    store.set("v", b"x".to_vec(), forever).await.unwrap();
    assert_eq!(store.get("v").await.unwrap().as_deref(), Some(&b"x"[..]));
    assert_eq!(store.incr("n", forever).await.unwrap(), 1);
    assert_eq!(store.incr("n", forever).await.unwrap(), 2);
    assert!(store.set_if_absent("l", b"1".to_vec(), forever).await.unwrap());
    assert!(!store.set_if_absent("l", b"1".to_vec(), forever).await.unwrap());
    assert_eq!(store.repeat("r", b"same", Duration::MAX).await.unwrap(), 1);
    assert_eq!(store.repeat("r", b"same", Duration::MAX).await.unwrap(), 2);

    // A window of `Duration::MAX` keeps every hit, and the next one waits "forever".
    let now = SystemTime::now();
    assert_eq!(store.hit("w", Duration::MAX, 1, now).await.unwrap(), Hit::Allowed { count: 1 });
    let later = now + Duration::from_secs(365 * 24 * 3600);
    assert_eq!(store.hit("w", Duration::MAX, 1, later).await.unwrap(), Hit::Limited { retry_after: Duration::MAX });
}

#[tokio::test]
async fn a_cache_entry_kept_for_duration_max_answers_the_next_call() {
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = with_counted(&runs, false).with_hook(Cache::ttl(Duration::MAX).flight_timeout(Duration::MAX));
    assert_eq!(tools.call(lookup()).await.content, "run 1");
    let again = tools.call(lookup()).await;
    assert_eq!((again.content.as_str(), again.error), ("run 1", None), "served from the cache");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_breaker_with_a_cool_down_of_duration_max_stays_open() {
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = with_counted(&runs, true).with_hook(CircuitBreaker::after(1).cool_down(Duration::MAX));
    assert_eq!(tools.call(lookup()).await.content, "upstream down");
    let records = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&records);
    let tools = tools.with_sink(move |r: &toolkit::CallRecord| seen.lock().unwrap().push(r.outcome));
    for _ in 0..2 {
        let r = tools.call(lookup()).await;
        assert!(
            r.content.starts_with("blocked: `lookup` is failing repeatedly (1 failures in a row)"),
            "{}",
            r.content
        );
    }
    assert_eq!(*records.lock().unwrap(), [Outcome::Blocked, Outcome::Blocked]);
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the paused tool did not run again");
}

#[tokio::test]
async fn a_rate_limit_over_a_window_of_duration_max_allows_the_limit_then_blocks() {
    let runs = Arc::new(AtomicUsize::new(0));
    let tools = with_counted(&runs, false).with_hook(RateLimit::per_tool(2, Duration::MAX));
    assert_eq!(tools.call(lookup()).await.content, "run 1");
    assert_eq!(tools.call(lookup()).await.content, "run 2");
    let r = tools.call(lookup()).await;
    assert!(r.content.starts_with("blocked: rate limit: at most 2 calls to `lookup` per "), "{}", r.content);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}
