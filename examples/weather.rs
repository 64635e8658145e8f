//! The `get_weather` tool of the function-calling guide, end to end without a model:
//! its schemas as OpenAI and Anthropic receive them, and the results a model gets back
//! for good and bad calls.
//!
//! Run: `cargo run --example weather`

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;

/// Temperature unit.
#[derive(Debug, Default, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    #[default]
    Celsius,
    Fahrenheit,
}

/// The current weather at one place.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Weather {
    /// The city asked for.
    pub location: String,
    /// Current temperature, in `unit`.
    pub temperature: f64,
    /// The unit of `temperature`.
    pub unit: Unit,
    /// Sky conditions, for example "sunny".
    pub conditions: String,
    /// Air quality index (lower is better).
    pub air_quality_index: u32,
}

/// The error a model reads when a city is unknown.
#[derive(Debug, thiserror::Error)]
#[error("no weather data for `{0}`; ask the user for a nearby larger city")]
pub struct UnknownCity(String);

/// Get the current weather for a city: temperature, sky conditions and air quality.
///
/// Use when the user asks about the weather right now: the temperature, rain, air
/// quality, or whether to take an umbrella.
///
/// Not for historical weather or forecasts: this returns the current moment only.
#[tool(read_only, idempotent, open_world, timeout = "10s")]
async fn get_weather(
    /// City name, for example "Beijing", "Shanghai" or "Guangzhou".
    #[arg(min_length = 1, max_length = 100)]
    location: String,
    /// Temperature unit; Celsius unless the user asks otherwise.
    #[arg(default)]
    unit: Unit,
) -> Result<Weather, UnknownCity> {
    // A stand-in for a weather API, so the example runs offline.
    let celsius = match location.as_str() {
        "Beijing" | "北京" => 22.0,
        "Shanghai" | "上海" => 25.0,
        "Guangzhou" | "广州" => 28.0,
        _ => return Err(UnknownCity(location)),
    };
    let temperature = match unit {
        Unit::Celsius => celsius,
        Unit::Fahrenheit => celsius * 9.0 / 5.0 + 32.0,
    };
    Ok(Weather { location, temperature, unit, conditions: "sunny".into(), air_quality_index: 42 })
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
}
