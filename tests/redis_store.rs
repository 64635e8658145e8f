//! The Redis store against a real `redis-server` (started by each test on a free port,
//! in a temp dir, and stopped at its end): the rate limit, circuit breaker and cache
//! shared by several processes, every key expiring, and the documented behaviour when
//! Redis is down at start, killed mid-run, restarted, or slow.
//!
//! `.ci/run` installs `redis-server` when it is missing.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use serde_json::json;
use toolkit::hooks::store::{Hit, Store};
use toolkit::hooks::{Cache, CircuitBreaker, RateLimit, RedisStore};
use toolkit::prelude::*;
use toolkit::{CallRecord, ErrorKind, FnTool, Outcome, Output, ToolError, ToolSpec, Toolbox};

#[path = "../examples/support/redis_server.rs"]
mod redis_server;

use redis_server::RedisServer as Server;

/// The test's own `redis-server`, and a client of it for looking at what the store wrote.
struct RedisServer(Server);

impl RedisServer {
    /// A server, or `None` when `redis-server` is not installed (the test then skips,
    /// saying so; `.ci/run` installs it and requires these tests).
    fn start() -> Option<RedisServer> {
        Server::start_or_skip("the Redis store").map(RedisServer)
    }

    fn url(&self) -> String {
        self.0.url()
    }

    fn kill(&mut self) {
        self.0.kill();
    }

    fn run(&mut self) {
        self.0.run().unwrap();
    }

    fn restart(&mut self) {
        self.0.restart().unwrap();
    }

    async fn client(&self) -> redis::aio::MultiplexedConnection {
        redis::Client::open(self.url()).unwrap().get_multiplexed_async_connection().await.unwrap()
    }
}

fn tool(name: &str, runs: &Arc<AtomicUsize>, fail: bool) -> impl toolkit::DynTool {
    let spec = ToolSpec::new(name, "A tool.", json!({"type": "object", "properties": {"q": {"type": "string"}}}))
        .with_annotations(toolkit::Annotations { read_only: true, ..Default::default() });
    let runs = Arc::clone(runs);
    FnTool::new(spec, move |_| {
        runs.fetch_add(1, Ordering::SeqCst);
        async move {
            if fail { Err(ToolError::new(ErrorKind::ToolFailed, "upstream down")) } else { Ok(Output::text("answer")) }
        }
    })
}

#[tokio::test]
async fn every_operation_is_atomic_and_every_key_expires() {
    let Some(redis) = RedisServer::start() else { return };
    let store = RedisStore::open(&redis.url()).unwrap().with_prefix("t1");
    let window = Duration::from_secs(60);
    for n in 1..=3 {
        assert_eq!(store.hit("toolkit:w", window, 3, SystemTime::now()).await.unwrap(), Hit::Allowed { count: n });
    }
    let Hit::Limited { retry_after } = store.hit("toolkit:w", window, 3, SystemTime::now()).await.unwrap() else {
        panic!("the fourth hit is limited")
    };
    assert!(retry_after <= window && retry_after > Duration::from_secs(50), "{retry_after:?}");
    assert_eq!(store.incr("toolkit:n", None).await.unwrap(), 1);
    assert_eq!(store.incr("toolkit:n", None).await.unwrap(), 2);
    store.set("toolkit:v", b"x".to_vec(), None).await.unwrap();
    assert_eq!(store.get("toolkit:v").await.unwrap().as_deref(), Some(&b"x"[..]));
    assert!(store.set_if_absent("toolkit:l", b"1".to_vec(), Some(Duration::from_secs(5))).await.unwrap());
    assert!(!store.set_if_absent("toolkit:l", b"1".to_vec(), Some(Duration::from_secs(5))).await.unwrap());
    store.delete("toolkit:l").await.unwrap();
    assert!(store.set_if_absent("toolkit:l", b"1".to_vec(), None).await.unwrap());

    // Every key the store wrote has a time to live, and carries the prefix.
    let mut redis_cli = redis.client().await;
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query_async(&mut redis_cli).await.unwrap();
    assert_eq!(keys.len(), 4, "{keys:?}");
    for key in keys {
        assert!(key.starts_with("t1:toolkit:"), "{key}");
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut redis_cli).await.unwrap();
        assert!(ttl > 0, "{key} has no expiry ({ttl})");
    }
}

