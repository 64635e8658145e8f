//! Lifetimes, `where` clauses and borrowed injected values in a tool's signature.
use std::borrow::Cow;
use toolkit::prelude::*;

struct Config {
    greeting: String,
}

/// Greet with the configured greeting.
#[tool]
fn greet<'a>(#[state] config: &'a Config, name: String) -> String
where
    'a: 'a,
    String: Clone,
{
    format!("{}, {name}", config.greeting)
}

/// A static answer.
#[tool]
fn answer() -> &'static str {
    "42"
}

/// A borrowed-or-owned answer.
#[tool]
fn cow(loud: bool) -> Cow<'static, str> {
    if loud { Cow::Owned("HELLO".to_uppercase()) } else { Cow::Borrowed("hello") }
}

/// Where the call came from.
#[tool]
async fn whoami<'c>(#[context] cx: &CallContext<'c>) -> String {
    cx.call_id().to_string()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = toolbox![greet, answer, cow, whoami].with_state(Config { greeting: "Hello".into() });
    assert_eq!(tools.call(ToolCall::new("1", "greet", r#"{"name": "Ann"}"#)).await.content, "Hello, Ann");
    assert_eq!(tools.call(ToolCall::new("2", "answer", "{}")).await.content, "42");
    assert_eq!(tools.call(ToolCall::new("3", "cow", r#"{"loud": false}"#)).await.content, "hello");
    assert_eq!(tools.call(ToolCall::new("call-4", "whoami", "{}")).await.content, "call-4");
}
