//! A tour of hooks: every use case of the CrewAI tool-hook guide, each with a scripted
//! call or two, printing what the hooks did. Offline; no model, no key.
//!
//! ```sh
//! cargo run --example hooks_tour
//! ```
//!
//! Use cases, in order: safety guardrails, an approval gate, input validation and
//! sanitization, result redaction, usage analytics (timing carried through the per-call
//! extension map), rate limiting, caching that returns the cached result, debug
//! logging, conditional hooks by agent and task, context-aware input rewriting, loop
//! detection; then the built-ins that keep a file agent safe (path sandbox, truncation,
//! circuit breaker, a friendly error message) and the audit log.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
use toolkit::hooks::{
    Approval, ApprovalGate, AuditLog, Cache, ChannelApprover, CircuitBreaker, LoopGuard, NormalizePaths, PathSandbox,
    RateLimit, Redactor, Truncate,
};
use toolkit::prelude::*;
use toolkit::{CallRecord, Hook, Scope, hook, hooks};

// ---- the tools ----------------------------------------------------------------------

/// Search the web.
#[tool(read_only)]
fn web_search(
    /// What to search for.
    query: String,
) -> String {
    format!("3 results for \"{query}\": rust-lang.org, docs.rs, crates.io")
}

/// The weather in a city.
#[derive(Serialize, JsonSchema)]
pub struct Weather {
    city: String,
    celsius: f64,
}

static WEATHER_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Get the current weather for a city.
#[tool(read_only)]
fn get_weather(
    /// City name.
    city: String,
) -> Weather {
    WEATHER_RUNS.fetch_add(1, Ordering::SeqCst);
    Weather { city, celsius: 21.5 }
}

/// Look up a customer's record.
#[tool(read_only)]
fn lookup_customer(
    /// Customer id.
    id: u32,
) -> String {
    format!(
        "customer {id}: Ada Lovelace, ada@example.com, card 4111 1111 1111 1111, phone +44 20 7946 0958, \
         api_key=sk-live-0123456789abcdef0123"
    )
}

/// Delete a file.
#[tool(destructive)]
fn delete_file(
    /// The file.
    path: String,
) -> String {
    format!("deleted {path}")
}

/// Send an e-mail.
#[tool]
fn send_email(
    /// Recipient.
    to: String,
    /// Text.
    body: String,
) -> String {
    format!("sent {} characters to {to}", body.len())
}

/// Read a text file.
#[tool(read_only)]
async fn read_file(
    /// The file's path.
    path: String,
) -> Result<String, std::io::Error> {
    tokio::fs::read_to_string(&path).await
}

static QUOTE_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Get a stock quote from an upstream service that is down.
#[tool(read_only)]
fn stock_quote(
    /// Ticker symbol.
    symbol: String,
) -> Result<String, std::io::Error> {
    QUOTE_CALLS.fetch_add(1, Ordering::SeqCst);
    Err(std::io::Error::other(format!("upstream 503 for {symbol}")))
}

// ---- hooks written with `#[hook]` ------------------------------------------------------

/// Safety guardrails: destructive tools never run; sensitive ones are announced.
#[hook(before, priority = 100)]
fn safety_check(call: &mut BeforeCall<'_>) -> Decision {
    if call.spec().is_some_and(|s| s.annotations.destructive) {
        return Decision::Block(format!("`{}` is destructive and disabled here", call.tool()));
    }
    if call.tool() == "send_email" {
        println!("    [safety_check] sensitive tool: {}", call.tool());
    }
    Decision::Continue
}

/// Input validation and sanitization, typed: `web_search`'s own argument struct.
#[hook(before, tools = [web_search], priority = 90)]
fn clean_query(args: &mut WebSearchArgs) -> Result<(), String> {
    args.query = args.query.trim().to_lowercase();
    if args.query.chars().count() < 3 {
        return Err(format!("the query `{}` is too short", args.query));
    }
    Ok(())
}

/// Usage analytics, part 1: the start time goes into this call's extension map.
#[hook(before, priority = 200, on_failure = continue)]
fn start_timer(call: &mut BeforeCall<'_>) {
    call.extensions_mut().insert(Started(Instant::now()));
}

struct Started(Instant);

/// Per-tool call counts, failures and total time.
#[derive(Default)]
struct Stats(Mutex<BTreeMap<String, (u32, u32, Duration)>>);

static STATS: std::sync::LazyLock<Stats> = std::sync::LazyLock::new(Stats::default);

