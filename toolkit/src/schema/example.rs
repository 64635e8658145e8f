//! Example arguments built from a schema, for the docs: the smallest call that shows
//! the shape (required properties only; defaults, examples and enum values preferred;
//! placeholders otherwise).

use std::io;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::json_schema::refs::{self, Defs};
use crate::json_schema::render::required;

/// References followed on one path before the example gives up on a branch.
const MAX_HOPS: usize = 16;

/// Example arguments for an input schema: `{"location": "..."}`.
pub(crate) fn example_arguments(input_schema: &Value) -> Value {
    let mut example = Example { defs: Defs::new(input_schema), stack: vec!["#".to_string()] };
    example.value(input_schema).unwrap_or(Value::Object(Map::new()))
}

/// JSON on one line with a space after `:` and `,`: `{"a": 1, "b": [2, 3]}`.
pub(crate) fn one_line(value: &Value) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Spaced);
    match value.serialize(&mut serializer) {
        Ok(()) => String::from_utf8(out).unwrap_or_else(|_| value.to_string()),
        Err(_) => value.to_string(),
    }
}

struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { writer.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { writer.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }
}

struct Example<'a> {
    defs: Defs<'a>,
    /// References being expanded (`#` is the root): a reference back into one of them
    /// ends the branch, so recursive types give finite examples.
    stack: Vec<String>,
}

impl Example<'_> {
    /// An example value for `schema`; `None` where a recursive type would repeat.
    fn value(&mut self, schema: &Value) -> Option<Value> {
        let Some(map) = schema.as_object() else { return Some(Value::from("...")) };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if self.stack.iter().any(|r| r == reference) || self.stack.len() > MAX_HOPS {
                return None;
            }
            let target = self.defs.resolve(reference)?;
            self.stack.push(reference.to_string());
            let value = self.value(&refs::overlay(target, map));
            self.stack.pop();
            return value;
        }
        if let Some(given) = literal(map) {
            return Some(given);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(variants)) = map.get(key) {
                let variant = variants.iter().find(|v| !refs::is_null_schema(v))?;
                return self.value(variant);
            }
        }
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            Some(Value::Array(kinds)) => {
                kinds.iter().filter_map(Value::as_str).find(|k| *k != "null").unwrap_or("null")
            }
            _ if map.contains_key("properties") => "object",
            _ => "any",
        };
        Some(match kind {
            "string" => Value::from(string_for(map.get("format").and_then(Value::as_str))),
            "integer" => lower_bound(map).map_or(Value::from(0), |n| Value::from(n.ceil() as i64)),
            "number" => lower_bound(map).map_or(Value::from(0), Value::from),
            "boolean" => Value::Bool(false),
            "null" => Value::Null,
            "array" => self.array(map),
            "object" => self.object(map),
            _ => Value::from("..."),
        })
    }

    fn array(&mut self, map: &Map<String, Value>) -> Value {
        if let Some(Value::Array(tuple)) = map.get("prefixItems") {
            return Value::Array(tuple.iter().map(|item| self.value(item).unwrap_or(Value::Null)).collect());
        }
        let item = map.get("items").and_then(|items| self.value(items));
        let allowed = map.get("maxItems").and_then(Value::as_u64) != Some(0);
        Value::Array(item.filter(|_| allowed).into_iter().collect())
    }

    fn object(&mut self, map: &Map<String, Value>) -> Value {
        let mut out = Map::new();
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            for name in required(map) {
                if let Some(value) = properties.get(name).and_then(|p| self.value(p)) {
                    out.insert(name.to_string(), value);
                }
            }
        }
        Value::Object(out)
    }
}

/// A value the schema gives outright: its default, first example, constant or first
/// enum value.
fn literal(map: &Map<String, Value>) -> Option<Value> {
    map.get("default")
        .filter(|d| !d.is_null())
        .or_else(|| map.get("examples").and_then(Value::as_array).and_then(|e| e.first()))
        .or_else(|| map.get("const"))
        .or_else(|| map.get("enum").and_then(Value::as_array).and_then(|e| e.iter().find(|v| !v.is_null())))
        .cloned()
}

fn lower_bound(map: &Map<String, Value>) -> Option<f64> {
    map.get("minimum")
        .and_then(Value::as_f64)
        .or_else(|| map.get("exclusiveMinimum").and_then(Value::as_f64).map(|n| n + 1.0))
}

fn string_for(format: Option<&str>) -> &'static str {
    match format {
        Some("date-time") => "2025-01-01T12:00:00Z",
        Some("date") => "2025-01-01",
        Some("time") => "12:00:00",
        Some("email") => "user@example.com",
        Some("uri" | "url") => "https://example.com",
        Some("hostname") => "example.com",
        Some("uuid") => "00000000-0000-0000-0000-000000000000",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        _ => "...",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fills_required_properties_only() {
        let schema = json!({
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"$ref": "#/$defs/Unit"},
                "days": {"type": "integer", "minimum": 1},
                "note": {"type": "string"}
            },
            "required": ["location", "unit", "days"],
            "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}
        });
        assert_eq!(example_arguments(&schema), json!({"location": "...", "unit": "celsius", "days": 1}));
    }

    #[test]
    fn nested_arrays_nullables_and_recursion_stay_finite() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tree": {"$ref": "#/$defs/Node"},
                "when": {"type": ["string", "null"], "format": "date-time"},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}]}
            },
            "required": ["tree", "when", "pair"],
            "$defs": {"Node": {"type": "object", "properties": {
                "value": {"type": "number", "default": 1.5},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }, "required": ["value", "children"]}}
        });
        assert_eq!(
            example_arguments(&schema),
            json!({"tree": {"value": 1.5, "children": []}, "when": "2025-01-01T12:00:00Z", "pair": ["...", false]})
        );
    }

    #[test]
    fn odd_schemas_give_an_empty_call() {
        assert_eq!(example_arguments(&json!({"$ref": "#/$defs/Missing"})), json!({}));
        assert_eq!(example_arguments(&json!({"type": "object"})), json!({}));
    }

    #[test]
    fn one_line_json_has_spaces() {
        assert_eq!(one_line(&json!({"a": 1, "b": [2, 3], "c": {}})), r#"{"a": 1, "b": [2, 3], "c": {}}"#);
    }
}
