//! A run that outlives its process: it pauses on a refund that needs a person's
//! approval, the state goes to disk, the process exits; a later invocation (any process,
//! any machine that sees the directory) resumes it with the decision and finishes.
//!
//! ```sh
//! cargo run --example durable_agent                       # runs until the refund, pauses, exits
//! cargo run --example durable_agent -- approve            # resumes: the refund runs once
//! cargo run --example durable_agent -- deny "not yet"     # or: the model hears why not
//! cargo run --example durable_agent -- edit '{"order": 42, "cents": 500}'
//! ```
//!
//! Offline (a scripted model). The directory is `$TOOLKIT_DURABLE_DIR`, or
//! `toolkit-durable-agent` in the system's temporary directory: `runs/` holds paused
//! runs (a `RunStore` over a `FileStore`), `ledger/` the effect ledger, `refunds.txt`
//! the refunds made. Resuming the same run twice never refunds twice.

#[path = "support/show.rs"]
mod show;

use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use toolkit::agent::{Agent, AgentError};
use toolkit::durable::{CallDecision, RunState, RunStore};
use toolkit::hooks::{ApprovalGate, FileStore};
use toolkit::model::{ModelRequest, ScriptedModel, Turn};
use toolkit::prelude::*;

/// Where the refunds are written.
struct Ledger(PathBuf);

/// Look an order up: what was bought, for how much.
#[tool(read_only)]
fn lookup_order(
    /// The order number.
    order: u32,
) -> String {
    format!("order {order}: one blue kettle, 1250 cents, paid by card, delivered damaged")
}

/// Refund an order to the card it was paid with. Money leaves the company: a person
/// approves every refund.
#[tool(destructive)]
fn refund(
    #[context] cx: &CallContext<'_>,
    #[state] ledger: &Ledger,
    /// The order number.
    order: u32,
    /// The amount, in cents.
    cents: u64,
) -> Result<String, std::io::Error> {
    // The idempotency key goes to the payment provider too: it is the same in every
    // attempt and every process that runs this call.
    let key = cx.idempotency_key();
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&ledger.0)?;
    writeln!(file, "refunded {cents} cents on order {order} (idempotency key {key})")?;
    Ok(format!("refunded {cents} cents on order {order}"))
}

fn dir() -> PathBuf {
    std::env::var_os("TOOLKIT_DURABLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("toolkit-durable-agent"))
}

/// The model's last turn: an answer built from what the refund call returned.
fn answer(request: &ModelRequest<'_>) -> Turn {
    let results = request.tool_results();
    let refund = results.last().map(|(_, text)| *text).unwrap_or_default();
    Turn::text(if refund.starts_with("refunded") {
        format!("Done: {refund}. The kettle arrived damaged, so the full price went back to the card.")
    } else {
        format!("I did not refund order 42 ({refund}). Tell me if you want me to try something else.")
    })
}

/// The agent, in any process: the same name, tools, hooks and store.
fn agent(model: ScriptedModel, dir: &std::path::Path) -> Result<Agent, Box<dyn Error>> {
    let tools = toolbox![lookup_order, refund]
        .with_hook(ApprovalGate::deferring().destructive())
        .with_state(Ledger(dir.join("refunds.txt")));
    Ok(Agent::builder(model, tools)
        .name("support-desk")
        .system_prompt("You handle refunds. Look the order up before refunding it.")
        .durable(FileStore::open(dir.join("ledger"))?)
        .on_event(show::print_event)
        .build()?)
}

async fn run() -> Result<(), Box<dyn Error>> {
    let dir = dir();
    let runs = RunStore::new(FileStore::open(dir.join("runs"))?);
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--offline").collect();
    let Some(action) = args.first() else {
        return start(&dir, &runs).await;
    };
    // Resuming: take the paused run (one resumer gets it), decide, go on.
    let Some(state) = runs.list().await?.into_iter().next() else {
        println!("no paused run in {}: run the example without arguments first", dir.display());
        return Ok(());
    };
    let Some(state) = runs.take(state.run_id()).await? else {
        println!("another process took the paused run first");
        return Ok(());
    };
    let pending = &state.pending()[0];
    let decision: CallDecision = match action.as_str() {
        "approve" => pending.approve(),
        "deny" => pending.deny(args.get(1).cloned().unwrap_or_default()),
        "edit" => {
            let text = args.get(1).ok_or("edit needs the new arguments, a JSON object")?;
            pending.approve_with(serde_json::from_str(text)?)
        }
        other => return Err(format!("unknown action `{other}`: approve, deny REASON or edit JSON").into()),
    };
    println!(
        "resuming run {} ({} model turn(s) so far) with: {:?}\n",
        state.run_id(),
        state.iterations(),
        decision.approval
    );
    let agent = agent(ScriptedModel::new([Turn::with(answer)]), &dir)?;
    let run = match agent.resume(state, [decision]).await {
        Ok(run) => run,
        Err(AgentError::Paused { state, .. }) => return pause(&runs, &state).await,
        Err(e) => return Err(e.into()),
    };
    show::print_records(&run.records);
    let refunds = std::fs::read_to_string(dir.join("refunds.txt")).unwrap_or_default();
    println!("\nrefunds made so far ({}):\n{}", refunds.lines().count(), refunds.trim_end());
    Ok(())
}

/// The first invocation: the run goes until the refund, then pauses.
async fn start(dir: &std::path::Path, runs: &RunStore) -> Result<(), Box<dyn Error>> {
    println!("directory: {}\n", dir.display());
    let question = "Order 42 arrived damaged. Please refund it in full.";
    println!("user: {question}\n");
    let model = ScriptedModel::new([Turn::calls([
        ("lookup_order", r#"{"order": 42}"#),
        ("refund", r#"{"order": 42, "cents": 1250}"#),
    ])]);
    match agent(model, dir)?.run(question).await {
        Err(AgentError::Paused { state, .. }) => pause(runs, &state).await,
        Ok(run) => {
            println!("finished without pausing: {}", run.text);
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

async fn pause(runs: &RunStore, state: &RunState) -> Result<(), Box<dyn Error>> {
    runs.put(state).await?;
    println!("\n── the run paused; {} call(s) wait for a decision:", state.pending().len());
    for call in state.pending() {
        println!("   {} {} — {}", call.tool(), call.arguments(), call.reason());
    }
    println!(
        "state of run {} written to the run store ({} bytes); this process now exits.",
        state.run_id(),
        state.to_json().len()
    );
    println!("resume it from any process:");
    println!("   cargo run --example durable_agent -- approve");
    println!("   cargo run --example durable_agent -- deny \"a reason for the model\"");
    println!("   cargo run --example durable_agent -- edit '{{\"order\": 42, \"cents\": 500}}'");
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    show::exit_code(run().await.map_err(|e| e as Box<dyn Error>))
}
