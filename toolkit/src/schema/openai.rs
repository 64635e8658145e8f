//! OpenAI strict mode (Structured Outputs): the transform that makes a canonical schema
//! acceptable to it, and the rules for what no transform can fix.
//!
//! Strict mode takes a subset of JSON Schema: every object lists all its properties in
//! `required` and has `additionalProperties: false`; an optional value is expressed as
//! nullable instead (one with a default is sent always, the default named in its
//! description); `$ref` takes no sibling keywords; `oneOf`, `allOf`, `not`,
//! conditionals and most annotations are rejected; `format` takes a short list of
//! values. Limits: 10 levels of nested objects, 5,000 properties, 1,000 enum values.

use serde_json::{Map, Value, json};

use super::walk::{self, Problem, Site, is_object};
use crate::json_schema::refs::{self, Defs};

/// Keywords strict mode accepts as they are. Everything else is dropped (constraints
/// such as `minLength` are still enforced when the arguments are parsed).
const KEPT: &[&str] = &[
    "type",
    "description",
    "title",
    "enum",
    "const",
    "pattern",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// The `format` values strict mode accepts.
const FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

const MAX_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5_000;
const MAX_ENUM_VALUES: usize = 1_000;

/// `schema` rewritten for strict mode. Total: parts strict mode cannot take are
/// closed or dropped (see [`problems`]), never a panic.
pub(crate) fn strict_schema(schema: &Value) -> Value {
    let mut out = Strict { defs: Defs::new(schema) }.node(schema);
    prune_definitions(&mut out);
    out
}

/// What strict mode cannot represent in `schema` (empty: the strict export is exact).
pub(crate) fn problems(schema: &Value) -> Vec<Problem> {
    let mut found = Vec::new();
    let mut too_deep = false;
    walk::walk(schema, &mut |site| {
        if site.depth > MAX_DEPTH && !too_deep {
            too_deep = true;
            let what = format!("more than {MAX_DEPTH} levels of nested objects");
            found.push(over_limit(site.path, what, MAX_DEPTH, "flatten the arguments"));
        }
        site_problems(site, &mut found);
    });
    let mut totals = Totals::default();
    totals.count(schema);
    if totals.properties > MAX_PROPERTIES {
        let what = format!("{} properties in all", totals.properties);
        found.push(over_limit("", what, MAX_PROPERTIES, "split the tool"));
    }
    if totals.enum_values > MAX_ENUM_VALUES {
        let what = format!("{} enum values in all", totals.enum_values);
        found.push(over_limit("", what, MAX_ENUM_VALUES, "take a string instead"));
    }
    found
}

fn over_limit(path: &str, what: String, max: usize, fix: &str) -> Problem {
    problem(path, format!("{what}; OpenAI strict mode takes at most {max}: {fix}, or turn `strict` off"))
}

const OPEN_MAP: &str = "an open map (`additionalProperties` other than `false`); OpenAI strict mode needs \
    `additionalProperties: false` on every object, so in strict mode the map can only be empty: take a list of \
    key/value structs, or turn `strict` off";
const UNTYPED: &str = "a value of any type (`serde_json::Value`); OpenAI strict mode needs a type for every \
    value: give it a concrete type, or turn `strict` off";
const ALL_OF: &str = "`allOf` of several schemas; OpenAI strict mode does not take `allOf`, so it is dropped: \
    merge the types into one struct";
const TUPLE: &str = "a tuple (`prefixItems`); OpenAI strict mode has no tuples, so it is sent as an array of any \
    of the element types: take a struct";

fn site_problems(site: &Site<'_>, found: &mut Vec<Problem>) {
    let Some(map) = site.schema.as_object() else {
        if site.schema == &Value::Bool(true) {
            found.push(problem(site.path, UNTYPED.into()));
        }
        return;
    };
    if map.get("additionalProperties").is_some_and(|a| a != &Value::Bool(false)) {
        found.push(problem(site.path, OPEN_MAP.into()));
    }
    if is_untyped(map) {
        found.push(problem(site.path, UNTYPED.into()));
    }
    if map.get("allOf").and_then(Value::as_array).is_some_and(|all| all.len() > 1) {
        found.push(problem(site.path, ALL_OF.into()));
    }
    if map.contains_key("prefixItems") {
        found.push(problem(site.path, TUPLE.into()));
    }
    walk::dropped_rules(map, site.path, walk::CONDITIONAL.iter().copied(), "OpenAI strict mode", found);
}

/// Sizes of a schema as written (each definition counted once), for the limits.
#[derive(Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
}

