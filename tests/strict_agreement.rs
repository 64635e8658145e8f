//! Whatever the published schema admits, the parser accepts: a strict model (OpenAI
//! Structured Outputs) must send every field, and sends `null` for the ones it leaves
//! out; every such call must run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolkit::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Task {
    /// What to do.
    pub title: String,
    /// Labels, usually none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// When it is due.
    pub due: Option<String>,
    /// How urgent, 1 to 5.
    #[serde(default = "three")]
    pub priority: u8,
    /// Sub-tasks.
    #[serde(default)]
    pub children: Vec<Sub>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Sub {
    pub title: String,
    #[serde(default)]
    pub done: bool,
    pub note: Option<String>,
}

fn three() -> u8 {
    3
}

/// Add a task.
#[tool]
fn add_task(
    task: Task,
    notify: Option<bool>,
    #[arg(default = 1)] copies: u32,
    #[arg(one_of = [1, 2, 7, 13])] service: Option<i64>,
) -> String {
    format!(
        "{} ({} tags, priority {}, {} children, {notify:?}, {copies}, {service:?})",
        task.title,
        task.tags.len(),
        task.priority,
        task.children.len()
    )
}

/// Every optional field set to `null`, recursively: the least a strict model may send.
fn all_null(schema: &Value, root: &Value, required_value: &mut dyn FnMut() -> Value) -> Value {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => root.pointer(r.trim_start_matches('#')).unwrap(),
        None => schema,
    };
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        let mut out = serde_json::Map::new();
        for (name, property) in properties {
            let nullable = property.to_string().contains("\"null\"");
            let value = if nullable { Value::Null } else { all_null(property, root, required_value) };
            out.insert(name.clone(), value);
        }
        return Value::Object(out);
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        return all_null(&branches[0], root, required_value);
    }
    match schema.get("type") {
        Some(t) if t == "array" || t.to_string().contains("array") => json!([]),
        Some(t) if t == "boolean" => json!(false),
        Some(t) if t == "integer" || t == "number" => json!(1),
        _ => required_value(),
    }
}

#[tokio::test]
async fn every_null_a_strict_schema_admits_parses() {
    let tools = toolbox![add_task];
    let exported = tools.spec("add_task").unwrap().export(Target::OpenAiChatStrict);
    assert_eq!(exported["function"]["strict"], true, "{exported}");
    let schema = exported["function"]["parameters"].clone();
    let mut n = 0;
    let args = all_null(&schema, &schema, &mut || {
        n += 1;
        json!(format!("text {n}"))
    });
    assert!(jsonschema::draft202012::is_valid(&schema, &args), "the strict schema admits {args}");
    assert!(args.to_string().contains("\"tags\":null"), "{args}");
    let r = tools.call(ToolCall::new("1", "add_task", args.to_string())).await;
    assert!(r.error.is_none(), "{args}: {}", r.content);
    // (`priority` has a default: strict mode sends it always, here 1.)
    assert_eq!(r.content, "text 1 (0 tags, priority 1, 0 children, None, 1, None)");

    // Nested: a child with its optional fields null (those with a default, which strict
    // mode sends always, get a value).
    let mut nested = args.clone();
    let child_schema = &schema["$defs"]["Sub"];
    let child = all_null(child_schema, &schema, &mut || json!("c"));
    assert!(child.to_string().contains("null"), "{child}");
    nested["task"]["children"] = json!([child]);
    assert!(jsonschema::draft202012::is_valid(&schema, &nested), "the strict schema admits {nested}");
    let r = tools.call(ToolCall::new("2", "add_task", nested.to_string())).await;
    assert_eq!(r.content, "text 1 (0 tags, priority 1, 1 children, None, 1, None)", "{}", r.content);

    // A `null` for a required, non-nullable field is still an error the model can read.
    let r = tools.call(ToolCall::new("3", "add_task", r#"{"task": {"title": null}}"#)).await;
    assert!(r.content.starts_with("invalid type for `task.title`: got null, expected a string"), "{}", r.content);
}

/// An optional parameter with `one_of` takes `null` (it is `None`), so its schema says
/// so: the `null` is in the `enum` beside the nullable type, in the canonical schema and
/// in the strict one, and `validate` has nothing to report. (Before, the `enum` left
/// `null` out: a model following the schema could never leave the field out in strict
/// mode, while the parser took the `null` it was refused.)
#[tokio::test]
async fn an_optional_one_of_admits_the_null_the_parser_takes() {
    let tools = toolbox![add_task];
    let spec = tools.spec("add_task").unwrap();
    assert_eq!(
        spec.input_schema["properties"]["service"],
        json!({"type": ["integer", "null"], "enum": [1, 2, 7, 13, null]})
    );
    assert_eq!(tools.validate(Target::OpenAiChatStrict), Ok(()));
    for target in [Target::OpenAiChatStrict, Target::OpenAiChat, Target::Anthropic] {
        let exported = spec.export(target);
        let schema = exported.pointer("/function/parameters").or_else(|| exported.get("input_schema")).unwrap();
        for service in [json!(null), json!(7)] {
            let mut args = all_null(schema, schema, &mut || json!("a"));
            args["service"] = service;
            assert!(jsonschema::draft202012::is_valid(schema, &args), "{target}: the schema admits {args}");
            let r = tools.call(ToolCall::new("1", "add_task", args.to_string())).await;
            assert_eq!(r.error, None, "{target} {args}: {}", r.content);
        }
        let refused = json!({"task": {"title": "a"}, "service": 5});
        assert!(!jsonschema::draft202012::is_valid(schema, &refused), "{target}: the schema refuses {refused}");
        let r = tools.call(ToolCall::new("2", "add_task", refused.to_string())).await;
        assert_eq!(r.kind(), Some(ErrorKind::ConstraintViolation), "{}", r.content);
    }
}
