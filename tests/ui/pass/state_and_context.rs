//! `#[state]` (by reference and by `Arc`) and `#[context]` (by reference and by value).
use std::sync::Arc;
use toolkit::prelude::*;

struct Db {
    rows: Vec<String>,
}

struct Limits {
    max: usize,
}

/// List rows.
#[tool]
async fn rows(#[state] db: &Db, #[state] limits: Arc<Limits>, #[context] cx: &CallContext<'_>) -> String {
    let n = db.rows.len().min(limits.max);
    format!("{}:{}", cx.tool().name, db.rows[..n].join(","))
}

/// The call id.
#[tool]
fn id(#[context] cx: CallContext<'_>) -> String {
    cx.call_id().to_string()
}

/// Rows, counted on a blocking thread.
#[tool(blocking)]
fn count(#[state] db: Arc<Db>) -> usize {
    db.rows.len()
}

#[tokio::main]
async fn main() {
    let db = Db { rows: vec!["a".into(), "b".into(), "c".into()] };
    let tools = toolbox![rows, id, count].with_state(db).with_state(Limits { max: 2 });
    assert_eq!(tools.call(ToolCall::new("1", "rows", "{}")).await.content, "rows:a,b");
    assert_eq!(tools.call(ToolCall::new("x", "id", "{}")).await.content, "x");
    assert_eq!(tools.call(ToolCall::new("2", "count", "{}")).await.content, "3");
}
