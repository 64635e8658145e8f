//! What the agent loop costs on top of a hand-written loop over the same toolbox.
//!
//! Run with `cargo bench --bench agent`. Both sides run the same conversation: a model
//! (an in-memory replay: no network, no recording) asks for two parallel `add` calls,
//! then one more, then answers; each side appends the assistant messages and one tool
//! message per call, and returns the final text.
//!
//! * The **floor** is the loop of the function-calling guide written by hand over the
//!   same model and the same typed messages: `Toolbox::call_all` per turn, no scope, no
//!   records, no events.
//! * **`Agent::run`** adds what the floor lacks: the typed transcript, a scope with the
//!   run's labels, one `CallRecord` per call collected in call order, usage, the tool
//!   choice rules, and an `invoke_agent` span (no subscriber installed).
//!
//! The summary printed at the end times both interleaved in the same process and prints
//! the ratio of the medians.
//!
//! Then durable runs: what a resume costs (the state read back from its JSON, the paused
//! call run through the effect ledger, the model's answer) next to a run that makes the
//! same call and answer without pausing, and the size of the state of a run paused at
//! its 20th turn.

use std::future::IntoFuture;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use criterion::Criterion;
use toolkit::agent::Agent;
use toolkit::model::BoxFuture;
use toolkit::model::{AssistantMessage, FinishReason, Message, Model, ModelError, ModelReply, ModelRequest, Usage};
use toolkit::prelude::*;

/// Add two integers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Pay an amount (destructive: a durable agent's ledger covers it).
#[tool(destructive)]
fn pay(cents: u64) -> String {
    format!("paid {cents}")
}

