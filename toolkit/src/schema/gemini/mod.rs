//! Gemini function declarations, in one of Gemini's two forms, chosen per tool:
//!
//! - **`parameters`**, Gemini's OpenAPI 3.0 subset, for every tool the subset can say.
//!   It has no references (`$ref`/`$defs` are inlined), no type arrays
//!   (`["string", "null"]` is `"type": "string", "nullable": true`), no
//!   `additionalProperties`, no `oneOf`/`allOf`/`const` (`anyOf` and string `enum`
//!   instead), and `format` only as `enum`/`date-time` on strings, `int32`/`int64` on
//!   integers and `float`/`double` on numbers (the Gemini Developer API rejects others).
//!   It keeps `pattern`, `minLength`/`maxLength` and `default`.
//! - **`parametersJsonSchema`**, Gemini's JSON Schema form, for a tool the subset would
//!   cut: a recursive type (kept with `$ref`/`$defs`), a map's value type
//!   (`additionalProperties`), a tuple (`prefixItems`). It takes the keywords Gemini
//!   documents for it (`$ref`, `$defs`, `type`, `format`, `title`, `description`, `enum`,
//!   `items`, `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`, `anyOf`,
//!   `oneOf` (read as `anyOf`), `properties`, `additionalProperties`, `required`); `const`
//!   becomes a one-value `enum` and the rest is dropped, and reported by [`problems`]
//!   when it was a rule the model is then not told.
//!
//! In both forms, parameter names start with a letter or `_` and hold letters, digits and
//! `_` only, at every depth.

use serde_json::{Map, Value};

use super::openai::any_of;
use super::walk::{self, Problem};
use crate::json_schema::refs::{self, Defs};

mod json;
use json::JSON_SCHEMA_DROPS;
pub(crate) use json::json_schema;

/// Keywords of the subset that pass through unchanged.
const KEPT: &[&str] = &[
    "title",
    "description",
    "default",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "example",
];

/// `schema` rewritten into Gemini's subset. Total: what the subset cannot say is cut
/// or dropped (see [`problems`]), never a panic.
pub(crate) fn gemini_schema(schema: &Value) -> Value {
    let mut gemini = Gemini { defs: Defs::new(schema), stack: vec!["#".to_string()] };
    Value::Object(gemini.node(schema))
}

/// Which form a tool's declaration takes (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// `parameters`: the OpenAPI subset.
    Subset,
    /// `parametersJsonSchema`: JSON Schema.
    JsonSchema,
}

impl Form {
    /// The declaration's key for this form's schema.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Form::Subset => "parameters",
            Form::JsonSchema => "parametersJsonSchema",
        }
    }
}

/// The form that carries more of `schema`: JSON Schema when the subset would cut a
/// recursive type, a map's values or a tuple; the subset otherwise (it keeps `pattern`
/// and the length limits, which the JSON Schema form drops).
pub(crate) fn form(schema: &Value) -> Form {
    let mut cut = false;
    walk::walk(schema, &mut |site| {
        let Some(map) = site.schema.as_object() else { return };
        cut |= site.cycle.is_some()
            || map.get("additionalProperties").is_some_and(|a| a != &Value::Bool(false))
            || map.contains_key("prefixItems");
    });
    if cut { Form::JsonSchema } else { Form::Subset }
}

/// `schema` in `form`. Total: what the form cannot say is cut or dropped (see
/// [`problems`]), never a panic.
pub(crate) fn declaration_schema(schema: &Value, form: Form) -> Value {
    match form {
        Form::Subset => gemini_schema(schema),
        Form::JsonSchema => json_schema(schema),
    }
}

