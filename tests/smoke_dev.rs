use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use toolkit::prelude::*;

#[derive(Debug, Default, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    #[default]
    Celsius,
    Fahrenheit,
}

#[derive(Serialize, JsonSchema)]
pub struct Weather {
    temperature: f64,
    unit: Unit,
}

/// Get the current weather for a city.
///
/// Use when the user asks about the current temperature.
#[tool(read_only, timeout = "10s")]
async fn get_weather(
    /// City name, for example "Beijing".
    location: String,
    /// Temperature unit.
    #[arg(default)]
    unit: Unit,
    /// How many
    #[arg(default = 5, minimum = 1, maximum = 20)]
    max_results: u32,
    #[arg(rename = "type", pattern = "^[a-z]+$")] r#kind: Option<String>,
) -> Result<Weather, std::io::Error> {
    let _ = (location, max_results, r#kind);
    Ok(Weather { temperature: 22.0, unit })
}

/// Add.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

struct Store {
    prefix: String,
}

#[tools]
impl Store {
    /// Read a file.
    #[tool]
    async fn read(&self, path: String) -> String {
        format!("{}{}", self.prefix, path)
    }
}

#[tokio::test]
async fn smoke() {
    let store = Arc::new(Store { prefix: "p:".into() });
    let tools = toolbox![get_weather, add, store.read];
    for s in tools.specs() {
        println!("{}", serde_json::to_string_pretty(&s.input_schema).unwrap());
        println!("{:?}", s.output_schema);
        println!("{}", s.expected);
    }
    for (name, args) in [
        ("get_weather", r#"{"location":"Beijing"}"#),
        ("get_weather", r#"{"location":"Beijing","max_results":50}"#),
        ("get_weather", r#"{"location":"Beijing","type":"ABC"}"#),
        ("get_weather", r#"{"location":5}"#),
        ("get_weather", r#"{"location":"x","unit":"kelvin"}"#),
        ("get_weather", r#"{"location":"x","foo":1}"#),
        ("get_weather", r#"{}"#),
        ("get_weather", r#"[1]"#),
        ("get_weather", r#"{"location": "#),
        ("get_weather", r#""#),
        ("add", r#"{"a":1,"b":2}"#),
        ("read", r#"{"path":"x"}"#),
        ("nope", r#"{}"#),
    ] {
        let r = tools.call(ToolCall::new("1", name, args)).await;
        println!(
            "{name} {args} => {:?} {} | {:?}",
            r.kind(),
            r.content,
            r.error.as_ref().and_then(|e| e.detail.clone())
        );
    }
}
