//! One-line, TypeScript-like renderings of schemas: `{location: string, unit?: "c" | "f"}`.
//! Used in model-facing error messages and in the Markdown docs.

use std::cell::Cell;

use serde_json::{Map, Value};

use super::refs::Defs;

/// Enums and unions longer than this show their first values and `…`.
const MAX_ALTERNATIVES: usize = 6;
/// Objects below the top level show at most this many fields.
const MAX_NESTED_FIELDS: usize = 8;
/// References followed on one path before giving up (`any`): a bound for cycles that
/// never pass through an object.
const MAX_HOPS: usize = 16;
/// Subschemas rendered for one rendering, after which the rest is `…`: a bound for
/// schemas whose references branch (a type used twice by a type used twice, …), which
/// would otherwise render exponentially many times.
const MAX_RENDERED: usize = 1_000;

/// The arguments a tool expects, on one line: the message a model reads after sending
/// wrong arguments.
///
/// Properties not in `required` get `?`; enums are quoted alternatives (long ones cut
/// with `…`); arrays are `T[]`; a nested type is shown field by field at the first
/// level and as `object` deeper; maps are `{[key: string]: T}`; nullable values are
/// `T | null`.
///
/// ```
/// use serde_json::json;
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "location": {"type": "string"},
///         "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
///         "max_results": {"type": ["integer", "null"]}
///     },
///     "required": ["location"]
/// });
/// assert_eq!(
///     toolkit::schema::render_expected(&schema),
///     r#"{location: string, unit?: "celsius" | "fahrenheit", max_results?: integer | null}"#
/// );
/// ```
pub fn render_expected(input_schema: &Value) -> String {
    Render::new(input_schema).value(input_schema, 0)
}

/// Renders the subschemas of one schema document (whose `$defs` it resolves).
pub(crate) struct Render<'a> {
    defs: Defs<'a>,
    /// Subschemas this rendering may still render (see [`MAX_RENDERED`]).
    left: Cell<usize>,
}

/// Where a rendering is: how many objects deep (the root is 0; objects below 1 are
/// `object`), how many references it followed, and which ones.
#[derive(Clone, Copy)]
struct At<'t> {
    depth: usize,
    hops: usize,
    trail: Option<&'t Trail<'t>>,
}

/// A reference being rendered, at the depth it was met, and the ones around it.
struct Trail<'t> {
    reference: &'t str,
    depth: usize,
    up: Option<&'t Trail<'t>>,
}

impl Trail<'_> {
    /// Whether `reference` is being rendered already at `depth`: a recursive type whose
    /// cycle passes through no object (`Add(Box<Expr>, Box<Expr>)`), which the depth
    /// would never end.
    fn recurs(trail: Option<&Trail<'_>>, reference: &str, depth: usize) -> bool {
        let mut at = trail;
        while let Some(t) = at {
            if t.reference == reference && t.depth == depth {
                return true;
            }
            at = t.up;
        }
        false
    }
}

impl<'a> Render<'a> {
    pub(crate) fn new(root: &'a Value) -> Self {
        Render { defs: Defs::new(root), left: Cell::new(MAX_RENDERED) }
    }

    /// `schema` rendered as if it sat `depth` objects deep: objects at depth 0 and 1
    /// are spelled out, deeper ones are `object`.
    pub(crate) fn value(&self, schema: &Value, depth: usize) -> String {
        self.left.set(MAX_RENDERED);
        self.render(schema, At { depth, hops: 0, trail: None })
    }