/// What Gemini cannot take of `schema` in the form [`form`] picks for it (empty: the
/// export is exact).
pub(crate) fn problems(schema: &Value) -> Vec<Problem> {
    let form = form(schema);
    let mut found = Vec::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for name in properties.keys().filter(|name| !is_parameter_name(name)) {
            found.push(problem(name, PARAMETER_NAME));
        }
    }
    walk::walk(schema, &mut |site| {
        if untyped(site.schema) && !site.path.is_empty() {
            found.push(problem(site.path, UNTYPED));
        }
        let Some(map) = site.schema.as_object() else { return };
        // Gemini's parameter-name rule holds at every depth.
        if !site.path.is_empty()
            && let Some(properties) = map.get("properties").and_then(Value::as_object)
        {
            for name in properties.keys().filter(|name| !is_parameter_name(name)) {
                found.push(problem(&format!("{}.{name}", site.path), PARAMETER_NAME));
            }
        }
        if map.get("allOf").and_then(Value::as_array).is_some_and(|all| all.len() > 1) {
            found.push(problem(site.path, ALL_OF));
        }
        let extra = match form {
            Form::Subset => &[][..],
            Form::JsonSchema => JSON_SCHEMA_DROPS,
        };
        walk::dropped_rules(map, site.path, walk::CONDITIONAL.iter().chain(extra).copied(), "Gemini", &mut found);
    });
    found
}

const UNTYPED: &str = "a value of any type (`serde_json::Value`); Gemini needs a type for every value, so it \
    goes out without one and the model is not told what to send: give it a concrete type";

/// A schema that says nothing about its value's type (`true`, `{}`, or only annotations).
fn untyped(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(map) => {
            !["type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf", "properties", "items", "not"]
                .iter()
                .any(|k| map.contains_key(*k))
        }
        _ => false,
    }
}

const PARAMETER_NAME: &str = "a parameter name Gemini rejects: it must start with a letter or `_` and hold only \
    letters, digits and `_` (at most 64): rename it";
const ALL_OF: &str = "`allOf` of several schemas; Gemini does not take `allOf`, so it is dropped: merge the types \
    into one struct";

/// `^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`: what Gemini takes as a parameter name.
fn is_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
}

fn problem(path: &str, rule: &str) -> Problem {
    Problem { path: path.to_string(), rule: rule.to_string() }
}

struct Gemini<'a> {
    defs: Defs<'a>,
    /// References being inlined, outermost first (`#` is the root itself).
    stack: Vec<String>,
}

/// What one schema node becomes, gathered while reading its keywords.
#[derive(Default)]
struct Parts {
    out: Map<String, Value>,
    nullable: bool,
    variants: Vec<Map<String, Value>>,
    format: Option<String>,
}