/// `take` hands a key to exactly one of many takers (`GETDEL`), and `keys` lists by
/// prefix (`SCAN`), glob characters in the prefix matching only themselves: what the
/// store of paused runs is built on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn take_gives_a_key_to_one_taker_and_keys_lists_by_prefix() {
    let Some(redis) = RedisServer::start() else { return };
    let store =
        Arc::new(RedisStore::open(&redis.url()).unwrap().with_prefix("t9").with_timeout(Duration::from_secs(2)));
    for key in ["toolkit:run:a", "toolkit:run:b", "toolkit:run*x", "toolkit:other"] {
        store.set(key, key.as_bytes().to_vec(), None).await.unwrap();
    }
    let mut keys = store.keys("toolkit:run:").await.unwrap();
    keys.sort();
    assert_eq!(keys, ["toolkit:run:a", "toolkit:run:b"]);
    assert_eq!(store.keys("toolkit:run*").await.unwrap(), ["toolkit:run*x"], "`*` in a prefix is itself");
    let takers = (0..16).map(|_| {
        let store = Arc::clone(&store);
        tokio::spawn(async move { store.take("toolkit:run:a").await.unwrap() })
    });
    let taken: Vec<_> = futures_util::future::join_all(takers).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(taken.iter().flatten().collect::<Vec<_>>(), [&b"toolkit:run:a".to_vec()]);
    assert_eq!(store.get("toolkit:run:a").await.unwrap(), None);

    // Paused runs on Redis: listed, and taken once.
    let runs = toolkit::durable::RunStore::shared(store.clone());
    assert!(runs.list().await.unwrap().is_empty(), "no states, only other keys");
    assert!(matches!(runs.get("b").await, Err(toolkit::durable::RunStoreError::State { .. })), "not a state: refused");
}

#[tokio::test]
async fn a_time_to_live_of_duration_max_is_the_longest_redis_keeps() {
    let Some(redis) = RedisServer::start() else { return };
    let store = RedisStore::open(&redis.url()).unwrap().with_prefix("t2");
    let forever = Some(Duration::MAX);
    store.set("toolkit:v", b"x".to_vec(), forever).await.unwrap();
    assert_eq!(store.get("toolkit:v").await.unwrap().as_deref(), Some(&b"x"[..]));
    assert_eq!(store.incr("toolkit:n", forever).await.unwrap(), 1);
    assert!(store.set_if_absent("toolkit:l", b"1".to_vec(), forever).await.unwrap());
    assert_eq!(store.repeat("toolkit:r", b"same", Duration::MAX).await.unwrap(), 1);
    let now = SystemTime::now();
    assert_eq!(store.hit("toolkit:w", Duration::MAX, 1, now).await.unwrap(), Hit::Allowed { count: 1 });
    let Hit::Limited { retry_after } = store.hit("toolkit:w", Duration::MAX, 1, now).await.unwrap() else {
        panic!("the second hit is limited")
    };
    let fifty_years = Duration::from_secs(50 * 365 * 24 * 3600);
    assert!(retry_after > fifty_years, "{retry_after:?}");

    // Each key lives for the longest time the store asks of Redis: 100 years.
    let mut redis_cli = redis.client().await;
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query_async(&mut redis_cli).await.unwrap();
    assert_eq!(keys.len(), 5, "{keys:?}");
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut redis_cli).await.unwrap();
        let ttl = Duration::from_millis(u64::try_from(ttl).unwrap_or_else(|_| panic!("{key} has no expiry ({ttl})")));
        assert!(ttl > fifty_years && ttl <= Duration::from_secs(100 * 365 * 24 * 3600), "{key}: {ttl:?}");
    }
}