impl Totals {
    fn count(&mut self, schema: &Value) {
        let Some(map) = schema.as_object() else { return };
        for (key, value) in map {
            match (key.as_str(), value) {
                ("properties" | "$defs" | "definitions" | "patternProperties", Value::Object(children)) => {
                    if key == "properties" {
                        self.properties += children.len();
                    }
                    children.values().for_each(|child| self.count(child));
                }
                ("enum", Value::Array(values)) => self.enum_values += values.len(),
                ("default" | "const" | "examples", _) => {}
                (_, Value::Array(items)) => items.iter().for_each(|item| self.count(item)),
                (_, child) => self.count(child),
            }
        }
    }
}

/// A schema that says nothing about the value's type.
fn is_untyped(map: &Map<String, Value>) -> bool {
    const TYPING: &[&str] = &["type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "properties", "items"];
    !TYPING.iter().any(|k| map.contains_key(*k))
}

fn problem(path: &str, rule: String) -> Problem {
    Problem { path: path.to_string(), rule }
}

struct Strict<'a> {
    defs: Defs<'a>,
}

impl Strict<'_> {
    fn node(&self, schema: &Value) -> Value {
        let Some(map) = schema.as_object() else { return schema.clone() };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, map);
        }
        if let Some(merged) = refs::lone_all_of(map) {
            return self.node(&merged);
        }
        let mut out = Map::new();
        for (key, value) in map {
            self.keyword(key, value, &mut out);
        }
        if let Some(default) = map.get("default").filter(|d| !d.is_null()) {
            mention_default(&mut out, default);
        }
        if is_object(schema) {
            close_object(&mut out, map);
        }
        Value::Object(out)
    }

    fn keyword(&self, key: &str, value: &Value, out: &mut Map<String, Value>) {
        match (key, value) {
            ("properties" | "$defs" | "definitions", Value::Object(children)) => {
                let children = children.iter().map(|(name, child)| (name.clone(), self.node(child))).collect();
                out.insert(key.to_string(), Value::Object(children));
            }
            ("items", Value::Object(_)) => {
                out.insert(key.to_string(), self.node(value));
            }
            ("prefixItems", Value::Array(tuple)) => {
                out.insert("items".to_string(), any_of(tuple.iter().map(|item| self.node(item)).collect()));
            }
            ("anyOf" | "oneOf", Value::Array(variants)) => {
                let variants = variants.iter().map(|variant| self.node(variant));
                match out.get_mut("anyOf") {
                    Some(Value::Array(existing)) => existing.extend(variants),
                    _ => {
                        out.insert("anyOf".to_string(), Value::Array(variants.collect()));
                    }
                }
            }
            ("format", Value::String(format)) if FORMATS.contains(&format.as_str()) => {
                out.insert(key.to_string(), value.clone());
            }
            _ if KEPT.contains(&key) => {
                out.insert(key.to_string(), value.clone());
            }
            _ => {}
        }
    }

    /// A `$ref` with siblings is inlined (siblings kept) unless its target is recursive;
    /// then the `$ref` goes alone into a one-branch `anyOf`, which carries the
    /// description (strict mode allows nothing beside a `$ref` itself).
    fn reference(&self, reference: &str, map: &Map<String, Value>) -> Value {
        let bare = json!({ "$ref": reference });
        if map.len() == 1 {
            return bare;
        }
        if self.defs.is_recursive(reference) {
            return match map.get("description") {
                Some(description) => json!({ "anyOf": [bare], "description": description }),
                None => bare,
            };
        }
        match self.defs.resolve(reference) {
            Some(target) => self.node(&refs::overlay(target, map)),
            None => bare,
        }
    }
}

