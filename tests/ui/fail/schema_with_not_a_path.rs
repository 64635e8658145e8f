use toolkit::prelude::*;

/// Get the weather.
#[tool]
fn weather(
    /// The city.
    #[arg(schema_with = 5)]
    city: String,
) -> String {
    city
}

fn main() {
    let _ = toolbox![weather];
}