impl Gemini<'_> {
    fn node(&mut self, schema: &Value) -> Map<String, Value> {
        let Some(map) = schema.as_object() else { return Map::new() };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, map);
        }
        if let Some(merged) = refs::lone_all_of(map) {
            return self.node(&merged);
        }
        let mut parts = Parts::default();
        for (key, value) in map {
            self.keyword(key, value, &mut parts);
        }
        finish(parts)
    }

    fn keyword(&mut self, key: &str, value: &Value, parts: &mut Parts) {
        match (key, value) {
            ("type", Value::String(kind)) if kind == "null" => parts.nullable = true,
            ("type", Value::String(_)) => {
                parts.out.insert(key.to_string(), value.clone());
            }
            ("type", Value::Array(kinds)) => {
                let named: Vec<&Value> = kinds.iter().filter(|k| *k != "null").collect();
                parts.nullable |= named.len() < kinds.len();
                match named.as_slice() {
                    [] => {}
                    [single] => {
                        parts.out.insert(key.to_string(), (*single).clone());
                    }
                    several => parts.variants.extend(several.iter().map(|kind| single_key("type", (*kind).clone()))),
                }
            }
            ("anyOf" | "oneOf", Value::Array(variants)) => {
                for variant in variants {
                    if refs::is_null_schema(variant) {
                        parts.nullable = true;
                    } else {
                        let variant = self.node(variant);
                        parts.variants.push(variant);
                    }
                }
            }
            ("properties", Value::Object(properties)) => {
                let properties: Map<String, Value> =
                    properties.iter().map(|(name, p)| (name.clone(), Value::Object(self.node(p)))).collect();
                if !properties.is_empty() {
                    parts.out.insert(key.to_string(), Value::Object(properties));
                }
            }
            ("items", Value::Object(_)) => {
                parts.out.insert(key.to_string(), Value::Object(self.node(value)));
            }
            ("prefixItems", Value::Array(tuple)) => {
                let items = tuple.iter().map(|item| Value::Object(self.node(item))).collect();
                parts.out.insert("items".to_string(), any_of(items));
            }
            ("enum", Value::Array(values)) => {
                parts.nullable |= values.contains(&Value::Null);
                let values = values.iter().filter(|v| !v.is_null()).map(enum_value).collect();
                parts.out.insert(key.to_string(), Value::Array(values));
            }
            ("const", Value::Null) => parts.nullable = true,
            ("const", _) => {
                parts.out.insert("enum".to_string(), Value::Array(vec![enum_value(value)]));
            }
            ("required", Value::Array(_)) => {
                parts.out.insert(key.to_string(), value.clone());
            }
            ("format", Value::String(format)) => parts.format = Some(format.clone()),
            _ if KEPT.contains(&key) => {
                parts.out.insert(key.to_string(), value.clone());
            }
            _ => {}
        }
    }

    /// Inlines a reference; a reference back into a type being inlined (recursion) is
    /// cut to its bare type, since Gemini has nothing to point with.
    fn reference(&mut self, reference: &str, map: &Map<String, Value>) -> Map<String, Value> {
        let target = self.defs.resolve(reference);
        if self.stack.iter().any(|r| r == reference) || target.is_none() {
            let mut cut = Map::new();
            let kind = target.and_then(|t| t.get("type")).filter(|t| t.is_string());
            cut.insert("type".to_string(), kind.cloned().unwrap_or_else(|| Value::from("object")));
            let description = map.get("description").or_else(|| target.and_then(|t| t.get("description")));
            if let Some(description) = description {
                cut.insert("description".to_string(), description.clone());
            }
            return cut;
        }
        let merged = refs::overlay(target.unwrap_or(&Value::Null), map);
        self.stack.push(reference.to_string());
        let out = self.node(&merged);
        self.stack.pop();
        out
    }
}

/// Assembles a node from its parts: unions folded, types inferred, `format` and
/// `required` checked against what the subset takes.
fn finish(parts: Parts) -> Map<String, Value> {
    let Parts { mut out, nullable, variants, format } = parts;
    match variants.len() {
        0 => {}
        1 => out = under(variants.into_iter().next().unwrap_or_default(), out),
        _ => match string_enum(&variants) {
            Some(collapsed) => out = under(collapsed, out),
            None => {
                out.insert("anyOf".to_string(), Value::Array(variants.into_iter().map(Value::Object).collect()));
            }
        },
    }
    if !out.contains_key("type") && !out.contains_key("anyOf") {
        let inferred = if out.contains_key("properties") {
            Some("object")
        } else if out.contains_key("items") {
            Some("array")
        } else if out.contains_key("enum") {
            Some("string")
        } else {
            None
        };
        if let Some(kind) = inferred {
            out.insert("type".to_string(), Value::from(kind));
        }
    }
    let kind = out.get("type").and_then(Value::as_str).unwrap_or_default().to_string();
    // Gemini takes `enum` on strings only ("enum: only allowed for STRING type"): the
    // values a number may take are written into its description instead.
    if !kind.is_empty()
        && kind != "string"
        && let Some(Value::Array(values)) = out.shift_remove("enum")
    {
        let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        let rule = format!("One of {}.", values.join(", "));
        let description = match out.get("description").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => format!("{text} {rule}"),
            _ => rule,
        };
        out.insert("description".to_string(), Value::String(description));
    }
    let format = if out.contains_key("enum") { Some("enum".to_string()) } else { format };
    if let Some(format) = format.filter(|f| format_allowed(&kind, f)) {
        out.insert("format".to_string(), Value::String(format));
    }
    keep_known_required(&mut out);
    if nullable {
        out.insert("nullable".to_string(), Value::Bool(true));
    }
    out
}