/// A toolbox whose one tool, `wipe`, is destructive and gated by approvals kept in
/// `redis`, and the approvals as a UI in another process sees them.
fn gated_wipe(redis: &RedisServer) -> (Arc<Toolbox>, toolkit::hooks::RedisApprovals) {
    use toolkit::hooks::{ApprovalGate, RedisApprovals};
    let store = RedisStore::open(&redis.url()).unwrap().with_timeout(Duration::from_secs(1));
    let spec = ToolSpec::new("wipe", "Wipe it.", json!({"type": "object", "properties": {}}))
        .with_annotations(toolkit::Annotations { destructive: true, ..Default::default() });
    let mut tools = Toolbox::new().with_hook(ApprovalGate::new(RedisApprovals::new(&store)).destructive());
    tools.add_dynamic(FnTool::new(spec, |_| async { Ok(Output::text("wiped")) })).unwrap();
    (Arc::new(tools), RedisApprovals::new(&store))
}

/// A request whose call ends without an answer (cancelled, or cut by the gate's hook
/// timeout) is withdrawn: the UI no longer lists it, and answering it says `false`
/// (before, it stayed pending until its wait ran out, and an answer was accepted for a
/// call that had already ended).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_whose_call_ends_unanswered_is_withdrawn() {
    use toolkit::hooks::Approval;
    let Some(redis) = RedisServer::start() else { return };
    let (tools, ui) = gated_wipe(&redis);
    let call = {
        let tools = Arc::clone(&tools);
        tokio::spawn(async move { tools.call(ToolCall::new("1", "wipe", "{}")).await })
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let id = loop {
        if let Some(first) = ui.pending().await.unwrap().first() {
            break first.id.clone();
        }
        assert!(Instant::now() < deadline, "no request became pending");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    call.abort();
    let _ = call.await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ui.pending().await.unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the request was not withdrawn");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!ui.answer(&id, Approval::Approve).await.unwrap(), "nobody is waiting for this answer");
}

/// Wherever a call is cancelled — before its request is written, while the write is in
/// flight (Redis has stored it, the reply has not reached the call), or while it waits
/// for an answer — no request is left pending. The aborts land 0, 25, 50, … 1,975 µs
/// after the call starts, so some fall inside the write; before the guard was armed
/// ahead of the write, those left a request listed until its wait ran out (five minutes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_at_any_point_leaves_no_request_pending() {
    let Some(redis) = RedisServer::start() else { return };
    let (tools, ui) = gated_wipe(&redis);
    for turns in 0..80 {
        let call = {
            let tools = Arc::clone(&tools);
            tokio::spawn(async move { tools.call(ToolCall::new(format!("c{turns}"), "wipe", "{}")).await })
        };
        let until = Instant::now() + Duration::from_micros(25 * turns);
        while Instant::now() < until {
            std::hint::spin_loop();
        }
        call.abort();
        let _ = call.await;
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let pending = ui.pending().await.unwrap();
            if pending.is_empty() {
                break;
            }
            assert!(Instant::now() < deadline, "after an abort {turns} turns in, still pending: {pending:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// The child of `four_processes_share_one_rate_limit`: 50 tasks calling one tool at
/// each of three instants (`TOOLKIT_REDIS_ROUNDS`: ms since the epoch, comma-separated),
/// printing how many calls each round let through.
#[test]
fn rate_limit_child() {
    let (Ok(url), Ok(rounds)) = (std::env::var("TOOLKIT_REDIS_CHILD"), std::env::var("TOOLKIT_REDIS_ROUNDS")) else {
        return;
    };
    let rounds: Vec<u64> = rounds.split(',').map(|r| r.parse().unwrap()).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async move {
        let store = RedisStore::open(&url).unwrap().with_timeout(Duration::from_secs(2));
        let runs = Arc::new(AtomicUsize::new(0));
        let mut tools = Toolbox::new().with_hook(RateLimit::per_tool(100, Duration::from_secs(1)).store(store));
        tools.add_dynamic(tool("search", &runs, false)).unwrap();
        let tools = Arc::new(tools);
        for (round, at) in rounds.iter().enumerate() {
            let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_millis() as u64;
            tokio::time::sleep(Duration::from_millis(at.saturating_sub(now))).await;
            let calls: Vec<_> = (0..50)
                .map(|t| {
                    let tools = Arc::clone(&tools);
                    tokio::spawn(async move { tools.call(ToolCall::new(format!("{round}-{t}"), "search", "{}")).await })
                })
                .collect();
            let mut admitted = 0;
            for call in calls {
                let r = call.await.unwrap();
                admitted += usize::from(r.content == "answer");
                assert!(r.content == "answer" || r.content.starts_with("blocked: rate limit"), "{}", r.content);
            }
            println!("round {round}: {admitted}");
        }
    });
}

#[test]
fn four_processes_share_one_rate_limit_exactly() {
    let Some(redis) = RedisServer::start() else { return };
    let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_millis() as u64;
    // Three rounds 2.5 windows apart (a round's stragglers never reach the next window),
    // starting once every child is up.
    let rounds: Vec<String> = (0..3).map(|k| (now + 3000 + k * 2500).to_string()).collect();
    let children: Vec<Child> = (0..4)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "rate_limit_child", "--nocapture", "--test-threads=1"])
                .env("TOOLKIT_REDIS_CHILD", redis.url())
                .env("TOOLKIT_REDIS_ROUNDS", rounds.join(","))
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut per_round = [0usize; 3];
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        // (The test harness prints its own `test ... ` before the first line.)
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let report = line.find("round ").map(|at| &line[at + "round ".len()..]);
            if let Some((round, n)) = report.and_then(|l| l.split_once(": ")) {
                per_round[round.parse::<usize>().unwrap()] += n.trim().parse::<usize>().unwrap();
            }
        }
    }
    println!("4 processes × 50 calls per round, limit 100 per window: admitted {per_round:?}");
    assert_eq!(per_round, [100, 100, 100]);
}

