//! `crate = path`: the runtime reached through another path.
use ::toolkit as tk;

/// Add two integers.
#[tk::tool(crate = ::toolkit)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Subtract two integers.
#[tk::tool(crate = tk)]
fn subtract(a: i64, #[arg(default = 1, minimum = 0)] b: i64) -> i64 {
    a - b
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = tk::toolbox![add, subtract];
    assert_eq!(tools.call(tk::ToolCall::new("1", "add", r#"{"a": 1, "b": 2}"#)).await.content, "3");
    assert_eq!(tools.call(tk::ToolCall::new("2", "subtract", r#"{"a": 1}"#)).await.content, "0");
}
