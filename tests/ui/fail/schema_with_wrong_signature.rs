use toolkit::prelude::*;

fn city_schema(_: &mut schemars::SchemaGenerator) -> &'static str {
    "{\"type\": \"string\"}"
}

/// Get the weather.
#[tool]
fn weather(
    /// The city.
    #[arg(schema_with = city_schema)]
    city: String,
) -> String {
    city
}

fn main() {
    let _ = toolbox![weather];
}
