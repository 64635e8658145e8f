use toolkit::prelude::*;

/// Get the weather.
#[tool(example = {"city": "Paris", "dayz": 3})]
fn weather(city: String, days: Option<u32>) -> String {
    format!("{city} {days:?}")
}

/// Get the time.
#[tool(example = {"city": 7})]
fn time(city: String) -> String {
    city
}

/// Convert money.
#[tool(example = {"amount": 1.5})]
fn convert(amount: f64, to: String) -> String {
    format!("{amount} {to}")
}

/// Count words.
#[tool(example = {"text": hello})]
fn count(text: String) -> usize {
    text.len()
}

/// Echo.
#[tool(example = "{\"text\": \"hi\"}")]
fn echo(text: String) -> String {
    text
}

/// Repeat.
#[tool(example = {"text": "a", "text": "b"})]
fn repeat(text: String) -> String {
    text
}

/// Round.
#[tool(example = {"value": 2.5, "places": 1.5})]
fn round(value: f64, places: u32) -> String {
    format!("{value:.*}", places as usize)
}

fn main() {
    let _ = toolbox![weather, time, convert, count, echo, repeat, round];
}
