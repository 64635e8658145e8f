//! Gemini's JSON Schema form (`parametersJsonSchema`, `responseJsonSchema`): the
//! keywords Gemini documents for it kept, the rules it has no keyword for written into
//! descriptions.

use serde_json::{Map, Value};

use crate::json_schema::refs;

/// Rules that the JSON Schema form drops and cannot put into words, beyond
/// [`CONDITIONAL`](crate::schema::walk::CONDITIONAL) (those with no meaning to Gemini,
/// such as `examples` or `$comment`, go silently; `pattern`, lengths and the like move
/// into the description, see [`in_words`]).
pub(super) const JSON_SCHEMA_DROPS: &[&str] = &["propertyNames", "minContains", "maxContains"];

/// A rule the JSON Schema form has no keyword for, as a sentence for the description.
fn in_words(key: &str, value: &Value) -> Option<String> {
    let n = || value.as_u64().map(|n| (n, if n == 1 { "" } else { "s" }));
    Some(match key {
        "pattern" => format!("Matches the pattern `{}`.", value.as_str()?),
        "minLength" => n().map(|(n, s)| format!("At least {n} character{s}."))?,
        "maxLength" => n().map(|(n, s)| format!("At most {n} character{s}."))?,
        "minProperties" => n().map(|(n, s)| format!("At least {n} entr{}.", if s.is_empty() { "y" } else { "ies" }))?,
        "maxProperties" => n().map(|(n, s)| format!("At most {n} entr{}.", if s.is_empty() { "y" } else { "ies" }))?,
        "exclusiveMinimum" if value.is_number() => format!("Greater than {value}."),
        "exclusiveMaximum" if value.is_number() => format!("Less than {value}."),
        "multipleOf" if value.is_number() => format!("A multiple of {value}."),
        "uniqueItems" if value == &Value::Bool(true) => "No two items are the same.".to_string(),
        "default" => format!("Default: {value}."),
        _ => return None,
    })
}

/// Keywords the JSON Schema form takes as they are.
const JSON_SCHEMA_KEPT: &[&str] = &[
    "$id",
    "$anchor",
    "$ref",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "required",
    "propertyOrdering",
];

/// `schema` in Gemini's JSON Schema form: the documented keywords kept, `const` as a
/// one-value `enum`, `oneOf` as `anyOf`, a lone `allOf` member laid under its site,
/// `pattern`, lengths and bounds it has no keyword for written into the description,
/// everything else dropped.
pub(crate) fn json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            if let Some(merged) = refs::lone_all_of(map) {
                return json_schema(&merged);
            }
            let mut out = Map::new();
            let mut words = Vec::new();
            for (key, value) in map {
                match key.as_str() {
                    "properties" | "$defs" => {
                        let named = value
                            .as_object()
                            .map(|named| named.iter().map(|(n, s)| (n.clone(), json_schema(s))).collect())
                            .unwrap_or_default();
                        out.insert(key.clone(), Value::Object(named));
                    }
                    "items" | "additionalProperties" => {
                        out.insert(key.clone(), json_schema(value));
                    }
                    "prefixItems" | "anyOf" | "oneOf" => {
                        let list = value.as_array().map(|l| l.iter().map(json_schema).collect()).unwrap_or_default();
                        let key = if key == "oneOf" { "anyOf" } else { key.as_str() };
                        out.insert(key.to_string(), Value::Array(list));
                    }
                    "const" => {
                        out.insert("enum".to_string(), Value::Array(vec![value.clone()]));
                    }
                    k if JSON_SCHEMA_KEPT.contains(&k) => {
                        out.insert(key.clone(), value.clone());
                    }
                    k => words.extend(in_words(k, value)),
                }
            }
            if !words.is_empty() {
                let words = words.join(" ");
                let description = match out.get("description").and_then(Value::as_str) {
                    Some(text) => format!("{text} {words}"),
                    None => words,
                };
                out.insert("description".to_string(), Value::String(description));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{Form, form, problems};
    use super::*;

    fn tree() -> Value {
        json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node", "description": "The root."}},
            "required": ["tree"],
            "additionalProperties": false,
            "$defs": {"Node": {"type": "object", "properties": {
                "value": {"type": "integer", "exclusiveMinimum": 0},
                "label": {"const": "leaf"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }, "required": ["value"], "additionalProperties": false}}
        })
    }

    #[test]
    fn a_recursive_type_goes_out_as_json_schema_with_its_references() {
        assert_eq!(form(&tree()), Form::JsonSchema);
        let out = json_schema(&tree());
        assert_eq!(out["properties"]["tree"], json!({"$ref": "#/$defs/Node", "description": "The root."}));
        let node = &out["$defs"]["Node"];
        assert_eq!(node["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
        assert_eq!(node["properties"]["label"], json!({"enum": ["leaf"]}), "const as a one-value enum");
        assert_eq!(node["properties"]["value"], json!({"type": "integer", "description": "Greater than 0."}));
        assert_eq!(node["additionalProperties"], json!(false));
        // The recursion is kept, and the bound is told in words: nothing to report.
        assert_eq!(problems(&tree()), []);
    }

    #[test]
    fn a_map_keeps_its_value_type_in_the_json_schema_form() {
        let schema = json!({
            "type": "object",
            "properties": {"tags": {
                "type": "object",
                "description": "Labels.",
                "maxProperties": 1,
                "additionalProperties": {"type": "string", "pattern": "^[a-z]+$", "minLength": 2},
                "propertyNames": {"type": "string", "maxLength": 8}
            }}
        });
        assert_eq!(form(&schema), Form::JsonSchema);
        assert_eq!(
            json_schema(&schema)["properties"]["tags"],
            json!({"type": "object", "description": "Labels. At most 1 entry.", "additionalProperties": {
                "type": "string", "description": "Matches the pattern `^[a-z]+$`. At least 2 characters."
            }})
        );
        let found = problems(&schema);
        assert_eq!(found.iter().map(|p| p.path.as_str()).collect::<Vec<_>>(), ["tags"]);
        assert!(found[0].rule.starts_with("`propertyNames`"));
    }

    #[test]
    fn a_tuple_and_one_of_take_the_json_schema_shapes() {
        let schema = json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2},
                "shape": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
            }
        });
        assert_eq!(form(&schema), Form::JsonSchema);
        let out = json_schema(&schema);
        assert_eq!(out["properties"]["pair"]["prefixItems"][1], json!({"type": "integer"}));
        assert_eq!(out["properties"]["shape"], json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));
        assert_eq!(problems(&schema), []);
    }
}
