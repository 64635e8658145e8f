//! Anthropic strict tool use (`strict: true` on a tool): the model's tool input is
//! decoded under a grammar made from the schema, so it always fits. The grammar takes a
//! subset of JSON Schema: every object closed (`additionalProperties: false`), no
//! recursive type, enums of plain values, and no numeric, length, pattern or (most)
//! format rules. A strict tool's schema is rewritten into that subset: objects closed,
//! the rules it does not take moved into the description (`(minimum: 1; maxLength: 100)`:
//! the model still reads them, and a `#[tool]` still checks them when parsing), `oneOf`
//! read as `anyOf`. What cannot be rewritten (a recursive type, an open map, an enum of
//! objects) leaves the tool non-strict, and [`check`](fn@super::check) says why.

use serde_json::Value;

use super::walk::{self, Problem, Site};

/// Keywords strict mode does not take: moved into the description.
const MOVED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// The string formats strict mode takes; others are moved into the description.
const FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// `schema` rewritten for Anthropic strict mode (see the module's documentation).
pub(crate) fn strict_schema(schema: &Value) -> Value {
    let mut out = schema.clone();
    rewrite(&mut out);
    out
}

fn rewrite(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else { return };
    let mut moved = Vec::new();
    for keyword in MOVED {
        if let Some(value) = map.remove(*keyword) {
            moved.push(format!("{keyword}: {value}"));
        }
    }
    if let Some(n) = map.get("minItems").and_then(Value::as_u64).filter(|n| *n > 1) {
        map.remove("minItems");
        moved.push(format!("minItems: {n}"));
    }
    if let Some(format) = map.get("format").and_then(Value::as_str).filter(|f| !FORMATS.contains(f)).map(str::to_owned)
    {
        map.remove("format");
        moved.push(format!("format: {format}"));
    }
    if !moved.is_empty() {
        let rules = format!("({})", moved.join("; "));
        let description = match map.get("description").and_then(Value::as_str) {
            Some(text) if !text.trim().is_empty() => format!("{} {rules}", text.trim_end()),
            _ => rules,
        };
        map.insert("description".into(), Value::String(description));
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if walk::is_object_map(map) && !map.contains_key("additionalProperties") {
        map.insert("additionalProperties".into(), Value::Bool(false));
    }
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "properties" | "$defs" | "definitions" => {
                if let Value::Object(children) = value {
                    children.values_mut().for_each(rewrite);
                }
            }
            "items" | "additionalProperties" => rewrite(value),
            "anyOf" | "allOf" | "prefixItems" => {
                if let Value::Array(variants) = value {
                    variants.iter_mut().for_each(rewrite);
                }
            }
            _ => {}
        }
    }
}

const RECURSIVE: &str = "a recursive type; Anthropic strict mode takes no recursive schema, so the tool is \
    exported without `strict`: flatten the type, or turn `strict` off";
const OPEN_MAP: &str = "an open map (`additionalProperties` other than `false`); Anthropic strict mode needs \
    every object closed, so the tool is exported without `strict`: take a list of key/value structs, or turn \
    `strict` off";
const ENUM_OF_OBJECTS: &str = "an `enum` of objects or lists; Anthropic strict mode takes enums of plain values \
    only, so the tool is exported without `strict`: use `anyOf` of `const`s, or turn `strict` off";

/// What strict mode cannot take in `schema` even rewritten (empty: the strict export is
/// exact, rules moved into descriptions aside).
pub(crate) fn problems(schema: &Value) -> Vec<Problem> {
    let mut found = Vec::new();
    walk::walk(schema, &mut |site: &Site<'_>| {
        if site.cycle.is_some() {
            found.push(Problem { path: site.path.to_string(), rule: RECURSIVE.into() });
        }
        let Some(map) = site.schema.as_object() else { return };
        if map.get("additionalProperties").is_some_and(|a| a != &Value::Bool(false)) {
            found.push(Problem { path: site.path.to_string(), rule: OPEN_MAP.into() });
        }
        if map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(|v| v.is_object() || v.is_array()))
        {
            found.push(Problem { path: site.path.to_string(), rule: ENUM_OF_OBJECTS.into() });
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;

    fn closed(map: &Map<String, Value>) -> bool {
        map.get("additionalProperties") == Some(&Value::Bool(false))
    }

    #[test]
    fn rules_strict_mode_does_not_take_move_into_descriptions_and_objects_close() {
        let schema = json!({
            "type": "object",
            "properties": {
                "days": {"type": "integer", "minimum": 1, "maximum": 14, "description": "How many days."},
                "city": {"type": "string", "maxLength": 100, "pattern": "^[A-Z]"},
                "when": {"type": "string", "format": "date"},
                "color": {"type": "string", "format": "hex-color"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "uniqueItems": true},
                "filter": {"type": "object", "properties": {"q": {"type": "string"}}},
                "choice": {"oneOf": [{"const": "a"}, {"const": "b"}]},
            },
            "required": ["days"],
            "additionalProperties": false,
        });
        let out = strict_schema(&schema);
        let p = &out["properties"];
        assert_eq!(p["days"], json!({"type": "integer", "description": "How many days. (minimum: 1; maximum: 14)"}));
        assert_eq!(p["city"]["description"], r#"(maxLength: 100; pattern: "^[A-Z]")"#);
        assert_eq!(p["when"]["format"], "date", "a format strict mode takes stays");
        assert_eq!(p["color"]["description"], "(format: hex-color)");
        assert_eq!(p["tags"]["description"], "(uniqueItems: true; minItems: 2)");
        assert!(closed(p["filter"].as_object().unwrap()), "{out}");
        assert!(p["choice"].get("oneOf").is_none() && p["choice"]["anyOf"].is_array());
        assert!(problems(&schema).is_empty());
    }

    #[test]
    fn recursive_types_open_maps_and_enums_of_objects_cannot_be_strict() {
        let recursive = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
        assert!(problems(&recursive).iter().any(|p| p.rule.contains("recursive")));
        let map = json!({"type": "object", "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}}});
        assert_eq!(problems(&map)[0].path, "labels");
        let objects = json!({"type": "object", "properties": {"pick": {"enum": [{"a": 1}]}}});
        assert!(problems(&objects)[0].rule.contains("enums of plain values"));
    }
}
