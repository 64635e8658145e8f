use toolkit::prelude::*;

fn city_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string"})
}

/// Get the weather.
#[tool]
fn weather(
    /// The city.
    #[arg(schema_with = city_schema, min_length = 1)]
    #[arg(pattern = "^[A-Z]")]
    city: String,
    /// Days ahead.
    #[arg(schema_with = city_schema, default, maximum = 7)]
    days: u8,
) -> String {
    format!("{city} {days}")
}

fn main() {
    let _ = toolbox![weather];
}
