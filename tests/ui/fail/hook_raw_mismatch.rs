use serde::Serialize;
use toolkit::prelude::*;

#[derive(Serialize)]
struct Forecast {
    high: i32,
}

/// Forecast the weather.
#[tool]
fn forecast(city: String) -> Forecast {
    Forecast { high: city.len() as i32 }
}

#[hook(after, tools = [forecast])]
fn audit(out: &mut AfterCall<'_>, raw: Option<&String>) {
    let _ = (out, raw);
}

fn main() {
    let _ = toolbox![forecast].with_hooks(hooks![audit]);
}
