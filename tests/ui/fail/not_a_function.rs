use toolkit::prelude::*;

/// Get the weather.
#[tool]
struct GetWeather {
    location: String,
}

fn main() {}
