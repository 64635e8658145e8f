//! No panic escapes `Toolbox::call`, including the synchronous start of a call: a
//! parameter type whose `Deserialize` or `JsonSchema` panics gives one `panicked`
//! result per call, with or without hooks, and the toolbox keeps working.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};
use toolkit::prelude::*;

/// A parameter whose parsing panics on the text `"boom"`.
pub struct Fragile(String);

impl<'de> Deserialize<'de> for Fragile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        assert!(text != "boom", "Fragile cannot take `boom`");
        Ok(Fragile(text))
    }
}

impl JsonSchema for Fragile {
    fn schema_name() -> Cow<'static, str> {
        "Fragile".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        String::json_schema(generator)
    }
}

/// A parameter whose schema cannot be built.
#[derive(Deserialize)]
pub struct Unschematic(#[allow(dead_code)] u32);

impl JsonSchema for Unschematic {
    fn schema_name() -> Cow<'static, str> {
        "Unschematic".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        panic!("no schema for Unschematic")
    }
}

/// Echo a fragile text.
#[tool]
fn fragile(text: Fragile) -> String {
    text.0
}

/// Echo a fragile text, asynchronously.
#[tool]
async fn fragile_async(text: Fragile) -> String {
    text.0
}

/// Take a value whose schema panics.
#[tool]
fn unschematic(value: Unschematic) -> String {
    let _ = value;
    "ran".into()
}

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn toolbox() -> Toolbox {
    toolbox![fragile, fragile_async, unschematic, add]
}

async fn check(tools: &Toolbox) {
    for name in ["fragile", "fragile_async"] {
        let r = tools.call(ToolCall::new("1", name, r#"{"text": "boom"}"#)).await;
        assert_eq!(r.kind(), Some(ErrorKind::Panicked), "{name}: {}", r.content);
        assert!(r.content.contains("internal error"), "{}", r.content);
        assert!(r.error.unwrap().detail.unwrap().contains("Fragile cannot take `boom`"));
        let r = tools.call(ToolCall::new("2", name, r#"{"text": "fine"}"#)).await;
        assert_eq!(r.content, "fine");
    }
    // The schema is built on the first call, and fails on every call after.
    for id in ["3", "4"] {
        let r = tools.call(ToolCall::new(id, "unschematic", r#"{"value": 1}"#)).await;
        assert_eq!(r.kind(), Some(ErrorKind::Panicked), "{}", r.content);
    }
    let r = tools.call(ToolCall::new("5", "add", r#"{"a": 2, "b": 40}"#)).await;
    assert_eq!(r.content, "42");
}

#[tokio::test]
async fn a_panicking_deserialize_or_schema_is_a_result_without_hooks() {
    check(&toolbox()).await;
}

#[tokio::test]
async fn a_panicking_deserialize_or_schema_is_a_result_with_hooks() {
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = seen.clone();
    let tools = toolbox().with_hook(Hook::error("count", move |_: &mut ErrorCall<'_>| {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }));
    check(&tools).await;
    // Error hooks saw each panicked call.
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 4);
}

#[tokio::test]
async fn a_panicking_deserialize_is_a_result_with_records() {
    let records = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = records.clone();
    let tools = toolbox().with_sink(move |r: &CallRecord| log.lock().unwrap().push(r.outcome));
    check(&tools).await;
    let outcomes = records.lock().unwrap().clone();
    assert_eq!(outcomes.len(), 7, "one record per call");
    assert_eq!(outcomes[0], toolkit::Outcome::Failed(ErrorKind::Panicked));
}
