//! Sync, async and blocking tools side by side.
use std::time::Duration;
use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Wait, then answer.
#[tool(timeout = "5s", idempotent)]
async fn later(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "done".into()
}

/// Hash a file's contents (blocks the thread).
#[tool(blocking, read_only)]
fn checksum(text: String) -> Result<u64, std::io::Error> {
    std::thread::sleep(Duration::from_millis(1));
    Ok(text.bytes().map(u64::from).sum())
}

/// Does nothing, successfully.
#[tool(destructive, open_world, strict, title = "No-op")]
fn noop() {}

#[tokio::main]
async fn main() {
    let tools = toolbox![add, later, checksum, noop];
    assert_eq!(tools.call(ToolCall::new("1", "add", r#"{"a": 1, "b": 2}"#)).await.content, "3");
    assert_eq!(tools.call(ToolCall::new("2", "later", r#"{"ms": 1}"#)).await.content, "done");
    assert_eq!(tools.call(ToolCall::new("3", "checksum", r#"{"text": "ab"}"#)).await.content, "195");
    assert!(!tools.call(ToolCall::new("4", "noop", "{}")).await.is_error());
    assert_eq!(tools.spec("later").unwrap().timeout, Some(Duration::from_secs(5)));
    assert!(tools.spec("checksum").unwrap().annotations.read_only);
}
