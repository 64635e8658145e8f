//! The `get_weather` tool of the function-calling guide, shared by the `weather`,
//! `mcp_server` and `docs` examples (`#[path]`-included; not an example of its own).

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
pub async fn get_weather(
    #[context] cx: &CallContext<'_>,
    /// City name, for example "Beijing", "Shanghai" or "Guangzhou".
    #[arg(min_length = 1, max_length = 100)]
    location: String,
    /// Temperature unit; Celsius unless the user asks otherwise.
    #[arg(default)]
    unit: Unit,
) -> Result<Weather, UnknownCity> {
    // Progress for an MCP client that asked for it (and an agent's events).
    cx.progress(0.0, Some(1.0), &format!("looking up {location}"));
    // A stand-in for a weather API, so the examples run offline.
    let (celsius, conditions) = match location.as_str() {
        "Beijing" | "北京" => (22.0, "sunny"),
        "Shanghai" | "上海" => (25.0, "light rain"),
        "Guangzhou" | "广州" => (28.0, "cloudy"),
        "Paris" => (14.0, "overcast"),
        _ => return Err(UnknownCity(location)),
    };
    let temperature = match unit {
        Unit::Celsius => celsius,
        Unit::Fahrenheit => celsius * 9.0 / 5.0 + 32.0,
    };
    cx.progress(1.0, Some(1.0), &format!("found {location}"));
    Ok(Weather { location, temperature, unit, conditions: conditions.into(), air_quality_index: 42 })
}
