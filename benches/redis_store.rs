//! What each store-backed hook costs per call, in memory and on a local Redis, in the
//! same run: p50 and p99 of a whole `Toolbox::call`, and round trips to Redis per call
//! (store operations: each is one round trip). `cargo bench --bench redis_store` (starts its own
//! `redis-server` on a free port); under `cargo test --benches` it runs a few calls.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
use serde_json::json;
use toolkit::hooks::store::{Hit, MemoryStore, Store, StoreError};
use toolkit::hooks::{Cache, CircuitBreaker, LoopGuard, RateLimit, RedisStore};
use toolkit::{Annotations, FnTool, Hook, Output, Scope, ToolCall, ToolSpec, Toolbox};

#[path = "../examples/support/redis_server.rs"]
mod redis_server;

use redis_server::RedisServer;

/// A store that counts its operations (each one round trip on Redis).
struct Counting<S> {
    inner: S,
    ops: Arc<AtomicU64>,
}

impl<S: Store> Store for Counting<S> {
    fn hit<'a>(
        &'a self,
        key: &'a str,
        window: Duration,
        limit: u32,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Hit, StoreError>> {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.inner.hit(key, window, limit, now)
    }
    fn incr<'a>(&'a self, key: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<u64, StoreError>> {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.inner.incr(key, ttl)
    }
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.inner.get(key)
    }
    fn set<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>> {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.inner.set(key, value, ttl)
    }
    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.inner.set_if_absent(key, value, ttl)
    }
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.inner.delete(key)
    }
    fn repeat<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> BoxFuture<'a, Result<u32, StoreError>> {
        self.ops.fetch_add(1, Ordering::Relaxed);
        self.inner.repeat(key, value, ttl)
    }
}

fn toolbox(hook: Hook) -> Toolbox {
    let spec = ToolSpec::new("lookup", "Look up.", json!({"type": "object", "properties": {"q": {"type": "string"}}}))
        .with_annotations(Annotations { read_only: true, ..Default::default() });
    let mut tools = Toolbox::new().with_hook(hook);
    tools.add_dynamic(FnTool::new(spec, |_| async { Ok(Output::text("answer")) })).unwrap();
    tools
}

/// The hooks under test, each on `store`.
fn hooks(store: &Arc<dyn Store>) -> Vec<(&'static str, Hook)> {
    vec![
        (
            "rate_limit (allowed)",
            RateLimit::per_tool(u32::MAX, Duration::from_secs(60)).store(Arc::clone(store)).into(),
        ),
        ("circuit_breaker (closed)", CircuitBreaker::after(5).store(Arc::clone(store)).into()),
        ("cache (hit)", Cache::ttl(Duration::from_secs(600)).store(Arc::clone(store)).into()),
        ("loop_guard", LoopGuard::max_repeats(u32::MAX).store(Arc::clone(store)).into()),
    ]
}

fn percentile(sorted: &[Duration], q: f64) -> f64 {
    sorted[((sorted.len() as f64 * q) as usize).min(sorted.len() - 1)].as_secs_f64() * 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let full = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test" || a == "--list");
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let calls = if full { 20_000 } else { 20 };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let Some(redis) = RedisServer::start_or_skip("the Redis store benchmark") else { return };
    let memory: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let ops = Arc::new(AtomicU64::new(0));
    let redis_store = RedisStore::open(&redis.url()).unwrap().with_timeout(Duration::from_secs(1));
    let remote: Arc<dyn Store> = Arc::new(Counting { inner: redis_store, ops: Arc::clone(&ops) });
    println!(
        "## Store-backed hooks: one `Toolbox::call` ({calls} calls each, current-thread runtime, Redis on localhost)"
    );
    println!();
    println!("| hook | memory p50 | memory p99 | Redis p50 | Redis p99 | round trips per call |");
    println!("|---|---:|---:|---:|---:|---:|");
    let scope = Scope::new().with_session("bench");
    for ((name, in_memory), (_, on_redis)) in hooks(&memory).into_iter().zip(hooks(&remote)) {
        let mut row = Vec::new();
        let mut per_call = 0.0;
        for (hook, is_redis) in [(in_memory, false), (on_redis, true)] {
            let tools = toolbox(hook);
            let (latencies, commands) = runtime.block_on(async {
                // Warm up: the connection, the scripts, the cache entry.
                for _ in 0..10 {
                    tools.call_in(ToolCall::new("w", "lookup", r#"{"q": "x"}"#), &scope).await;
                }
                let before = ops.load(Ordering::Relaxed);
                let mut latencies = Vec::with_capacity(calls);
                for _ in 0..calls {
                    let started = Instant::now();
                    let r = tools.call_in(ToolCall::new("1", "lookup", r#"{"q": "x"}"#), &scope).await;
                    latencies.push(started.elapsed());
                    assert_eq!(r.content, "answer");
                }
                let after = ops.load(Ordering::Relaxed);
                (latencies, after.saturating_sub(before))
            });
            let mut sorted = latencies;
            sorted.sort();
            row.push((percentile(&sorted, 0.5), percentile(&sorted, 0.99)));
            if is_redis {
                per_call = commands as f64 / calls as f64;
            }
        }
        println!(
            "| {name} | {:.1} µs | {:.1} µs | {:.1} µs | {:.1} µs | {per_call:.1} |",
            row[0].0, row[0].1, row[1].0, row[1].1
        );
    }
}