fn replies() -> Vec<AssistantMessage> {
    vec![
        AssistantMessage::calls(vec![
            ToolCall::new("call_1", "add", r#"{"a": 1, "b": 2}"#),
            ToolCall::new("call_2", "add", r#"{"a": 3, "b": 4}"#),
        ]),
        AssistantMessage::calls(vec![ToolCall::new("call_3", "add", r#"{"a": 3, "b": 7}"#)]),
        AssistantMessage::text("3, 7, then 10."),
    ]
}

/// A model that answers turn N with the N-th reply, keeping no state.
struct Replay(Vec<AssistantMessage>);

impl Model for Replay {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        let turn = request.messages.iter().filter(|m| matches!(m, Message::Assistant(_))).count();
        let message = self.0[turn].clone();
        let finish_reason = if message.tool_calls.is_empty() { FinishReason::Stop } else { FinishReason::ToolCalls };
        Box::pin(std::future::ready(Ok(ModelReply { message, finish_reason, usage: Usage::new(10, 5) })))
    }
}

/// The hand-written loop, over the same typed messages (a `Vec<serde_json::Value>`
/// transcript measured twice as slow as either side: it is not the floor).
async fn floor(tools: &Toolbox, model: &Replay, input: &str) -> String {
    let mut messages = vec![Message::user(input)];
    let specs = tools.specs();
    loop {
        let reply = model.complete(ModelRequest::new(&messages, &specs)).await.unwrap();
        if reply.message.tool_calls.is_empty() {
            let text = reply.message.content.clone().unwrap_or_default();
            messages.push(Message::Assistant(reply.message));
            black_box(&messages);
            return text;
        }
        let calls = reply.message.tool_calls.clone();
        messages.push(Message::Assistant(reply.message));
        for result in tools.call_all(calls).await {
            messages.push(Message::tool(&result));
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let tools = Arc::new(toolbox![add]);
    let script = Replay(replies());
    let agent = Agent::builder(Replay(replies()), Arc::clone(&tools)).build().unwrap();

    // Both sides give the same answer.
    let expected = rt.block_on(floor(&tools, &script, "add"));
    let run = rt.block_on(agent.run("add").into_future()).unwrap();
    assert_eq!(run.text, expected);
    assert_eq!(run.records.len(), 3);

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("agent_run_3_calls");
    group.bench_function("floor", |b| b.iter(|| rt.block_on(floor(&tools, &script, "add"))));
    group.bench_function("agent", |b| b.iter(|| rt.block_on(agent.run("add").into_future()).unwrap()));
    group.finish();

    let bench = std::env::args().any(|a| a == "--bench");
    let rounds = if bench { 101 } else { 3 };
    let per_round = if bench { 2_000 } else { 10 };
    let (mut f, mut a) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..per_round {
            black_box(rt.block_on(floor(&tools, &script, "add")));
        }
        f.push(t.elapsed().as_nanos() as f64 / per_round as f64);
        let t = Instant::now();
        for _ in 0..per_round {
            black_box(rt.block_on(agent.run("add").into_future()).unwrap());
        }
        a.push(t.elapsed().as_nanos() as f64 / per_round as f64);
    }
    let (f, a) = (median(f), median(a));
    println!("\nagent loop, 3 model turns, 3 tool calls (medians of {rounds} interleaved rounds):");
    println!("  hand-written loop {:>9.0} ns", f);
    println!("  Agent::run        {:>9.0} ns   {:.2}x", a, a / f);

    durable(&rt, bench);
}

/// Replies that call `add` `turns - 1` times, then `pay`, then answer.
fn paying(turns: usize) -> Vec<AssistantMessage> {
    let mut replies: Vec<AssistantMessage> = (1..turns)
        .map(|i| {
            AssistantMessage::calls(vec![ToolCall::new(format!("call_{i}"), "add", format!(r#"{{"a": {i}, "b": 2}}"#))])
        })
        .collect();
    replies.push(AssistantMessage::calls(vec![ToolCall::new(format!("call_{turns}"), "pay", r#"{"cents": 500}"#)]));
    replies.push(AssistantMessage::text("Paid."));
    replies
}

fn durable(rt: &tokio::runtime::Runtime, bench: bool) {
    use toolkit::durable::RunState;
    use toolkit::hooks::{ApprovalGate, MemoryStore};
    let gated = || toolbox![add, pay].with_hook(ApprovalGate::deferring().destructive());
    let agent = |tools: Toolbox, turns: usize| {
        Agent::builder(Replay(paying(turns)), tools).max_iterations(25).durable(MemoryStore::new()).build().unwrap()
    };

    // The size of a state paused at the 20th turn.
    let state =
        rt.block_on(agent(gated(), 20).run("pay after 19 sums").into_future()).unwrap_err().into_paused().unwrap();
    assert_eq!(state.iterations(), 20);
    println!(
        "\ndurable runs:\n  the state of a run paused at turn 20 (19 calls done, 1 pending): {} bytes of JSON",
        state.to_json().len()
    );

    // A resume (from JSON, approve, the call through the ledger, the answer) against a
    // run that makes the same call and answer without pausing.
    let resumer = agent(gated(), 1);
    let plain = Agent::builder(Replay(paying(1)), toolbox![add, pay]).durable(MemoryStore::new()).build().unwrap();
    let paused = |n: usize| -> Vec<String> {
        (0..n)
            .map(|_| rt.block_on(resumer.run("pay").into_future()).unwrap_err().into_paused().unwrap().to_json())
            .collect()
    };
    let resume = |json: &str| {
        let state = RunState::from_json(json).unwrap();
        let approve = state.pending()[0].approve();
        let run = rt.block_on(resumer.resume(state, [approve]).into_future()).unwrap();
        assert_eq!(run.text, "Paid.");
    };
    let whole = |_: &str| {
        let run = rt.block_on(plain.run("pay").into_future()).unwrap();
        assert_eq!(run.text, "Paid.");
    };
    let rounds = if bench { 51 } else { 3 };
    let per_round = if bench { 500 } else { 5 };
    let (mut w, mut r) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let states = paused(per_round);
        let t = Instant::now();
        states.iter().for_each(|s| whole(s));
        w.push(t.elapsed().as_nanos() as f64 / per_round as f64);
        let t = Instant::now();
        states.iter().for_each(|s| resume(s));
        r.push(t.elapsed().as_nanos() as f64 / per_round as f64);
    }
    let (w, r) = (median(w), median(r));
    println!("  one call and an answer, run whole   {:>9.0} ns", w);
    println!("  the same, resumed from a paused state {:>7.0} ns   {:.2}x  (+{:.0} ns per resume)", r, r / w, r - w);
}