/// `variant` with `site`'s keys laid over it (a use site's description wins), and the
/// two descriptions joined when both exist and differ only in that the variant's lists
/// enum values.
fn under(mut variant: Map<String, Value>, site: Map<String, Value>) -> Map<String, Value> {
    let values_doc = variant.shift_remove("x-values");
    for (key, value) in site {
        variant.insert(key, value);
    }
    if let Some(Value::String(values_doc)) = values_doc {
        let description = match variant.get("description").and_then(Value::as_str) {
            Some(text) => format!("{text}\n{values_doc}"),
            None => values_doc,
        };
        variant.insert("description".to_string(), Value::String(description));
    }
    variant
}

/// Unions of string constants (schemars' shape for enums with documented variants)
/// become one string `enum`; the variants' docs move into the description. The
/// `x-values` key carries them to [`under`] and never reaches the output.
fn string_enum(variants: &[Map<String, Value>]) -> Option<Map<String, Value>> {
    const PLAIN: &[&str] = &["type", "enum", "format", "description"];
    let mut values = Vec::new();
    let mut docs = Vec::new();
    for variant in variants {
        let plain = variant.keys().all(|k| PLAIN.contains(&k.as_str()));
        let string = variant.get("type").is_none_or(|t| t == "string");
        let Some(Value::Array(listed)) = variant.get("enum").filter(|_| plain && string) else { return None };
        if let (Some(doc), [value]) = (variant.get("description").and_then(Value::as_str), listed.as_slice()) {
            docs.push(format!("- `{}`: {doc}", value.as_str().unwrap_or_default()));
        }
        values.extend(listed.iter().cloned());
    }
    let mut collapsed = Map::new();
    collapsed.insert("type".to_string(), Value::from("string"));
    collapsed.insert("enum".to_string(), Value::Array(values));
    if !docs.is_empty() {
        collapsed.insert("x-values".to_string(), Value::String(docs.join("\n")));
    }
    Some(collapsed)
}

fn format_allowed(kind: &str, format: &str) -> bool {
    match kind {
        "string" => matches!(format, "enum" | "date-time"),
        "integer" => matches!(format, "int32" | "int64"),
        "number" => matches!(format, "float" | "double"),
        _ => false,
    }
}

/// Gemini's `enum` holds strings.
fn enum_value(value: &Value) -> Value {
    match value {
        Value::String(_) => value.clone(),
        other => Value::String(other.to_string()),
    }
}

/// `required` may only name listed properties, and is left out when empty.
fn keep_known_required(out: &mut Map<String, Value>) {
    let properties = out.get("properties").and_then(Value::as_object);
    let known: Vec<Value> = match out.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter(|name| name.as_str().is_some_and(|n| properties.is_some_and(|p| p.contains_key(n))))
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    if known.is_empty() {
        out.shift_remove("required");
    } else {
        out.insert("required".to_string(), Value::Array(known));
    }
}

fn single_key(key: &str, value: Value) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert(key.to_string(), value);
    map
}

#[cfg(test)]
mod tests {
    #[test]
    fn untyped_values_and_nested_names_are_reported() {
        let schema = json!({
            "type": "object",
            "properties": {
                "data": {"description": "Anything."},
                "nested": {"type": "object", "properties": {"bad-name": {"type": "string"}, "ok": true}}
            }
        });
        let found = problems(&schema);
        let paths: Vec<&str> = found.iter().map(|p| p.path.as_str()).collect();
        assert!(paths.contains(&"data"), "{paths:?}");
        assert!(paths.contains(&"nested.bad-name"), "{paths:?}");
        assert!(paths.contains(&"nested.ok"), "{paths:?}");
        assert!(found.iter().any(|p| p.rule.contains("needs a type")), "{found:?}");
    }

    use serde_json::json;

    use super::*;