/// Every property required, no other keys. An optional property becomes nullable
/// unless it has a default: then the model sends a value (the description names the
/// default), so a parameter whose type has no `null` never receives one.
fn close_object(out: &mut Map<String, Value>, original: &Map<String, Value>) {
    let required = crate::json_schema::render::required(original);
    let originals = original.get("properties").and_then(Value::as_object);
    let mut names = Vec::new();
    if let Some(Value::Object(properties)) = out.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            names.push(Value::String(name.clone()));
            let source = originals.and_then(|o| o.get(name));
            let has_default = source.and_then(|p| p.get("default")).is_some_and(|d| !d.is_null());
            if !required.contains(&name.as_str()) && !has_default {
                make_nullable(property, source.and_then(|p| p.get("description")));
            }
        }
    } else {
        out.insert("properties".to_string(), Value::Object(Map::new()));
    }
    if !out.contains_key("type") {
        out.insert("type".to_string(), Value::from("object"));
    }
    out.insert("required".to_string(), Value::Array(names));
    out.insert("additionalProperties".to_string(), Value::Bool(false));
}

/// Lets `schema` also accept `null` (how strict mode says "optional"): `null` added to
/// a scalar's `type` (and `enum`), or an `anyOf` with `{"type": "null"}` for objects,
/// unions and references. `description` is the use site's, kept on the wrapper when a
/// bare `$ref` has to be wrapped.
fn make_nullable(schema: &mut Value, description: Option<&Value>) {
    let Value::Object(map) = schema else { return };
    if accepts_null(map) {
        return;
    }
    if let Some(kind) = map.get_mut("type").filter(|kind| kind.as_str() != Some("object")) {
        match kind {
            Value::String(single) if single != "null" => *kind = json!([single.clone(), "null"]),
            Value::Array(types) if !types.iter().any(|t| t == "null") => types.push(Value::from("null")),
            _ => {}
        }
        add_null_value(map);
        return;
    }
    if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
        variants.push(json!({"type": "null"}));
        return;
    }
    if map.contains_key("enum") || map.contains_key("const") {
        add_null_value(map);
        return;
    }
    let mut inner = std::mem::take(map);
    let description = inner.shift_remove("description").or_else(|| description.cloned());
    map.insert("anyOf".to_string(), json!([inner, {"type": "null"}]));
    if let Some(description) = description {
        map.insert("description".to_string(), description);
    }
}

/// An `enum`/`const` lists its values: `null` has to be one of them too.
fn add_null_value(map: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    } else if let Some(value) = map.shift_remove("const").filter(|v| !v.is_null()) {
        map.insert("enum".to_string(), json!([value, null]));
    }
}

/// Whether `null` is a value of the schema: its type admits it and no `enum`/`const`
/// beside the type leaves it out (`{"type": ["integer", "null"], "enum": [1, 2]}` does).
fn accepts_null(map: &Map<String, Value>) -> bool {
    let listed = || {
        map.get("enum").and_then(Value::as_array).is_none_or(|v| v.contains(&Value::Null))
            && map.get("const").is_none_or(Value::is_null)
    };
    match map.get("type") {
        Some(Value::String(t)) if t == "null" => return listed(),
        Some(Value::Array(types)) if types.iter().any(|t| t == "null") => return listed(),
        Some(_) => return false,
        None => {}
    }
    map.get("anyOf").and_then(Value::as_array).is_some_and(|v| v.iter().any(refs::is_null_schema))
        || map.get("enum").and_then(Value::as_array).is_some_and(|v| v.contains(&Value::Null))
}

/// Strict mode rejects `default`; the model still learns it from the description.
fn mention_default(out: &mut Map<String, Value>, default: &Value) {
    let note = format!("Default: {default}.");
    let description = match out.get("description").and_then(Value::as_str) {
        Some(text) if !text.is_empty() => format!("{} {note}", text.trim_end()),
        _ => note,
    };
    out.insert("description".to_string(), Value::String(description));
}

