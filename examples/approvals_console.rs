//! A page where a person approves, edits or denies the calls paused runs wait on: plain
//! server-rendered HTML (axum), no front-end framework.
//!
//! ```sh
//! cargo run --example approvals_console                    # http://127.0.0.1:8080/
//! REDIS_URL=redis://127.0.0.1/ cargo run --example approvals_console -- --port 9000
//! ```
//!
//! Paused runs live in a [`RunStore`]: on Redis when `REDIS_URL` is set (so agents in
//! other processes can put theirs there), in memory otherwise. To have something to
//! decide on, the console starts `--seed N` runs (default 3) of an offline support desk
//! that pause on a refund. The page lists each pending call with its tool, its arguments
//! (through the [`Redactor`]: an e-mail address or a card number never reaches the page)
//! and the reason it waits; approving, editing or denying resumes the run, and the page
//! then shows how it ended. `GET /status` gives the same as JSON.

use std::collections::HashMap;
use std::error::Error;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use toolkit::Outcome;
use toolkit::agent::{Agent, AgentError};
use toolkit::durable::{CallDecision, PendingCall, RunStore};
use toolkit::hooks::Approval;
use toolkit::hooks::store::Store;
use toolkit::hooks::{ApprovalGate, MemoryStore, Redactor};
use toolkit::model::{ModelRequest, ScriptedModel, Turn};
use toolkit::prelude::*;

/// The refunds made, as the payment provider would see them.
#[derive(Default)]
struct Payments(Mutex<Vec<String>>);

/// Refund an order to the customer's card. Money leaves the company: a person approves it.
#[tool(destructive)]
fn refund(
    #[state] payments: &Arc<Payments>,
    #[context] cx: &CallContext<'_>,
    /// The order number.
    order: u32,
    /// The amount, in cents.
    cents: u64,
    /// The customer's e-mail, for the receipt.
    customer: String,
) -> String {
    let line = format!("{cents} cents on order {order} to {customer} (key {})", cx.idempotency_key());
    payments.0.lock().unwrap().push(line);
    format!("refunded {cents} cents on order {order}")
}

/// What the page shows of a run that was decided on.
struct Finished {
    run_id: String,
    decision: String,
    answer: String,
    outcome: String,
}

struct Console {
    runs: RunStore,
    store: Arc<dyn Store>,
    payments: Arc<Payments>,
    redactor: Redactor,
    finished: Mutex<Vec<Finished>>,
}

impl Console {
    /// The support desk, the same in every process that runs or resumes its runs.
    fn agent(&self, model: ScriptedModel) -> Agent {
        let tools =
            toolbox![refund].with_hook(ApprovalGate::deferring().destructive()).with_state(Arc::clone(&self.payments));
        Agent::builder(model, tools)
            .name("support-desk")
            .durable(Arc::clone(&self.store))
            .build()
            .expect("a valid agent")
    }
}