    fn render(&self, schema: &Value, at: At<'_>) -> String {
        let Some(left) = self.left.get().checked_sub(1) else { return "…".into() };
        self.left.set(left);
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(false) => return "never".into(),
            _ => return "any".into(),
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if Trail::recurs(at.trail, reference, at.depth) {
                // Named where it recurs: `{Add: [Expr, Expr]} | {Num: number}`.
                return reference.rsplit('/').next().filter(|name| !name.is_empty()).unwrap_or("any").to_string();
            }
            let trail = Trail { reference, depth: at.depth, up: at.trail };
            return match self.defs.resolve(reference) {
                Some(target) if at.hops < MAX_HOPS => {
                    self.render(target, At { hops: at.hops + 1, trail: Some(&trail), ..at })
                }
                _ => "any".into(),
            };
        }
        if let Some(value) = map.get("const") {
            return value.to_string();
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            return alternatives(values.iter().map(Value::to_string).collect());
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = map.get(key) {
                return alternatives(variants.iter().map(|v| self.render(v, at)).collect());
            }
        }
        if let Some(Value::Array(all)) = map.get("allOf")
            && let [only] = all.as_slice()
        {
            return self.render(only, at);
        }
        match map.get("type") {
            Some(Value::String(kind)) => self.typed(map, kind, at),
            Some(Value::Array(kinds)) => {
                alternatives(kinds.iter().filter_map(Value::as_str).map(|kind| self.typed(map, kind, at)).collect())
            }
            _ if map.contains_key("properties") => self.typed(map, "object", at),
            _ => "any".into(),
        }
    }

    fn typed(&self, map: &Map<String, Value>, kind: &str, at: At<'_>) -> String {
        match kind {
            "array" => self.array(map, at),
            "object" => self.object(map, at),
            other => other.to_string(),
        }
    }

    fn array(&self, map: &Map<String, Value>, at: At<'_>) -> String {
        if let Some(Value::Array(tuple)) = map.get("prefixItems") {
            let items: Vec<String> = tuple.iter().map(|item| self.render(item, at)).collect();
            return format!("[{}]", items.join(", "));
        }
        let item = map.get("items").map_or_else(|| "any".to_string(), |items| self.render(items, at));
        if item.contains(" | ") { format!("({item})[]") } else { format!("{item}[]") }
    }

    fn object(&self, map: &Map<String, Value>, at: At<'_>) -> String {
        let properties = map.get("properties").and_then(Value::as_object).filter(|p| !p.is_empty());
        // A data-carrying enum variant (`{"Circle": {...}}`, one required field): its tag
        // and data are shown at any depth, the data at the variant's own depth, so a
        // union of variants reads `{Circle: {radius: number}} | {Square: {side: number}}`.
        if let Some(properties) = properties
            && properties.len() == 1
            && let Some((tag, data)) = properties.iter().next()
            && required(map) == [tag.as_str()]
            && at.depth <= 2
        {
            return format!("{{{}: {}}}", field_name(tag), self.render(data, At { depth: at.depth.max(1), ..at }));
        }
        let values = map.get("additionalProperties").filter(|v| v.is_object() || v == &&Value::Bool(true));
        match (properties, values) {
            // A map is short to spell at any depth; its values count one level deeper.
            (None, Some(values)) => {
                format!("{{[key: string]: {}}}", self.render(values, At { depth: at.depth + 1, ..at }))
            }
            _ if at.depth > 1 => "object".into(),
            (Some(properties), _) => self.fields(properties, required(map), at),
            (None, None) if at.depth == 0 => "{}".into(),
            (None, None) => "object".into(),
        }
    }

    fn fields(&self, properties: &Map<String, Value>, required: Vec<&str>, at: At<'_>) -> String {
        let inner = At { depth: at.depth + 1, ..at };
        let limit = if at.depth == 0 { usize::MAX } else { MAX_NESTED_FIELDS };
        let mut fields: Vec<String> = properties
            .iter()
            .take(limit)
            .map(|(name, schema)| {
                let optional = if required.contains(&name.as_str()) { "" } else { "?" };
                format!("{}{optional}: {}", field_name(name), self.render(schema, inner))
            })
            .collect();
        if properties.len() > limit {
            fields.push("…".into());
        }
        format!("{{{}}}", fields.join(", "))
    }
}

