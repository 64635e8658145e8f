//! The `get_weather` tool of the function-calling guide, end to end: its schemas as
//! OpenAI and Anthropic receive them, the results a model gets back for good and bad
//! calls, and the agentic loop with each `tool_choice` (`auto`, `required`, `none`, one
//! named tool, with parallel calls).
//!
//! ```sh
//! cargo run --example weather                      # offline: scripted models
//! OPENAI_API_KEY=... cargo run --example weather   # the loop runs against a real model
//! ANTHROPIC_API_KEY=... cargo run --example weather -- --provider anthropic
//! ```
//!
//! `--provider openai|responses|anthropic|gemini` picks the client (default `openai`);
//! without that provider's key the scripted models run.

use std::sync::Arc;

use toolkit::agent::Agent;
use toolkit::model::{Model, ScriptedModel, ToolChoice, Turn};
use toolkit::prelude::*;

#[path = "support/show.rs"]
mod show;
#[path = "support/weather.rs"]
mod weather;
use weather::get_weather;

/// A scripted answer that quotes the last tool results, as a model would.
fn answer_from_results(prefix: &'static str) -> Turn {
    Turn::with(move |request| {
        let results: Vec<String> = request.tool_results().into_iter().map(|(_, content)| describe(content)).collect();
        Turn::text(format!("{prefix} {}.", results.join("; ")))
    })
}

/// "Beijing: 22 °C, sunny" from a `get_weather` result (or the error text as is).
fn describe(result: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(result) {
        Ok(w) => {
            let unit = if w["unit"] == "fahrenheit" { "°F" } else { "°C" };
            // 22 rather than 22.0; 71.6 as it is.
            let temperature = w["temperature"].as_f64().map_or_else(|| "?".to_owned(), |t| format!("{t}"));
            format!(
                "{}: {temperature} {unit}, {}",
                w["location"].as_str().unwrap_or("?"),
                w["conditions"].as_str().unwrap_or("?")
            )
        }
        Err(_) => result.to_string(),
    }
}

/// The agentic loop of the guide, once per `tool_choice`.
async fn agentic_loop(real: Option<&Arc<dyn Model>>) -> Result<(), Box<dyn std::error::Error>> {
    let scenarios: Vec<(&str, ToolChoice, ScriptedModel)> = vec![
        (
            "What's the weather in Beijing right now?",
            ToolChoice::Auto,
            ScriptedModel::new([
                Turn::call("get_weather", r#"{"location": "Beijing"}"#),
                answer_from_results("Right now:"),
            ]),
        ),
        (
            "Should I take an umbrella in Shanghai today?",
            ToolChoice::Required,
            ScriptedModel::new([
                Turn::call("get_weather", r#"{"location": "Shanghai"}"#),
                Turn::text("Yes: there is light rain in Shanghai, take an umbrella."),
            ]),
        ),
        ("Say hello in one word.", ToolChoice::None, ScriptedModel::new([Turn::text("Hello!")])),
        (
            "Compare the weather in Guangzhou and Paris, in Fahrenheit.",
            ToolChoice::Tool("get_weather".into()),
            ScriptedModel::new([
                Turn::calls([
                    ("get_weather", r#"{"location": "Guangzhou", "unit": "fahrenheit"}"#),
                    ("get_weather", r#"{"location": "Paris", "unit": "fahrenheit"}"#),
                ]),
                answer_from_results("Side by side:"),
            ]),
        ),
    ];
    let tools = Arc::new(toolbox![get_weather]);
    for (question, choice, script) in scenarios {
        println!("\n== tool_choice: {} ==\nuser: {question}", choice.to_json());
        let model: Arc<dyn Model> = match real {
            Some(m) => Arc::clone(m),
            None => Arc::new(script.clone()),
        };
        let agent = Agent::builder(model, Arc::clone(&tools)).tool_choice(choice).max_iterations(5).build()?;
        let run = agent.run(question).await?;
        if real.is_none() {
            let sent: Vec<String> = script.requests().iter().map(|r| r.tool_choice.to_json().to_string()).collect();
            println!("tool_choice sent per request: {}", sent.join(", "));
        }
        show::print_ending(&run);
        let turns =
            if run.iterations == 1 { "1 model turn".to_owned() } else { format!("{} model turns", run.iterations) };
        println!("transcript ({turns}):");
        for message in &run.messages {
            println!("  {}", serde_json::to_string(message)?);
        }
    }
    Ok(())
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

#[tokio::main]
async fn main() {
    let tools = toolbox![get_weather];

    println!("== OpenAI Chat Completions `tools` ==\n{}\n", pretty(&tools.export(Target::OpenAiChat)));
    println!("== Anthropic `tools` ==\n{}\n", pretty(&tools.export(Target::Anthropic)));
    match tools.validate(Target::OpenAiChatStrict) {
        Ok(()) => println!("OpenAI strict mode accepts every tool.\n"),
        Err(problems) => {
            for p in problems {
                println!("OpenAI strict mode: {p}");
            }
        }
    }

    // What a model might send, good and bad; each call gets exactly one result.
    let calls = vec![
        ToolCall::new("call_1", "get_weather", r#"{"location": "Beijing"}"#),
        ToolCall::new("call_2", "get_weather", r#"{"location": "Beijing", "unit": "fahrenheit"}"#),
        ToolCall::new("call_3", "get_weather", r#"{"city": "Beijing"}"#),
        ToolCall::new("call_4", "get_weather", r#"{"location": "Beijing", "unit": "kelvin"}"#),
        ToolCall::new("call_5", "get_weather", r#"{"location": "Beijing""#),
        ToolCall::new("call_6", "get_weather", r#"{"location": "Atlantis"}"#),
        ToolCall::new("call_7", "get_forecast", r#"{"location": "Beijing"}"#),
    ];
    println!("== Calls and the `role: \"tool\"` messages the model gets back ==");
    for (call, result) in calls.clone().into_iter().zip(tools.call_all(calls).await) {
        let status = match result.kind() {
            None => "ok".to_string(),
            Some(kind) => format!("error: {kind}"),
        };
        println!("{} {}  [{status}]", call.name, call.arguments);
        println!("  -> {}", result.to_message());
    }

    println!("\n== The agentic loop ==");
    let real = show::real_model().unwrap_or_else(|e| {
        eprintln!("{e}");
        None
    });
    if let Err(e) = agentic_loop(real.as_ref()).await {
        eprintln!("the loop failed: {e}");
        std::process::exit(1);
    }
}
