//! Visits every subschema reachable from a schema's root, following references, with
//! a readable path to each: how compatibility rules find what a provider cannot take.

use serde_json::Value;

use crate::json_schema::refs::Defs;

/// At most this many subschemas are visited: a bound for adversarial schemas (a wide
/// graph of shared definitions is walked once per use site).
const BUDGET: usize = 20_000;

/// What a rule found that a provider cannot take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// Where, as in [`Site::path`].
    pub(crate) path: String,
    /// What the provider cannot take and what to do.
    pub(crate) rule: String,
}

/// Keywords that state a rule by conditions or over parts of a value (`not`,
/// `if`/`then`/`else`, dependencies, `patternProperties`, `unevaluated*`, `contains`):
/// no provider's reduced schema takes them, so every export that reduces drops them.
pub(crate) const CONDITIONAL: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
];

/// One problem per keyword of `keywords` that `map` holds: `provider` drops it, so the
/// model is not told that rule.
pub(crate) fn dropped_rules<'k>(
    map: &serde_json::Map<String, Value>,
    path: &str,
    keywords: impl IntoIterator<Item = &'k str>,
    provider: &str,
    found: &mut Vec<Problem>,
) {
    for keyword in keywords.into_iter().filter(|k| map.contains_key(*k)) {
        found.push(Problem {
            path: path.to_string(),
            rule: format!(
                "`{keyword}`; {provider} does not take it, so it is dropped and the model is not told that rule"
            ),
        });
    }
}

/// One subschema as a rule sees it.
pub(crate) struct Site<'a> {
    /// A readable path from the root: `filters.tags` (properties), `items[]` (array
    /// elements), `pair[1]` (tuple elements), `labels.*` (map values); empty at the root.
    pub(crate) path: &'a str,
    /// The subschema (an object, or a boolean schema).
    pub(crate) schema: &'a Value,
    /// How many objects enclose this value, this one included when it is an object.
    pub(crate) depth: usize,
    /// The reference this node makes when it leads back into a definition that is
    /// being visited already (a recursive type); the walk does not follow it.
    pub(crate) cycle: Option<&'a str>,
}

/// Calls `visit` on every subschema reachable from `root`, in document order.
pub(crate) fn walk(root: &Value, visit: &mut dyn FnMut(&Site<'_>)) {
    // `#` (the root itself) is being visited from the start: a reference back to it
    // is a cycle.
    let mut walker = Walker { defs: Defs::new(root), stack: vec!["#".to_string()], budget: BUDGET };
    walker.node(root, "", 0, visit);
}

struct Walker<'a> {
    defs: Defs<'a>,
    /// References being followed, outermost first.
    stack: Vec<String>,
    budget: usize,
}

impl<'a> Walker<'a> {
    fn node(&mut self, schema: &'a Value, path: &str, depth: usize, visit: &mut dyn FnMut(&Site<'_>)) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let depth = depth + usize::from(is_object(schema));
        let reference = schema.get("$ref").and_then(Value::as_str);
        let cycle = reference.filter(|r| self.stack.iter().any(|s| s == r));
        visit(&Site { path, schema, depth, cycle });
        let Some(map) = schema.as_object() else { return };

        if let Some(reference) = reference
            && cycle.is_none()
            && let Some(target) = self.defs.resolve(reference)
        {
            self.stack.push(reference.to_string());
            // The reference node itself is not an object; its target may be.
            self.node(target, path, depth - usize::from(is_object(schema)), visit);
            self.stack.pop();
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (name, property) in properties {
                self.node(property, &join(path, name), depth, visit);
            }
        }
        if let Some(items) = map.get("items").filter(|i| i.is_object()) {
            self.node(items, &format!("{path}[]"), depth, visit);
        }
        if let Some(Value::Array(tuple)) = map.get("prefixItems") {
            for (i, item) in tuple.iter().enumerate() {
                self.node(item, &format!("{path}[{i}]"), depth, visit);
            }
        }
        for key in ["additionalProperties", "propertyNames"] {
            if let Some(values) = map.get(key).filter(|v| v.is_object()) {
                self.node(values, &join(path, "*"), depth, visit);
            }
        }
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            for values in patterns.values() {
                self.node(values, &join(path, "*"), depth, visit);
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(variants)) = map.get(key) {
                for variant in variants {
                    self.node(variant, path, depth - usize::from(is_object(schema)), visit);
                }
            }
        }
        for key in ["not", "if", "then", "else", "contains"] {
            if let Some(sub) = map.get(key).filter(|v| v.is_object()) {
                self.node(sub, path, depth, visit);
            }
        }
    }
}

/// Whether a schema describes an object (its `type` is or includes `"object"`, or it
/// lists properties).
pub(crate) fn is_object(schema: &Value) -> bool {
    schema.as_object().is_some_and(is_object_map)
}

/// [`is_object`] of a schema's map.
pub(crate) fn is_object_map(schema: &serde_json::Map<String, Value>) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => schema.get("properties").is_some_and(Value::is_object),
    }
}

/// `a` + `b` → `a.b`; at the root just `b`.
fn join(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_string() } else { format!("{path}.{name}") }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sites(root: &Value) -> Vec<(String, usize, Option<String>)> {
        let mut out = Vec::new();
        walk(root, &mut |site| out.push((site.path.to_string(), site.depth, site.cycle.map(str::to_string))));
        out
    }

    #[test]
    fn paths_follow_properties_items_maps_and_references() {
        let root = json!({
            "type": "object",
            "properties": {
                "filters": {"$ref": "#/$defs/Filters"},
                "ids": {"type": "array", "items": {"type": "integer"}}
            },
            "$defs": {"Filters": {"type": "object", "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "string"}}
            }}}
        });
        let paths: Vec<_> = sites(&root).into_iter().map(|(p, d, _)| (p, d)).collect();
        assert_eq!(
            paths,
            [
                ("".into(), 1),
                ("filters".into(), 1),
                ("filters".into(), 2),
                ("filters.tags".into(), 3),
                ("filters.tags.*".into(), 3),
                ("ids".into(), 1),
                ("ids[]".into(), 1),
            ]
        );
    }

    #[test]
    fn stops_at_a_recursive_reference_and_marks_it() {
        let root = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
        });
        let cycles: Vec<_> = sites(&root).into_iter().filter_map(|(p, _, c)| c.map(|c| (p, c))).collect();
        assert_eq!(cycles, [("node.children[]".to_string(), "#/$defs/Node".to_string())]);
    }

    #[test]
    fn tells_objects_apart() {
        assert!(is_object(&json!({"type": ["object", "null"]})));
        assert!(is_object(&json!({"properties": {}})));
        assert!(!is_object(&json!({"type": "string"})));
        assert!(!is_object(&json!(true)));
    }
}