impl Stats {
    fn note(&self, tool: &str, started: Option<&Started>, failed: bool) {
        let took = started.map_or(Duration::ZERO, |s| s.0.elapsed());
        let mut stats = self.0.lock().unwrap();
        let entry = stats.entry(tool.to_string()).or_default();
        entry.0 += 1;
        entry.1 += u32::from(failed);
        entry.2 += took;
    }
}

/// Usage analytics, part 2: the same call's start time, read back.
#[hook(after, on_failure = continue)]
fn track_usage(out: &mut AfterCall<'_>) {
    STATS.note(out.tool(), out.extensions().get::<Started>(), false);
}

/// Usage analytics, part 3: failures count too.
#[hook(error)]
fn track_failures(err: &mut ErrorCall<'_>) {
    STATS.note(err.tool(), err.extensions().get::<Started>(), true);
}

/// Debug logging: what goes in, and a preview of what comes out.
#[hook(before, priority = -1000)]
fn debug_call(call: &mut BeforeCall<'_>) {
    let input = serde_json::Value::Object(call.arguments().clone());
    println!("    [debug] {} by {:?} for task {:?} with {input}", call.tool(), call.agent(), call.task());
}

/// Debug logging, the result side (the raw typed value, for `get_weather`).
#[hook(after, tools = [get_weather])]
fn debug_weather(out: &mut AfterCall<'_>, raw: Option<&Weather>) {
    if let Some(w) = raw {
        println!("    [debug] raw result: {} at {} °C (the model sees: {})", w.city, w.celsius, out.text());
    }
}

/// Conditional by agent and task: interns may only read.
#[hook(before)]
fn interns_read_only(call: &mut BeforeCall<'_>) -> Decision {
    let read_only = call.spec().is_some_and(|s| s.annotations.read_only);
    match (call.agent(), call.task()) {
        (Some("intern"), task) if !read_only => {
            Decision::Block(format!("interns may only use read-only tools (task: {})", task.unwrap_or("none")))
        }
        _ => Decision::Continue,
    }
}

/// Context-aware rewriting: searches made for a task are narrowed to its topic.
#[hook(before, tools = [web_search], priority = 80)]
fn scope_to_task(call: &mut BeforeCall<'_>) {
    let Some(task) = call.task() else { return };
    let topic = task.split_whitespace().next().unwrap_or(task).to_string();
    if let Some(serde_json::Value::String(query)) = call.arguments_mut().get_mut("query")
        && !query.contains(&topic)
    {
        query.push(' ');
        query.push_str(&topic);
    }
}

/// A friendly message for an upstream outage.
#[hook(error, tools = [stock_quote])]
fn upstream_down(err: &mut ErrorCall<'_>) -> Recovery {
    Recovery::Message(format!("the quote service is down ({}); answer without a live quote and say so", err.kind()))
}

// ---- the tour -----------------------------------------------------------------------

/// Prints each call: the result the model gets, the outcome, the hooks that acted.
struct Tour {
    tools: Toolbox,
    records: Arc<Mutex<Vec<CallRecord>>>,
    next: AtomicUsize,
}

impl Tour {
    async fn call(&self, scope: &Scope, tool: &str, args: &str) -> ToolResult {
        let id = format!("call_{}", self.next.fetch_add(1, Ordering::SeqCst) + 1);
        println!("  → {tool} {args}");
        let r = self.tools.call_in(ToolCall::new(id, tool, args), scope).await;
        let record = self.records.lock().unwrap().last().cloned().expect("one record per call");
        let acted: Vec<String> = record.hooks.iter().map(|h| format!("{}:{:?}", h.hook, h.effect)).collect();
        println!(
            "  ← {} [{}] hooks acted: {}",
            r.content,
            record.outcome,
            if acted.is_empty() { "none".into() } else { acted.join(", ") }
        );
        r
    }
}

