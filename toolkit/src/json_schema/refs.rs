//! References inside one schema document: resolving `$ref` (`#/$defs/Name`, `#`) and
//! telling which definitions refer back to themselves.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// The keywords that may stand beside a `$ref` without constraining anything: when a
/// reference is inlined, these siblings override the definition's own.
const ANNOTATIONS: &[&str] =
    &["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"];

/// The definitions of one schema document (its root), for resolving references.
pub(crate) struct Defs<'a> {
    root: &'a Value,
}

impl<'a> Defs<'a> {
    /// The definitions reachable from `root`.
    pub(crate) fn new(root: &'a Value) -> Self {
        Defs { root }
    }

    /// The schema a local reference (`#`, `#/$defs/Name`, any JSON pointer) points at;
    /// `None` for remote or dangling references.
    pub(crate) fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    /// Whether following references from `reference`'s target can lead back to it (a
    /// recursive type, which cannot be inlined). Dangling references are not recursive.
    pub(crate) fn is_recursive(&self, reference: &str) -> bool {
        let mut seen = HashSet::new();
        let mut pending = Vec::new();
        if let Some(target) = self.resolve(reference) {
            collect_refs(target, &mut pending);
        }
        while let Some(next) = pending.pop() {
            if next == reference {
                return true;
            }
            if seen.insert(next.clone())
                && let Some(target) = self.resolve(&next)
            {
                collect_refs(target, &mut pending);
            }
        }
        false
    }
}

/// Every `$ref` string inside `schema`, in document order (duplicates included).
pub(crate) fn collect_refs(schema: &Value, into: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(reference)) => into.push(reference.clone()),
                    // Literal values: a default or an enum value that looks like a
                    // reference is data, not a reference.
                    ("default" | "const" | "enum" | "examples", _) => {}
                    _ => collect_refs(value, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, into)),
        _ => {}
    }
}

/// A schema whose `allOf` has exactly one member, read as that member with the
/// schema's other keywords laid over it ([`overlay`]); `None` otherwise. How every
/// export reads a lone `allOf` (schemars' way of putting keywords beside a reference).
pub(crate) fn lone_all_of(map: &Map<String, Value>) -> Option<Value> {
    let Some(Value::Array(all)) = map.get("allOf") else { return None };
    let [only] = all.as_slice() else { return None };
    let mut rest = map.clone();
    rest.shift_remove("allOf");
    Some(overlay(only, &rest))
}

/// A reference's definition with the reference's siblings laid over it: annotations
/// (`description`, `default`, ...) from the use site win; other siblings only fill in
/// what the definition lacks, so they can never loosen it.
pub(crate) fn overlay(definition: &Value, siblings: &Map<String, Value>) -> Value {
    let mut merged = match definition {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    for (key, value) in siblings {
        if key == "$ref" {
            continue;
        }
        if ANNOTATIONS.contains(&key.as_str()) || !merged.contains_key(key) {
            merged.insert(key.clone(), value.clone());
        }
    }
    Value::Object(merged)
}

/// Whether a schema is a bare `{"type": "null"}` (the `None` branch of an `Option`).
pub(crate) fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        && schema.as_object().is_some_and(|map| map.keys().all(|k| k == "type" || k == "description"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn doc() -> Value {
        json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}, "unit": {"$ref": "#/$defs/Unit"}},
            "$defs": {
                "Node": {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}}},
                "Unit": {"type": "string", "enum": ["c", "f"]},
                "A": {"$ref": "#/$defs/B"},
                "B": {"type": "array", "items": {"$ref": "#/$defs/A"}}
            }
        })
    }

    #[test]
    fn resolves_local_pointers_and_rejects_others() {
        let root = doc();
        let defs = Defs::new(&root);
        assert_eq!(defs.resolve("#/$defs/Unit"), Some(&json!({"type": "string", "enum": ["c", "f"]})));
        assert_eq!(defs.resolve("#"), Some(&root));
        assert_eq!(defs.resolve("#/$defs/Missing"), None);
        assert_eq!(defs.resolve("https://example.com/schema"), None);
    }

    #[test]
    fn finds_direct_and_mutual_recursion() {
        let root = doc();
        let defs = Defs::new(&root);
        assert!(defs.is_recursive("#/$defs/Node"));
        assert!(defs.is_recursive("#/$defs/A"));
        assert!(!defs.is_recursive("#/$defs/Unit"));
        assert!(!defs.is_recursive("#/$defs/Missing"));
    }

    #[test]
    fn overlay_lets_annotations_win_but_not_constraints() {
        let def = json!({"type": "string", "enum": ["c", "f"], "description": "Unit."});
        let site = json!({"$ref": "#/$defs/Unit", "description": "Which unit.", "default": "c", "type": "integer"});
        let merged = overlay(&def, site.as_object().unwrap());
        assert_eq!(merged, json!({"type": "string", "enum": ["c", "f"], "description": "Which unit.", "default": "c"}));
    }

    #[test]
    fn a_lone_all_of_is_its_member_under_the_sites_keywords() {
        let site = json!({"allOf": [{"type": "string", "description": "Inner."}], "description": "Outer."});
        assert_eq!(lone_all_of(site.as_object().unwrap()), Some(json!({"type": "string", "description": "Outer."})));
        let two = json!({"allOf": [{"type": "string"}, {"minLength": 1}]});
        assert_eq!(lone_all_of(two.as_object().unwrap()), None);
        assert_eq!(lone_all_of(json!({"type": "string"}).as_object().unwrap()), None);
    }
}
