//! Fuzz-style property tests of `Toolbox::call`: random and mutated argument strings,
//! deep nesting, huge numbers and long strings, against tools of every shape and a few
//! hooks. Whatever arrives: no panic escapes, every call gets exactly one result with its
//! own id, every call leaves exactly one record, and no call hangs.
//!
//! The case count is fixed (the run is bounded); raise it with `PROPTEST_CASES`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolkit::hooks::{Redactor, Truncate};
use toolkit::prelude::*;

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Search the index.
#[tool(read_only)]
async fn search(
    /// What to look for.
    #[arg(min_length = 1, max_length = 200)]
    query: String,
    /// How many results.
    #[arg(default = 5, minimum = 1, maximum = 50)]
    max_results: u32,
    unit: Option<Unit>,
) -> String {
    format!("{query} {max_results} {unit:?}")
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Item {
    name: String,
    tags: Vec<String>,
    price: f64,
}

/// Store items.
#[tool]
fn store(items: Vec<Item>, note: Option<String>) -> Result<String, String> {
    if note.as_deref() == Some("fail") {
        return Err("asked to fail".into());
    }
    let tags: usize = items.iter().map(|i| i.tags.len()).sum();
    let total: f64 = items.iter().map(|i| i.price).sum();
    let names: Vec<&str> = items.iter().map(|i| i.name.as_str()).collect();
    Ok(format!("{} items ({}), {tags} tags, {total}", items.len(), names.join(", ")))
}

/// Look up an order id.
#[tool(blocking)]
fn order(#[arg(pattern = r"^ORD-[0-9]{4}$")] id: String) -> String {
    id
}

/// Panics on request.
#[tool]
fn fragile(crash: bool) -> String {
    if crash {
        panic!("the tool panicked");
    }
    "fine".into()
}

fn toolbox(records: Arc<Mutex<Vec<String>>>) -> Toolbox {
    toolbox![add, search, store, order, fragile]
        .with_hook(Redactor::new())
        .with_hook(Truncate::chars(2_000))
        .with_sink(move |r: &CallRecord| records.lock().unwrap().push(r.call_id.clone()))
}

const TOOLS: &[&str] = &["add", "search", "store", "order", "fragile", "missing", ""];

/// Valid arguments of each tool, to mutate.
fn valid() -> Vec<String> {
    vec![
        json!({"a": 1, "b": 2}).to_string(),
        json!({"query": "rust", "max_results": 3, "unit": "celsius"}).to_string(),
        json!({"items": [{"name": "a", "tags": ["x"], "price": 1.5}], "note": null}).to_string(),
        json!({"id": "ORD-1234"}).to_string(),
        json!({"crash": true}).to_string(),
    ]
}

/// Argument strings: arbitrary text, mutated valid JSON, deep nesting, huge numbers,
/// long strings.
fn arguments() -> impl Strategy<Value = String> {
    let mutated = (
        prop::sample::select(valid()),
        prop::collection::vec((any::<prop::sample::Index>(), any::<char>(), 0u8..3), 1..6),
    )
        .prop_map(|(text, edits)| {
            let mut chars: Vec<char> = text.chars().collect();
            for (at, c, op) in edits {
                let i = at.index(chars.len() + 1);
                match op {
                    0 => chars.insert(i, c),
                    1 if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ if i < chars.len() => chars[i] = c,
                    _ => chars.push(c),
                }
            }
            chars.into_iter().collect()
        });
    let deep = (1usize..5000, any::<bool>()).prop_map(|(depth, object)| {
        if object {
            format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
        } else {
            format!("{}{}", "[".repeat(depth), "]".repeat(depth))
        }
    });
    let numbers = prop::sample::select(vec![
        "1e400",
        "-1e400",
        "123456789012345678901234567890",
        "-0",
        "9223372036854775808",
        "-9223372036854775809",
        "1.7976931348623157e309",
        "0.0000000000000000000000001",
        "NaN",
        "Infinity",
    ])
    .prop_flat_map(|n| {
        prop::sample::select(vec![
            format!(r#"{{"a": {n}, "b": 1}}"#),
            format!(r#"{{"max_results": {n}, "query": "q"}}"#),
            format!(r#"{{"items": [{{"name": "x", "tags": [], "price": {n}}}]}}"#),
        ])
    });
    let long = (1usize..200_000, prop::sample::select(vec!["query", "id", "name", "note"]))
        .prop_map(|(n, field)| json!({ field: "x".repeat(n), "query": "é".repeat(n % 300) }).to_string());
    prop_oneof![
        "\\PC{0,64}",
        mutated.clone(),
        mutated,
        deep,
        numbers,
        long,
        Just(String::new()),
        Just("null".to_owned()),
        Just("[]".to_owned()),
        Just(r#"{"a": 1, "a": 2, "b": 3}"#.to_owned()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_call_gets_one_result_and_one_record(calls in prop::collection::vec((prop::sample::select(TOOLS), arguments()), 1..6)) {
        let records = Arc::new(Mutex::new(Vec::new()));
        let tools = toolbox(records.clone());
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let batch: Vec<ToolCall> = calls.iter().enumerate().map(|(i, (name, args))| ToolCall::new(format!("c{i}"), *name, args.as_str())).collect();
        // Each call alone, then all of them at once.
        for call in batch.clone() {
            let id = call.id.clone();
            let result = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(20), tools.call(call)).await });
            let result = result.map_err(|_| TestCaseError::fail(format!("call {id} hung")))?;
            prop_assert_eq!(&result.call_id, &id);
            prop_assert!(result.content.len() <= 2_100 || result.error.is_some(), "truncation applies to results");
        }
        let results = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(20), tools.call_all(batch.clone())).await })
            .map_err(|_| TestCaseError::fail("a batch hung"))?;
        let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
        let expected: Vec<&str> = batch.iter().map(|c| c.id.as_str()).collect();
        prop_assert_eq!(ids, expected, "one result per call, in call order");
        let mut recorded = records.lock().unwrap().clone();
        recorded.sort();
        let mut want: Vec<String> = batch.iter().flat_map(|c| [c.id.clone(), c.id.clone()]).collect();
        want.sort();
        prop_assert_eq!(recorded, want, "one record per call");
    }
}

#[tokio::test]
async fn a_model_readable_error_for_each_kind_of_bad_input() {
    let tools = toolbox(Arc::default());
    let cases = [
        ("add", "{\"a\": 1", "not valid JSON"),
        ("add", r#"{"a": 1e400, "b": 1}"#, "not valid JSON"),
        ("add", r#"{"a": 123456789012345678901234567890, "b": 1}"#, "for `a`: got"),
        ("search", r#"{"query": ""}"#, "`query` must have at least 1 character"),
        ("order", r#"{"id": "ORD-12"}"#, "`id` must match"),
        ("fragile", r#"{"crash": true}"#, "internal error"),
        ("missing", "{}", "missing"),
    ];
    for (tool, args, mentions) in cases {
        let r = tools.call(ToolCall::new("1", tool, args)).await;
        assert!(r.error.is_some(), "{tool} {args}: {}", r.content);
        assert!(r.content.contains(mentions), "{tool} {args}: {}", r.content);
        assert!(r.content.len() < 600, "{tool}: the error is short: {}", r.content);
    }
    let deep = format!("{}1{}", r#"{"a":"#.repeat(10_000), "}".repeat(10_000));
    let r = tools.call(ToolCall::new("1", "add", deep)).await;
    assert!(r.error.is_some() && r.content.len() < 600, "{}", r.content);
}