/// The names in an object schema's `required`.
pub(crate) fn required(map: &Map<String, Value>) -> Vec<&str> {
    map.get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `a | b | c`, without repeats, the long ones cut.
fn alternatives(mut options: Vec<String>) -> String {
    let mut distinct: Vec<String> = Vec::new();
    for option in options.drain(..) {
        if !distinct.contains(&option) {
            distinct.push(option);
        }
    }
    if distinct.len() > MAX_ALTERNATIVES {
        distinct.truncate(MAX_ALTERNATIVES - 1);
        distinct.push("…".into());
    }
    if distinct.is_empty() { "never".into() } else { distinct.join(" | ") }
}

/// A property name as written in a rendering: bare when it is an identifier, quoted
/// otherwise (`"max-results"`).
fn field_name(name: &str) -> String {
    let identifier = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier { name.to_string() } else { Value::from(name).to_string() }
}

#[cfg(test)]
mod tests {
    #[test]
    fn data_carrying_variants_show_their_data() {
        let schema = json!({
            "type": "object",
            "properties": {"shape": {"oneOf": [
                {"type": "object", "properties": {"Circle": {"type": "object", "properties": {"radius": {"type": "number"}}, "required": ["radius"]}}, "required": ["Circle"]},
                {"type": "object", "properties": {"Square": {"type": "object", "properties": {"side": {"type": "number"}}, "required": ["side"]}}, "required": ["Square"]},
                {"type": "string", "const": "Point"}
            ]}},
            "required": ["shape"]
        });
        assert_eq!(
            render_expected(&schema),
            r#"{shape: {Circle: {radius: number}} | {Square: {side: number}} | "Point"}"#
        );
    }

    use serde_json::json;

    use super::*;

    #[test]
    fn renders_the_weather_tool() {
        let schema = json!({
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"$ref": "#/$defs/Unit", "default": "celsius"},
                "max_results": {"type": "integer", "format": "uint32", "minimum": 0}
            },
            "required": ["location"],
            "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}
        });
        assert_eq!(
            render_expected(&schema),
            r#"{location: string, unit?: "celsius" | "fahrenheit", max_results?: integer}"#
        );
    }

    #[test]
    fn resolves_a_reference_one_level_and_says_object_deeper() {
        let schema = json!({
            "type": "object",
            "properties": {"filters": {"$ref": "#/$defs/Filters"}},
            "required": ["filters"],
            "$defs": {
                "Filters": {"type": "object", "properties": {
                    "a": {"type": "string"},
                    "b": {"type": "integer"},
                    "range": {"$ref": "#/$defs/Range"}
                }, "required": ["a"]},
                "Range": {"type": "object", "properties": {"from": {"type": "integer"}}}
            }
        });
        assert_eq!(render_expected(&schema), "{filters: {a: string, b?: integer, range?: object}}");
    }

    #[test]
    fn arrays_maps_nullables_and_unions() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "modes": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                "note": {"type": ["string", "null"]},
                "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
                "any": true,
                "max-results": {"type": "integer"}
            },
            "required": ["tags"],
            "$defs": {"Unit": {"oneOf": [{"const": "c", "description": "C."}, {"const": "f"}]}}
        });
        assert_eq!(
            render_expected(&schema),
            r#"{tags: string[], modes?: ("a" | "b")[], counts?: {[key: string]: integer}, note?: string | null, unit?: "c" | "f" | null, pair?: [string, number], any?: any, "max-results"?: integer}"#
        );
    }

    #[test]
    fn long_enums_are_cut() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "string", "enum": ["a", "b", "c", "d", "e", "f", "g", "h"]}
        }, "required": ["n"]});
        assert_eq!(render_expected(&schema), r#"{n: "a" | "b" | "c" | "d" | "e" | …}"#);
    }

    #[test]
    fn empty_and_odd_schemas_do_not_panic() {
        assert_eq!(render_expected(&json!({"type": "object", "properties": {}})), "{}");
        assert_eq!(render_expected(&json!({"type": "object"})), "{}");
        assert_eq!(render_expected(&json!(null)), "any");
        assert_eq!(render_expected(&json!({"$ref": "#/$defs/Missing"})), "any");
        let cycle = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}});
        // A cycle of references alone: named where it closes.
        assert_eq!(render_expected(&cycle), "A");
    }

    #[test]
    fn a_recursive_enum_is_named_where_it_recurs_and_renders_once() {
        // `enum Expr { Num(f64), Add(Box<Expr>, Box<Expr>), Mul(Box<Expr>, Box<Expr>) }`:
        // the cycle passes through no object, so depth never ends it; before, each level
        // rendered the next four times (4^16 renders).
        let expr = |tag: &str| {
            json!({"type": "object", "properties": {tag: {"type": "array", "prefixItems": [
                {"$ref": "#/$defs/Expr"}, {"$ref": "#/$defs/Expr"}
            ], "minItems": 2, "maxItems": 2}}, "required": [tag]})
        };
        let schema = json!({
            "type": "object",
            "properties": {"expr": {"$ref": "#/$defs/Expr"}},
            "required": ["expr"],
            "$defs": {"Expr": {"oneOf": [
                {"type": "object", "properties": {"Num": {"type": "number"}}, "required": ["Num"]},
                expr("Add"),
                expr("Mul")
            ]}}
        });
        assert_eq!(render_expected(&schema), "{expr: {Num: number} | {Add: [Expr, Expr]} | {Mul: [Expr, Expr]}}");
    }

    #[test]
    fn references_that_branch_without_recursing_stop_at_a_budget() {
        // D0 holds two D1s, D1 two D2s, … D15 is a string: 2^16 leaves, all distinct paths.
        let mut defs = serde_json::Map::new();
        for i in 0..15 {
            let next = json!({"$ref": format!("#/$defs/D{}", i + 1)});
            defs.insert(format!("D{i}"), json!({"type": "array", "prefixItems": [next.clone(), next]}));
        }
        defs.insert("D15".into(), json!({"type": "string"}));
        let schema =
            json!({"type": "object", "properties": {"d": {"$ref": "#/$defs/D0"}}, "required": ["d"], "$defs": defs});
        let rendered = render_expected(&schema);
        assert!(rendered.starts_with("{d: [[[[") && rendered.contains('…'), "{rendered}");
        assert!(rendered.len() < 20_000, "{} bytes", rendered.len());
    }

    #[test]
    fn recursive_types_end_in_object() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "required": ["tree"],
            "$defs": {"Node": {"type": "object", "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }, "required": ["value", "children"]}}
        });
        assert_eq!(render_expected(&schema), "{tree: {value: integer, children: object[]}}");
    }
}