/// The model's answer once the refund call has its result.
fn answer(request: &ModelRequest<'_>) -> Turn {
    let result = request.tool_results().last().map(|(_, text)| text.to_string()).unwrap_or_default();
    Turn::text(if result.starts_with("refunded") {
        format!("Done: {result}.")
    } else {
        format!("No refund was made: {result}")
    })
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The arguments as the page may show them: every string through the redactor.
fn shown(redactor: &Redactor, call: &PendingCall) -> String {
    redactor.redact(call.arguments()).into_owned()
}

async fn index(State(console): State<Arc<Console>>) -> Result<Html<String>, (StatusCode, String)> {
    let runs = console.runs.list().await.map_err(|e| (StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    let mut page = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Approvals</title><style>\
         body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;width:100%}\
         td,th{border:1px solid #ccc;padding:.5em;vertical-align:top;text-align:left}code{white-space:pre-wrap}\
         form{display:inline-block;margin:.2em}textarea{width:22em;height:5em}</style></head><body>\
         <h1>Calls waiting for a decision</h1>",
    );
    let pending: usize = runs.iter().map(|r| r.pending().len()).sum();
    if pending == 0 {
        page.push_str("<p id=\"none\">Nothing waits for a decision.</p>");
    } else {
        page.push_str(
            "<table><tr><th>run</th><th>tool</th><th>arguments (redacted)</th><th>why</th><th>decide</th></tr>",
        );
        for run in &runs {
            for call in run.pending() {
                let args = shown(&console.redactor, call);
                let hidden = format!(
                    "<input type=\"hidden\" name=\"run_id\" value=\"{}\"><input type=\"hidden\" name=\"call_id\" value=\"{}\">\
                     <input type=\"hidden\" name=\"digest\" value=\"{}\">",
                    escape(run.run_id()),
                    escape(call.call_id()),
                    escape(call.digest())
                );
                let _ = write!(
                    page,
                    "<tr data-run=\"{run}\"><td>{run}<br><small>agent {agent}</small></td><td>{tool}</td><td><code>{args}</code></td>\
                     <td>{why}</td><td>\
                     <form method=\"post\" action=\"/decide\">{hidden}<button name=\"action\" value=\"approve\">Approve</button></form>\
                     <form method=\"post\" action=\"/decide\">{hidden}<input name=\"message\" placeholder=\"reason\">\
                     <button name=\"action\" value=\"deny\">Deny</button></form>\
                     <form method=\"post\" action=\"/decide\">{hidden}<textarea name=\"arguments\">{args}</textarea>\
                     <button name=\"action\" value=\"edit\">Approve edited</button></form></td></tr>",
                    run = escape(run.run_id()),
                    agent = escape(run.agent().unwrap_or("-")),
                    tool = escape(call.tool()),
                    args = escape(&args),
                    why = escape(call.reason()),
                );
            }
        }
        page.push_str("</table>");
    }
    let finished = console.finished.lock().unwrap();
    if !finished.is_empty() {
        page.push_str(
            "<h2>Decided</h2><table id=\"finished\"><tr><th>run</th><th>decision</th><th>call</th><th>answer</th></tr>",
        );
        for f in finished.iter() {
            let _ = write!(
                page,
                "<tr class=\"finished\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&f.run_id),
                escape(&f.decision),
                escape(&f.outcome),
                escape(&f.answer)
            );
        }
        page.push_str("</table>");
    }
    let refunds = console.payments.0.lock().unwrap().len();
    let _ = write!(page, "<p id=\"refunds\">Refunds made by this process: {refunds}</p></body></html>");
    Ok(Html(page))
}

/// `application/x-www-form-urlencoded`, read by hand (one small function, no crate).
fn form(body: &str) -> HashMap<String, String> {
    let decode = |s: &str| {
        let bytes = s.replace('+', " ").into_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
                (b'%', Some(b)) => {
                    out.push(b);
                    i += 3;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    body.split('&').filter_map(|pair| pair.split_once('=')).map(|(k, v)| (decode(k), decode(v))).collect()
}

/// Edited arguments as submitted: a value left as the page showed it (redacted) keeps
/// the call's own.
fn edited(console: &Console, call: &PendingCall, text: &str) -> Result<Map<String, Value>, String> {
    let mut edited: Map<String, Value> =
        serde_json::from_str(text).map_err(|e| format!("the edited arguments are not a JSON object: {e}"))?;
    let original: Map<String, Value> = serde_json::from_str(call.arguments()).unwrap_or_default();
    let redacted: Map<String, Value> = serde_json::from_str(&shown(&console.redactor, call)).unwrap_or_default();
    for (key, value) in edited.iter_mut() {
        if redacted.get(key) == Some(value)
            && let Some(own) = original.get(key)
        {
            *value = own.clone();
        }
    }
    Ok(edited)
}

async fn decide(State(console): State<Arc<Console>>, body: String) -> Response {
    let fields = form(&body);
    let field = |name: &str| fields.get(name).cloned().unwrap_or_default();
    // One resumer takes the run: a second click, a second tab or a second console finds
    // it gone.
    let state = match console.runs.take(&field("run_id")).await {
        Ok(Some(state)) => state,
        Ok(None) => {
            return (
                StatusCode::CONFLICT,
                Html("<p id=\"gone\">This run was already decided on. <a href=\"/\">Back</a></p>".to_owned()),
            )
                .into_response();
        }
        Err(e) => return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
    };
    let Some(call) = state.pending().iter().find(|c| c.call_id() == field("call_id")).cloned() else {
        return (StatusCode::BAD_REQUEST, "no such pending call").into_response();
    };
    let approval = match field("action").as_str() {
        "approve" => Approval::Approve,
        "deny" => Approval::Reject(field("message")),
        "edit" => match edited(&console, &call, &field("arguments")) {
            Ok(arguments) => Approval::ApproveWith(arguments),
            Err(e) => {
                let _ = console.runs.put(&state).await;
                return (StatusCode::BAD_REQUEST, e).into_response();
            }
        },
        other => {
            let _ = console.runs.put(&state).await;
            return (StatusCode::BAD_REQUEST, format!("unknown action `{other}`")).into_response();
        }
    };
    let label = match &approval {
        Approval::Approve => "approved".to_owned(),
        Approval::ApproveWith(_) => "approved, edited".to_owned(),
        Approval::Reject(m) => format!("denied: {m}"),
    };
    // Bound to what the page showed: the digest came with the form.
    let decision = CallDecision { call_id: call.call_id().to_owned(), digest: field("digest"), approval };
    let run_id = state.run_id().to_owned();
    let agent = console.agent(ScriptedModel::new([Turn::with(answer)]));
    let finished = match agent.resume(state, [decision]).await {
        Ok(run) => {
            let outcome = run.records.last().map(|r| format!("{}: {}", r.outcome, r.content)).unwrap_or_default();
            Finished { run_id, decision: label, answer: run.text, outcome }
        }
        Err(AgentError::Paused { state, .. }) => {
            let _ = console.runs.put(&state).await;
            Finished { run_id, decision: label, answer: "paused again".into(), outcome: Outcome::Deferred.to_string() }
        }
        Err(e) => Finished { run_id, decision: label, answer: format!("the run failed: {e}"), outcome: String::new() },
    };
    console.finished.lock().unwrap().push(finished);
    Redirect::to("/").into_response()
}

async fn status(State(console): State<Arc<Console>>) -> Response {
    let pending = console.runs.list().await.map(|r| r.iter().map(|s| s.pending().len()).sum::<usize>()).unwrap_or(0);
    let finished: Vec<Value> = console
        .finished
        .lock()
        .unwrap()
        .iter()
        .map(|f| json!({"run_id": f.run_id, "decision": f.decision, "outcome": f.outcome, "answer": f.answer}))
        .collect();
    let refunds = console.payments.0.lock().unwrap().clone();
    (
        [(header::CONTENT_TYPE, "application/json")],
        json!({"pending": pending, "finished": finished, "refunds": refunds}).to_string(),
    )
        .into_response()
}

fn flag(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

async fn run() -> Result<(), Box<dyn Error>> {
    let store: Arc<dyn Store> = match std::env::var("REDIS_URL") {
        Ok(url) => Arc::new(toolkit::hooks::RedisStore::open(&url)?),
        Err(_) => Arc::new(MemoryStore::new()),
    };
    let console = Arc::new(Console {
        runs: RunStore::shared(Arc::clone(&store)),
        store,
        payments: Arc::default(),
        redactor: Redactor::new(),
        finished: Mutex::default(),
    });
    let seeds: u32 = flag("--seed").map_or(Ok(3), |n| n.parse())?;
    for (i, order) in (0..seeds).map(|i| (i, 40 + i)) {
        let call =
            format!(r#"{{"order": {order}, "cents": {}, "customer": "customer{i}@example.com"}}"#, 1000 + 250 * i);
        let agent = console.agent(ScriptedModel::new([Turn::call("refund", call)]));
        match agent.run(format!("Refund order {order}: it arrived broken.")).await {
            Err(AgentError::Paused { state, .. }) => console.runs.put(&state).await?,
            other => return Err(format!("the seeded run did not pause: {other:?}").into()),
        }
    }
    let port: u16 = flag("--port").map_or(Ok(8080), |p| p.parse())?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("approvals console: http://{}/", listener.local_addr()?);
    let app = Router::new()
        .route("/", get(index))
        .route("/decide", post(decide))
        .route("/status", get(status))
        .with_state(console);
    axum::serve(listener, app).await?;
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
