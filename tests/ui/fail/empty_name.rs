use toolkit::prelude::*;

/// Get the weather for a city.
#[tool(name = "")]
fn get_weather(location: String) -> String {
    location
}

fn main() {
    let _ = toolbox![get_weather];
}