/// A union of the distinct schemas given (one schema stands alone).
pub(crate) fn any_of(mut schemas: Vec<Value>) -> Value {
    let mut distinct: Vec<Value> = Vec::new();
    for schema in schemas.drain(..) {
        if !distinct.contains(&schema) {
            distinct.push(schema);
        }
    }
    match distinct.len() {
        1 => distinct.pop().unwrap_or_default(),
        _ => json!({ "anyOf": distinct }),
    }
}

/// Drops definitions nothing refers to any more (inlining leaves some unused).
fn prune_definitions(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else { return };
    for key in ["$defs", "definitions"] {
        let Some(Value::Object(defs)) = map.shift_remove(key) else { continue };
        let mut used = Vec::new();
        refs::collect_refs(&Value::Object(map.clone()), &mut used);
        let mut kept = Map::new();
        while let Some(reference) = used.pop() {
            let Some(name) = reference.strip_prefix(&format!("#/{key}/")) else { continue };
            if kept.contains_key(name) {
                continue;
            }
            if let Some(def) = defs.get(name) {
                refs::collect_refs(def, &mut used);
                kept.insert(name.to_string(), def.clone());
            }
        }
        if !kept.is_empty() {
            // Keep the original order of the definitions.
            let ordered = defs.into_iter().filter(|(name, _)| kept.contains_key(name)).collect();
            map.insert(key.to_string(), Value::Object(ordered));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weather() -> Value {
        json!({
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City name.", "minLength": 1},
                "unit": {"$ref": "#/$defs/Unit", "description": "Temperature unit.", "default": "celsius"},
                "days": {"type": ["integer", "null"], "minimum": 1, "default": null},
                "when": {"type": "string", "format": "date-time"},
                "code": {"type": "string", "format": "iata"}
            },
            "required": ["location"],
            "additionalProperties": false,
            "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}
        })
    }

    #[test]
    fn every_property_is_required_and_optional_ones_nullable() {
        let out = strict_schema(&weather());
        assert_eq!(out["required"], json!(["location", "unit", "days", "when", "code"]));
        assert_eq!(out["additionalProperties"], json!(false));
        assert_eq!(out["properties"]["location"]["type"], json!("string"));
        assert_eq!(out["properties"]["when"]["type"], json!(["string", "null"]));
        assert_eq!(out["properties"]["when"]["format"], json!("date-time"));
        // already nullable: not doubled
        assert_eq!(out["properties"]["days"]["type"], json!(["integer", "null"]));
    }

    #[test]
    fn a_ref_with_siblings_is_inlined_with_its_description_and_default_moves_into_it() {
        let out = strict_schema(&weather());
        // Defaulted: always sent, never null (a `Unit` parameter cannot take `null`).
        assert_eq!(
            out["properties"]["unit"],
            json!({
                "type": "string",
                "enum": ["celsius", "fahrenheit"],
                "description": "Temperature unit. Default: \"celsius\"."
            })
        );
        // the inlined definition is no longer needed
        assert!(out.get("$defs").is_none());
    }

    #[test]
    fn rejected_keywords_and_formats_are_stripped() {
        let out = strict_schema(&weather());
        assert!(out["properties"]["location"].get("minLength").is_none());
        assert!(out["properties"]["days"].get("default").is_none());
        assert_eq!(out["properties"]["days"]["minimum"], json!(1));
        assert_eq!(out["properties"]["when"]["format"], json!("date-time"));
        assert!(out["properties"]["code"].get("format").is_none());
    }

    #[test]
    fn nested_objects_are_closed_and_recursive_refs_stay_references() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tree": {"$ref": "#/$defs/Node", "description": "The tree."},
                "maybe": {"$ref": "#/$defs/Node", "description": "Another."}
            },
            "required": ["tree"],
            "$defs": {"Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                },
                "required": ["value"]
            }}
        });
        let out = strict_schema(&schema);
        // The description beside a recursive reference is kept on a one-branch `anyOf`.
        assert_eq!(out["properties"]["tree"], json!({"anyOf": [{"$ref": "#/$defs/Node"}], "description": "The tree."}));
        assert_eq!(
            out["properties"]["maybe"],
            json!({"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}], "description": "Another."})
        );
        let node = &out["$defs"]["Node"];
        assert_eq!(node["required"], json!(["value", "children"]));
        assert_eq!(node["additionalProperties"], json!(false));
        assert_eq!(node["properties"]["children"]["type"], json!(["array", "null"]));
    }

    #[test]
    fn one_of_becomes_any_of_and_option_of_ref_is_left_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
                    {"type": "string", "const": "none"}
                ]},
                "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]}
            },
            "required": ["shape"],
            "$defs": {"Unit": {"type": "string", "enum": ["c", "f"]}}
        });
        let out = strict_schema(&schema);
        let shape = &out["properties"]["shape"];
        assert!(shape.get("oneOf").is_none());
        assert_eq!(shape["anyOf"][0]["additionalProperties"], json!(false));
        assert_eq!(out["properties"]["unit"], json!({"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]}));
        assert_eq!(out["$defs"]["Unit"], json!({"type": "string", "enum": ["c", "f"]}));
    }

    #[test]
    fn the_description_beside_a_recursive_reference_is_kept() {
        let schema = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node", "description": "The tree's root."}},
            "required": ["root"],
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["children"]}}
        });
        let out = strict_schema(&schema);
        assert_eq!(
            out["properties"]["root"],
            json!({"anyOf": [{"$ref": "#/$defs/Node"}], "description": "The tree's root."})
        );
    }

    #[test]
    fn an_empty_object_gets_the_keywords_strict_mode_insists_on() {
        let out = strict_schema(&json!({"type": "object", "properties": {}, "additionalProperties": false}));
        assert_eq!(out, json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false}));
    }

    #[test]
    fn an_open_map_is_reported_at_its_path_and_closed_in_the_export() {
        let schema = json!({
            "type": "object",
            "properties": {"filters": {"$ref": "#/$defs/Filters"}},
            "required": ["filters"],
            "$defs": {"Filters": {"type": "object", "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "integer"}}
            }, "required": ["tags"]}}
        });
        let found = problems(&schema);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, "filters.tags");
        assert!(found[0].rule.contains("additionalProperties"));
        let out = strict_schema(&schema);
        assert_eq!(out["$defs"]["Filters"]["properties"]["tags"]["additionalProperties"], json!(false));
    }

    #[test]
    fn untyped_values_tuples_and_depth_are_reported() {
        let mut deep = json!({"type": "string"});
        for _ in 0..11 {
            deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"]});
        }
        let schema = json!({
            "type": "object",
            "properties": {
                "any": true,
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
                "deep": deep
            }
        });
        let found = problems(&schema);
        let paths: Vec<&str> = found.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["any", "pair", "deep.x.x.x.x.x.x.x.x.x"]);
        let out = strict_schema(&schema);
        assert_eq!(out["properties"]["pair"]["items"], json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));
    }

    #[test]
    fn size_limits_are_reported_for_the_tool() {
        let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
        let properties: Map<String, Value> = (0..5001).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
        let schema =
            json!({"type": "object", "properties": properties, "$defs": {"Big": {"type": "string", "enum": values}}});
        let found = problems(&schema);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].rule.starts_with("5001 properties in all; OpenAI strict mode takes at most 5000"));
        assert!(found[1].rule.starts_with("1001 enum values in all"));
        assert!(found.iter().all(|p| p.path.is_empty()));
    }

    #[test]
    fn a_nullable_type_with_an_enum_that_leaves_out_null_gets_it() {
        let schema = json!({
            "type": "object",
            "properties": {"service": {"type": ["integer", "null"], "enum": [1, 2]}}
        });
        let out = strict_schema(&schema);
        assert_eq!(out["properties"]["service"], json!({"type": ["integer", "null"], "enum": [1, 2, null]}));
    }

    #[test]
    fn canonical_schema_without_maps_has_no_problems() {
        assert_eq!(problems(&weather()), []);
    }
}