fn section(title: &str) {
    println!("\n▸ {title}");
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A data directory with one report, for the file tools.
    // Emptied first: the audit log appends, and a process id is reused sooner or later.
    let data = std::env::temp_dir().join(format!("toolkit-hooks-tour-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data)?;
    std::fs::write(data.join("report.txt"), "Q3 revenue grew 12%. ".repeat(40))?;
    let audit_path = data.join("audit.jsonl");
    let audit = AuditLog::to_file(&audit_path)?;

    // 2. Approval gate: a "UI" answers over a channel.
    let (approver, mut requests) = ChannelApprover::new(8);
    tokio::spawn(async move {
        while let Some((request, responder)) = requests.recv().await {
            let to = request.arguments.get("to").and_then(|v| v.as_str()).unwrap_or_default().to_string();
            let answer = if to.ends_with("@example.com") {
                Approval::Approve
            } else {
                Approval::Reject(format!("{to} is outside the company"))
            };
            println!("    [approver] {request} → {answer:?}");
            let _ = responder.send(answer);
        }
    });

    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let tools = toolbox![web_search, get_weather, lookup_customer, delete_file, send_email, read_file, stock_quote]
        .with_hooks(hooks![
            safety_check,
            clean_query,
            start_timer,
            track_usage,
            track_failures,
            debug_call,
            debug_weather,
            interns_read_only,
            scope_to_task,
            upstream_down
        ])
        .with_hook(ApprovalGate::new(approver).tools(["send_email"]))
        .with_hook(Redactor::new())
        .with_hook(Hook::from(RateLimit::per_tool(3, Duration::from_secs(60))).for_tools(["web_search"]))
        .with_hook(Cache::ttl(Duration::from_secs(300)))
        .with_hook(LoopGuard::max_repeats(3))
        .with_hook(NormalizePaths::under(&data))
        .with_hook(PathSandbox::new().allow(&data))
        .with_hook(Truncate::chars(120))
        .with_hook(CircuitBreaker::after(2).cool_down(Duration::from_secs(30)))
        .with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone()))
        .with_sink(audit.clone());
    let tour = Tour { tools, records, next: AtomicUsize::new(0) };
    let researcher = Scope::new().with_agent("researcher").with_task("market report").with_session("s-1");
    let intern = Scope::new().with_agent("intern").with_task("inbox").with_session("s-2");

    section("safety guardrails");
    tour.call(&researcher, "delete_file", r#"{"path": "report.txt"}"#).await;

    section("approval gate (a UI answers over a channel)");
    tour.call(&researcher, "send_email", r#"{"to": "cfo@example.com", "body": "Q3 is up"}"#).await;
    tour.call(&researcher, "send_email", r#"{"to": "rival@elsewhere.net", "body": "Q3 is up"}"#).await;

    section("input validation and sanitization (a typed hook)");
    tour.call(&researcher, "web_search", r#"{"query": "  Tokio RUNTIME  "}"#).await;
    tour.call(&researcher, "web_search", r#"{"query": " a "}"#).await;

    section("context-aware input rewriting (the task narrows the search)");
    tour.call(&researcher, "web_search", r#"{"query": "competitor pricing"}"#).await;

    section("rate limiting (3 searches a minute)");
    for q in ["serde derive", "axum routing"] {
        tour.call(&researcher, "web_search", &format!(r#"{{"query": "{q}"}}"#)).await;
    }

    section("result redaction");
    tour.call(&researcher, "lookup_customer", r#"{"id": 7}"#).await;

    section("caching that returns the cached result");
    let runs = WEATHER_RUNS.load(Ordering::SeqCst);
    tour.call(&researcher, "get_weather", r#"{"city": "Lisbon"}"#).await;
    tour.call(&researcher, "get_weather", r#"{"city": "Lisbon"}"#).await;
    println!("    two calls, get_weather ran {} time(s)", WEATHER_RUNS.load(Ordering::SeqCst) - runs);

    section("conditional hooks by agent and task");
    tour.call(&intern, "send_email", r#"{"to": "cfo@example.com", "body": "hi"}"#).await;

    section("loop detection");
    for _ in 0..4 {
        tour.call(&intern, "get_weather", r#"{"city": "Oslo"}"#).await;
    }

    section("path sandbox, normalization and truncation (a file agent's hooks)");
    tour.call(&researcher, "read_file", r#"{"path": "report.txt"}"#).await;
    tour.call(&researcher, "read_file", r#"{"path": "/etc/passwd"}"#).await;
    tour.call(&researcher, "read_file", r#"{"path": "../../etc/passwd"}"#).await;

    section("circuit breaker and a friendly error message");
    for _ in 0..3 {
        tour.call(&researcher, "stock_quote", r#"{"symbol": "ACME"}"#).await;
    }
    println!(
        "    the quote service was called {} times; then the breaker stopped the calls",
        QUOTE_CALLS.load(Ordering::SeqCst)
    );

    section("usage analytics (timing carried through the extension map)");
    for (tool, (calls, failures, took)) in STATS.0.lock().unwrap().iter() {
        println!("    {tool:<16} calls {calls:>2}  failures {failures}  total {took:?}");
    }

    audit.flush()?;
    let log = std::fs::read_to_string(&audit_path)?;
    println!("\naudit log: {} lines in {}; the last one:", log.lines().count(), audit_path.display());
    println!("{}", log.lines().last().unwrap_or_default());
    Ok(())
}
