//! Printing an agent run for the examples: progress as it happens, and a table of the
//! call records at the end (`#[path]`-included; not an example of its own).

#![allow(dead_code)] // each including example uses its own part

use std::sync::Arc;

use toolkit::CallRecord;
use toolkit::agent::AgentEvent;
use toolkit::model::{Model, ModelError, OpenAiCompatible, ScriptedModel};

/// A real model when `OPENAI_API_KEY` is set and `--offline` is not given. Says which
/// model the example uses on stdout.
pub fn real_model() -> Result<Option<OpenAiCompatible>, ModelError> {
    let offline = std::env::args().any(|a| a == "--offline");
    if !offline && std::env::var("OPENAI_API_KEY").is_ok_and(|k| !k.trim().is_empty()) {
        let model = OpenAiCompatible::from_env()?;
        println!("model: {} at {} (from OPENAI_API_KEY; pass --offline for the script)\n", model.model(), model.url());
        Ok(Some(model))
    } else {
        println!("model: scripted, offline (set OPENAI_API_KEY to use a real model)\n");
        Ok(None)
    }
}

/// The real model if there is one, else the script.
pub fn pick_model(script: ScriptedModel) -> Result<Arc<dyn Model>, ModelError> {
    Ok(match real_model()? {
        Some(model) => Arc::new(model),
        None => Arc::new(script),
    })
}

/// The question given on the command line (its words, flags aside), if any.
pub fn asked() -> Option<String> {
    let words: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The user's question: the command line's, or `default`.
pub fn question(default: &str) -> String {
    asked().unwrap_or_else(|| default.to_string())
}

/// Prints each event of a run as it happens.
pub fn print_event(event: &AgentEvent<'_>) {
    match event {
        AgentEvent::TurnStarted { iteration } => println!("── model turn {iteration}"),
        AgentEvent::ModelReplied { message, .. } => {
            if let Some(text) = message.content.as_deref().filter(|t| !t.is_empty() && !message.tool_calls.is_empty()) {
                println!("   model says: {text}");
            }
        }
        AgentEvent::ToolCallStarted { call } => println!("   → {} {}", call.name, call.arguments),
        AgentEvent::ToolCallFinished { record } => {
            println!("   ← {} [{}] {}", record.tool, record.outcome, preview(&record.content, 90));
            if let Some(args) = &record.rewritten_arguments
                && args != &record.arguments
            {
                println!("       arguments rewritten by a hook: {args}");
            }
            for action in &record.hooks {
                println!("       hook {} ({:?}): {:?}", action.hook, action.event, action.effect);
            }
        }
        AgentEvent::FinalAnswer { text } => println!("── final answer\n{text}"),
        _ => {}
    }
}

/// The exit code of an example's `run`: a failure is its readable message on stderr and
/// code 1 (not the `Debug` dump of the whole run that `main` returning the error prints).
pub fn exit_code(result: Result<(), Box<dyn std::error::Error>>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// How the run's last answer ended, when it is not a plain answer: a refusal, an answer
/// cut by the token limit, or a reason the client does not know.
/// Runs `agent` on `question` and prints how the answer ended and every call's record;
/// a failed run prints the records it made, then returns its error.
pub async fn run_and_show(
    agent: &toolkit::agent::Agent,
    question: impl Into<String>,
) -> Result<toolkit::agent::AgentRun, Box<dyn std::error::Error>> {
    let run = match agent.run(question.into()).await {
        Ok(run) => run,
        Err(e) => {
            print_records(&e.run().records);
            return Err(e.into());
        }
    };
    print_ending(&run);
    print_records(&run.records);
    Ok(run)
}

pub fn print_ending(run: &toolkit::agent::AgentRun) {
    if let Some(refusal) = &run.refusal {
        println!("── the model refused\n{refusal}");
    }
    match &run.finish_reason {
        Some(toolkit::model::FinishReason::Length) => println!("(cut: the token limit was reached)"),
        Some(reason @ toolkit::model::FinishReason::Other(_)) => println!("(the model stopped: {reason})"),
        _ => {}
    }
}

/// One line, at most `chars` characters, with the length when cut.
pub fn preview(text: &str, chars: usize) -> String {
    let one_line = text.replace('\n', " ⏎ ");
    let count = one_line.chars().count();
    if count <= chars {
        one_line
    } else {
        format!("{}… ({} chars)", one_line.chars().take(chars).collect::<String>(), text.chars().count())
    }
}

/// A table of the call records: id, tool, outcome, hooks that acted, size, time.
pub fn print_records(records: &[Arc<CallRecord>]) {
    println!("\n{:<9} {:<13} {:<23} {:<56} {:>6} {:>9}", "call", "tool", "outcome", "hooks acted", "chars", "time");
    for r in records {
        let hooks: Vec<String> = r.hooks.iter().map(|h| format!("{}:{:?}", h.hook, h.effect).to_lowercase()).collect();
        println!(
            "{:<9} {:<13} {:<23} {:<56} {:>6} {:>7.2}ms",
            r.call_id,
            r.tool,
            r.outcome.to_string(),
            if hooks.is_empty() { "-".to_string() } else { hooks.join(", ") },
            r.content.chars().count(),
            r.duration.as_secs_f64() * 1000.0
        );
    }
}
