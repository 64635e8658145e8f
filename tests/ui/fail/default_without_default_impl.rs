use toolkit::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema)]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Get the weather for a city.
#[tool]
fn get_weather(location: String, #[arg(default)] unit: Unit) -> String {
    let _ = unit;
    location
}

fn main() {
    let _ = toolbox![get_weather];
}
