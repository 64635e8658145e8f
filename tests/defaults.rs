//! A parameter's default given as a string literal: converted with `From<&str>` when the
//! type has it (`String`, `PathBuf`), else read as the model would send it (a unit
//! variant of an enum by its serialized name); published in the schema either way.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

/// The weather in a city.
#[tool]
fn weather(
    /// The city.
    #[arg(default = "Oslo")]
    city: String,
    /// The unit.
    #[arg(default = "fahrenheit")]
    unit: Unit,
    /// Where to write a report.
    #[arg(default = "reports/today.md")]
    report: PathBuf,
) -> String {
    format!("{city} {unit:?} {}", report.display())
}

/// A tool whose default names no variant.
#[tool]
fn misdefaulted(#[arg(default = "kelvin")] unit: Unit) -> String {
    format!("{unit:?}")
}

#[tokio::test]
async fn a_string_default_is_read_as_the_model_would_send_it() {
    let tools = toolbox![weather];
    let schema = &tools.spec("weather").unwrap().input_schema;
    assert_eq!(schema["properties"]["unit"]["default"], "fahrenheit");
    assert_eq!(schema["properties"]["city"]["default"], "Oslo");
    assert_eq!(schema["properties"]["report"]["default"], "reports/today.md");
    let r = tools.call(ToolCall::new("1", "weather", "{}")).await;
    assert_eq!(r.content, "Oslo Fahrenheit reports/today.md");
    let r = tools.call(ToolCall::new("2", "weather", r#"{"unit": "celsius"}"#)).await;
    assert_eq!(r.content, "Oslo Celsius reports/today.md");
}

/// A string that is not a value of the type cannot be checked at compile time (the
/// macro does not see the enum): it fails where the spec is first built, loudly and
/// naming the parameter, never as an error blamed on the model.
#[tokio::test]
async fn a_string_default_that_is_no_value_fails_when_the_spec_is_built() {
    let built = std::panic::catch_unwind(|| <misdefaulted as Tool>::spec().name.clone());
    let payload = built.expect_err("building the spec reads the default");
    let message = payload.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("`#[arg(default = \"kelvin\")]` on parameter `unit`"), "{message}");
    assert!(message.contains("unknown variant `kelvin`"), "{message}");
    // A call does not crash the program: it is the call's own error, for the operator.
    let r = toolbox![misdefaulted].call(ToolCall::new("1", "misdefaulted", "{}")).await;
    assert!(r.is_error());
    assert_ne!(r.kind(), Some(ErrorKind::InvalidValue), "{}", r.content);
}
