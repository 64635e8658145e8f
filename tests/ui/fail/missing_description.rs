use toolkit::prelude::*;

#[tool]
fn get_weather(location: String) -> String {
    location
}

fn main() {
    let _ = toolbox![get_weather];
}