#[tokio::test]
async fn a_breaker_opened_in_one_process_blocks_the_others_and_a_cache_entry_is_shared() {
    let Some(redis) = RedisServer::start() else { return };
    let runs = Arc::new(AtomicUsize::new(0));
    // Two replicas: each its own toolbox and its own connections to Redis.
    let replica = |fail: bool| {
        let store = RedisStore::open(&redis.url()).unwrap().with_timeout(Duration::from_secs(2));
        let records = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&records);
        let mut tools = Toolbox::new()
            .with_hook(CircuitBreaker::after(3).cool_down(Duration::from_secs(60)).store(store.clone()))
            .with_hook(Cache::ttl(Duration::from_secs(60)).store(store))
            .with_sink(move |r: &CallRecord| seen.lock().unwrap().push(r.outcome));
        tools.add_dynamic(tool("flaky", &runs, fail)).unwrap();
        tools.add_dynamic(tool("lookup", &runs, false)).unwrap();
        (tools, records)
    };
    let (a, _) = replica(true);
    let (b, b_records) = replica(false);
    for i in 0..3 {
        let r = a.call(ToolCall::new(i.to_string(), "flaky", r#"{"q": "x"}"#)).await;
        assert_eq!(r.content, "upstream down");
    }
    let blocked = b.call(ToolCall::new("b1", "flaky", r#"{"q": "y"}"#)).await;
    assert!(blocked.content.starts_with("blocked: `flaky` is failing repeatedly"), "{}", blocked.content);

    let first = a.call(ToolCall::new("a1", "lookup", r#"{"q": "rust"}"#)).await;
    assert_eq!(first.content, "answer");
    let ran = runs.load(Ordering::SeqCst);
    let second = b.call(ToolCall::new("b2", "lookup", r#"{"q": "rust"}"#)).await;
    assert_eq!(second.content, "answer");
    assert_eq!(runs.load(Ordering::SeqCst), ran, "the other replica answered from the shared cache");
    assert_eq!(b_records.lock().unwrap().last(), Some(&Outcome::Cached));
}

#[tokio::test]
async fn a_session_served_by_two_replicas_in_turn_is_guarded_against_loops_as_one() {
    let Some(redis) = RedisServer::start() else { return };
    let runs = Arc::new(AtomicUsize::new(0));
    let replica = || {
        let store = RedisStore::open(&redis.url()).unwrap().with_timeout(Duration::from_secs(2));
        let mut tools = Toolbox::new().with_hook(toolkit::hooks::LoopGuard::max_repeats(2).store(store));
        tools.add_dynamic(tool("search", &runs, false)).unwrap();
        tools
    };
    let (a, b) = (replica(), replica());
    let scope = toolkit::Scope::new().with_session("s-1");
    let other = toolkit::Scope::new().with_session("s-2");
    let call = |id: &str| ToolCall::new(id, "search", r#"{"q": "same"}"#);
    assert_eq!(a.call_in(call("1"), &scope).await.content, "answer");
    assert_eq!(b.call_in(call("2"), &scope).await.content, "answer");
    let third = a.call_in(call("3"), &scope).await.content;
    assert!(third.starts_with("blocked: you have called `search` with the same arguments 2 times"), "{third}");
    // Another session has its own history.
    assert_eq!(b.call_in(call("4"), &other).await.content, "answer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_asked_in_one_process_is_answered_from_another() {
    use toolkit::hooks::{Approval, ApprovalGate, RedisApprovals};
    let Some(redis) = RedisServer::start() else { return };
    let spec = ToolSpec::new(
        "delete",
        "Delete a file.",
        json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    )
    .with_annotations(toolkit::Annotations { destructive: true, ..Default::default() });
    let asking = RedisStore::open(&redis.url()).unwrap().with_timeout(Duration::from_secs(1));
    // `Duration::MAX`: wait for the answer however long it takes (the request is kept in
    // Redis for the longest expiry the store asks for).
    let mut tools =
        Toolbox::new().with_hook(ApprovalGate::new(RedisApprovals::new(&asking).wait(Duration::MAX)).destructive());
    tools
        .add_dynamic(FnTool::new(spec, |args| async move { Ok(Output::text(format!("deleted {}", args["path"]))) }))
        .unwrap();
    let tools = Arc::new(tools);
    // The UI: another connection, as another process would have.
    let ui = RedisApprovals::new(&RedisStore::open(&redis.url()).unwrap().with_timeout(Duration::from_secs(1)));
    let answer = |approval: Approval| {
        let ui = ui.clone();
        async move {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let pending = ui.pending().await.unwrap();
                if let Some(first) = pending.first() {
                    assert_eq!(first.request.tool, "delete");
                    assert!(ui.answer(&first.id, approval.clone()).await.unwrap());
                    assert!(!ui.answer(&first.id, Approval::Approve).await.unwrap(), "answered once only");
                    return first.request.arguments.clone();
                }
                assert!(Instant::now() < deadline, "no request became pending");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };
    let call = |id: &str, path: &str| {
        let tools = Arc::clone(&tools);
        let call = ToolCall::new(id, "delete", json!({"path": path}).to_string());
        tokio::spawn(async move { tools.call(call).await.content })
    };
    let edited = call("1", "/tmp/everything");
    let mut safer = serde_json::Map::new();
    safer.insert("path".into(), json!("/tmp/one-file"));
    let seen = answer(Approval::ApproveWith(safer)).await;
    assert_eq!(seen["path"], "/tmp/everything");
    assert_eq!(edited.await.unwrap(), "deleted \"/tmp/one-file\"");
    let rejected = call("2", "/etc");
    answer(Approval::Reject("not that one".into())).await;
    assert_eq!(rejected.await.unwrap(), "blocked: the user rejected this call: not that one");
    assert!(ui.pending().await.unwrap().is_empty());
}

/// Calls each tool once and returns what each call answered and how long it took.
async fn round(tools: &Toolbox, id: &str) -> Vec<(String, Duration)> {
    let mut out = Vec::new();
    for (tool, args) in [("limited", "{}"), ("guarded", "{}"), ("cached", r#"{"q": "x"}"#)] {
        let started = Instant::now();
        let r = tools.call(ToolCall::new(format!("{id}-{tool}"), tool, args)).await;
        out.push((r.content, started.elapsed()));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_down_killed_restarted_or_slow_never_hangs_a_call_and_each_hook_keeps_its_policy() {
    let Some(mut redis) = RedisServer::start() else { return };
    redis.kill();
    // Opened while Redis is down: no error yet.
    let store = RedisStore::open(&redis.url()).unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let records = Arc::new(std::sync::Mutex::new(Vec::<CallRecord>::new()));
    let seen = Arc::clone(&records);
    let mut tools = Toolbox::new()
        .with_hook(
            toolkit::Hook::from(RateLimit::per_tool(1000, Duration::from_secs(60)).store(store.clone()))
                .for_tools(["limited"]),
        )
        .with_hook(toolkit::Hook::from(CircuitBreaker::after(3).store(store.clone())).for_tools(["guarded"]))
        .with_hook(toolkit::Hook::from(Cache::ttl(Duration::from_secs(60)).store(store.clone())).for_tools(["cached"]))
        .with_sink(move |r: &CallRecord| seen.lock().unwrap().push(r.clone()));
    for name in ["limited", "guarded", "cached"] {
        tools.add_dynamic(tool(name, &runs, false)).unwrap();
    }
    let check_down = |answers: &[(String, Duration)], when: &str| {
        // The rate limit fails closed, the breaker and the cache fail open; no call waits.
        assert!(answers[0].0.starts_with("blocked: policy check `rate_limit` failed"), "{when}: {}", answers[0].0);
        assert_eq!(answers[1].0, "answer", "{when}");
        assert_eq!(answers[2].0, "answer", "{when}");
        for (answer, took) in answers {
            assert!(*took < Duration::from_secs(2), "{when}: `{answer}` took {took:?}");
        }
    };
    let down = round(&tools, "down").await;
    println!("Redis down at start: {down:?}");
    check_down(&down, "down at start");
    // The record says which hook failed, and why.
    let record = records.lock().unwrap()[0].clone();
    let failed = record.hooks.iter().find(|h| h.hook.as_ref() == "rate_limit").expect("the hook is in the record");
    assert!(failed.detail.as_deref().is_some_and(|d| d.contains("Redis")), "{failed:?}");

    redis.run();
    let up = round(&tools, "up").await;
    println!("Redis started: {up:?}");
    assert!(up.iter().all(|(a, _)| a == "answer"), "the first calls after Redis came up work: {up:?}");

    redis.kill();
    let killed = round(&tools, "killed").await;
    println!("Redis killed mid-run: {killed:?}");
    check_down(&killed, "killed");

    redis.restart();
    let back = round(&tools, "back").await;
    println!("Redis restarted: {back:?}");
    assert!(back.iter().all(|(a, _)| a == "answer"), "{back:?}");

    // Slow: the server blocks for two seconds; operations give up after 50 ms.
    let mut admin = redis.client().await;
    let mut probe = redis.client().await;
    let sleeper = tokio::spawn(async move {
        let _: redis::RedisResult<()> = redis::cmd("DEBUG").arg("SLEEP").arg("2").query_async(&mut admin).await;
    });
    // Wait until the server is busy (a PING does not come back within 20 ms).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let command = redis::cmd("PING");
        let ping = tokio::time::timeout(Duration::from_millis(20), command.query_async::<String>(&mut probe)).await;
        if ping.is_err() || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let slow = round(&tools, "slow").await;
    println!("Redis slow: {slow:?}");
    check_down(&slow, "slow");
    sleeper.await.unwrap();
}
