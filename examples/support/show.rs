//! Printing an agent run for the examples: progress as it happens, and a table of the
//! call records at the end (`#[path]`-included; not an example of its own).

#![allow(dead_code)] // each including example uses its own part

use std::sync::Arc;

use toolkit::CallRecord;
use toolkit::agent::AgentEvent;
use toolkit::model::{Anthropic, Gemini, Model, ModelError, OpenAiCompatible, OpenAiResponses, ScriptedModel};

/// The provider `--provider NAME` (or `--provider=NAME`) names: `openai` (the default),
/// `responses`, `anthropic` or `gemini`; with the variable its key comes from.
fn provider() -> (String, &'static str) {
    let args: Vec<String> = std::env::args().collect();
    let name = args
        .iter()
        .position(|a| a == "--provider")
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| args.iter().find_map(|a| a.strip_prefix("--provider=").map(str::to_string)))
        .unwrap_or_else(|| "openai".to_string());
    let variable = match name.as_str() {
        "anthropic" => "ANTHROPIC_API_KEY",
        "gemini" => "GEMINI_API_KEY",
        _ => "OPENAI_API_KEY",
    };
    (name, variable)
}

/// A real model when the chosen provider's key is set (`--provider
/// openai|responses|anthropic|gemini`, default `openai`: `OPENAI_API_KEY`,
/// `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`) and `--offline` is not given. Says which model
/// the example uses on stdout.
pub fn real_model() -> Result<Option<Arc<dyn Model>>, ModelError> {
    let offline = std::env::args().any(|a| a == "--offline");
    let (name, variable) = provider();
    if offline || !std::env::var(variable).is_ok_and(|k| !k.trim().is_empty()) {
        println!(
            "model: scripted, offline (set {variable} to use a real model; --provider openai|responses|anthropic|gemini)\n"
        );
        return Ok(None);
    }
    let (model, url): (Arc<dyn Model>, String) = match name.as_str() {
        "anthropic" => {
            let m = Anthropic::from_env()?;
            let url = m.url().to_string();
            (Arc::new(m), url)
        }
        "gemini" => {
            let m = Gemini::from_env()?;
            let url = m.url().to_string();
            (Arc::new(m), url)
        }
        "responses" => {
            let m = OpenAiResponses::from_env()?;
            let url = m.url().to_string();
            (Arc::new(m), url)
        }
        "openai" => {
            let m = OpenAiCompatible::from_env()?;
            let url = m.url().to_string();
            (Arc::new(m), url)
        }
        other => {
            let message = format!("unknown provider `{other}`: use openai, responses, anthropic or gemini");
            return Err(ModelError::Other(message.into()));
        }
    };
    println!("model: {} at {url} (from {variable}; pass --offline for the script)\n", model.name());
    Ok(Some(model))
}

/// The real model if there is one, else the script.
pub fn pick_model(script: ScriptedModel) -> Result<Arc<dyn Model>, ModelError> {
    Ok(match real_model()? {
        Some(model) => model,
        None => Arc::new(script),
    })
}

/// The question given on the command line (its words, flags aside), if any.
pub fn asked() -> Option<String> {
    let mut words = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--provider" {
            args.next();
        } else if !arg.starts_with("--") {
            words.push(arg);
        }
    }
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
