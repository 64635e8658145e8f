//! A streaming run: the answer printed as the model writes it, tool calls and their
//! results as they happen.
//!
//! ```sh
//! cargo run --example streaming                              # offline: the scripted model streams too
//! OPENAI_API_KEY=... cargo run --example streaming           # a real model, streamed
//! ANTHROPIC_API_KEY=... cargo run --example streaming -- --provider anthropic
//! ```

#[path = "support/show.rs"]
mod show;

use std::io::Write;

use toolkit::agent::{Agent, RunEvent};
use toolkit::model::{ScriptedModel, StreamExt, Turn};
use toolkit::prelude::*;

/// Add two integers.
#[tool(read_only)]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> i64 {
    a + b
}

/// The script: a call, then an answer long enough to watch arrive.
fn script() -> ScriptedModel {
    ScriptedModel::new([
        Turn::call("add", r#"{"a": 1234, "b": 5678}"#),
        Turn::text(
            "1234 plus 5678 is 6912. The add tool did the arithmetic, and this answer arrived a word at a time.",
        ),
    ])
}

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let model = show::pick_model(script())?;
    let agent = Agent::builder(model, toolbox![add]).system_prompt("Use the add tool for arithmetic.").build()?;
    let question = show::question("What is 1234 + 5678?");
    println!("user: {question}");
    let mut events = agent.run_stream(question);
    let mut deltas = 0;
    while let Some(event) = events.next().await {
        match event {
            RunEvent::TurnStarted { iteration } => println!("── model turn {iteration}"),
            RunEvent::TextDelta { text, .. } => {
                deltas += 1;
                print!("{text}");
                std::io::stdout().flush()?;
            }
            RunEvent::ToolCall { call } => println!("   → {} {}", call.name, call.arguments),
            RunEvent::ToolResult { record } => println!("   ← {} [{}] {}", record.tool, record.outcome, record.content),
            RunEvent::Finished(run) => {
                let run = run?;
                println!(
                    "\n── done: {deltas} text deltas, {} tool call(s), {} tokens",
                    run.records.len(),
                    run.usage.total_tokens
                );
            }
            _ => {}
        }
    }
    Ok(())
}
