use std::collections::HashMap;

use toolkit::prelude::*;

struct Weather {
    celsius: f64,
}

/// Get the weather for some cities.
#[tool]
fn get_weather(locations: Vec<String>) -> Vec<Weather> {
    locations.iter().map(|_| Weather { celsius: 20.0 }).collect()
}

/// Get the weather by city.
#[tool]
fn weather_by_city(locations: Vec<String>) -> Result<HashMap<String, Option<Weather>>, String> {
    Ok(locations.into_iter().map(|l| (l, None)).collect())
}

fn main() {
    let _ = Weather { celsius: 1.0 }.celsius;
    let _ = toolbox![get_weather, weather_by_city];
}
