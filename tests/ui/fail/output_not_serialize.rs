use toolkit::prelude::*;

struct Weather {
    celsius: f64,
}

/// Get the weather for a city.
#[tool]
fn get_weather(location: String) -> Weather {
    let _ = location;
    Weather { celsius: 20.0 }
}

fn main() {
    let _ = toolbox![get_weather];
}