    fn has_key(value: &Value, key: &str) -> bool {
        match value {
            Value::Object(map) => map.contains_key(key) || map.values().any(|v| has_key(v, key)),
            Value::Array(items) => items.iter().any(|v| has_key(v, key)),
            _ => false,
        }
    }

    fn has_type_array(value: &Value) -> bool {
        match value {
            Value::Object(map) => map.get("type").is_some_and(Value::is_array) || map.values().any(has_type_array),
            Value::Array(items) => items.iter().any(has_type_array),
            _ => false,
        }
    }

    fn canonical() -> Value {
        json!({
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City name."},
                "unit": {"$ref": "#/$defs/Unit", "description": "Temperature unit.", "default": "celsius"},
                "since": {"type": ["string", "null"], "format": "date-time"},
                "filters": {"anyOf": [{"$ref": "#/$defs/Filters"}, {"type": "null"}]},
                "mood": {"$ref": "#/$defs/Mood"}
            },
            "required": ["location", "mood"],
            "additionalProperties": false,
            "$defs": {
                "Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "Filters": {"type": "object", "description": "Filters.", "properties": {
                    "limit": {"type": "integer", "format": "uint32", "minimum": 0},
                    "kind": {"type": "string", "const": "news"}
                }, "required": ["limit"]},
                "Mood": {"oneOf": [
                    {"type": "string", "enum": ["meh"]},
                    {"type": "string", "const": "happy", "description": "All good."}
                ]}
            }
        })
    }

    #[test]
    fn no_references_definitions_type_arrays_or_additional_properties_remain() {
        let out = gemini_schema(&canonical());
        for key in ["$ref", "$defs", "additionalProperties", "const", "oneOf", "$schema"] {
            assert!(!has_key(&out, key), "`{key}` left in {out:#}");
        }
        assert!(!has_type_array(&out), "{out:#}");
    }

    #[test]
    fn nullable_references_and_constants_take_the_subset_shapes() {
        let out = gemini_schema(&canonical());
        let p = &out["properties"];
        assert_eq!(p["since"], json!({"type": "string", "format": "date-time", "nullable": true}));
        assert_eq!(
            p["unit"],
            json!({"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit.", "default": "celsius", "format": "enum"})
        );
        assert_eq!(p["filters"]["type"], json!("object"));
        assert_eq!(p["filters"]["nullable"], json!(true));
        assert_eq!(p["filters"]["required"], json!(["limit"]));
        assert_eq!(p["filters"]["properties"]["limit"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(p["filters"]["properties"]["kind"]["enum"], json!(["news"]));
    }

    #[test]
    fn documented_enum_variants_collapse_into_one_string_enum() {
        let out = gemini_schema(&canonical());
        assert_eq!(
            out["properties"]["mood"],
            json!({"type": "string", "enum": ["meh", "happy"], "description": "- `happy`: All good.", "format": "enum"})
        );
    }

    #[test]
    fn the_subset_is_kept_where_it_says_everything() {
        // `pattern` survives in the subset, which is why it stays the default.
        let schema = json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}});
        assert_eq!(form(&schema), Form::Subset);
        assert_eq!(declaration_schema(&schema, Form::Subset)["properties"]["code"]["pattern"], json!("^[A-Z]{3}$"));
        assert_eq!(problems(&schema), []);
    }

    #[test]
    fn parameter_names_gemini_rejects_are_reported() {
        let schema =
            json!({"type": "object", "properties": {"max-results": {"type": "integer"}, "_ok": {"type": "string"}}});
        let found = problems(&schema);
        assert_eq!(found.iter().map(|p| p.path.as_str()).collect::<Vec<_>>(), ["max-results"]);
    }

    #[test]
    fn multi_type_arrays_become_any_of() {
        let out = gemini_schema(&json!({"type": ["string", "integer", "null"]}));
        assert_eq!(out, json!({"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": true}));
    }

    #[test]
    fn canonical_schema_without_maps_or_recursion_has_no_problems() {
        assert_eq!(problems(&canonical()), []);
    }
}
