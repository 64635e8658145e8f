//! `minimum`/`maximum` written as integers on a float parameter.
use toolkit::prelude::*;

/// Set the temperature.
#[tool]
fn set_temperature(#[arg(minimum = -10, maximum = 40)] celsius: f64, #[arg(minimum = 0)] margin: Option<f32>) -> f64 {
    celsius + f64::from(margin.unwrap_or(0.0))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = toolbox![set_temperature];
    let r = tools.call(ToolCall::new("1", "set_temperature", r#"{"celsius": 20.5}"#)).await;
    assert_eq!(r.content, "20.5");
    let r = tools.call(ToolCall::new("2", "set_temperature", r#"{"celsius": 41}"#)).await;
    assert!(r.is_error());
}
