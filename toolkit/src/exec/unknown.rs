//! Unknown fields inside nested objects.
//!
//! A tool's own argument struct rejects unknown keys, but the types of its parameters
//! are the user's, and serde drops unknown keys in them without a word. The canonical
//! schema closes every plain object (`additionalProperties: false`), so the parser has
//! to agree with it: for a tool whose schema closes an object below the root, the
//! arguments text is read once more, guided by the schema, without building values.
//! Compiled once (not per tool); tools without nested objects never come here.
//!
//! In a union (`anyOf`/`oneOf`: an enum with data, `Option<Struct>`), a key that any
//! object variant lists is accepted; a key is unknown only when every object variant
//! is closed and none lists it. Objects whose keys are split across a composition
//! (`#[serde(flatten)]` of an enum, `allOf`) are not closed and not checked.

use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::schema::refs::Defs;

/// An unknown key, and the path of the object holding it (`filters`, `items[2]`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unknown {
    pub(crate) parent: String,
    pub(crate) field: String,
}

/// Whether `schema` closes an object below its root: whether [`find`] can find
/// anything the typed parse did not.
pub(crate) fn closes_nested_objects(schema: &Value) -> bool {
    let mut closed = false;
    crate::schema::walk::walk(schema, &mut |site| {
        closed |= !site.path.is_empty() && site.schema.get("additionalProperties") == Some(&Value::Bool(false));
    });
    closed
}

/// The first key in `raw` (arguments that parsed) that a closed object of `schema` does
/// not list; `None` when there is none, or when the text is not JSON.
pub(crate) fn find(raw: &str, schema: &Value) -> Option<Unknown> {
    let defs = Defs::new(schema);
    let mut path = Vec::new();
    let mut found = None;
    let node = Node { defs: &defs, schema: Some(schema), path: &mut path, found: &mut found };
    let mut reader = serde_json::Deserializer::from_str(raw);
    let _ = node.deserialize(&mut reader);
    found
}

enum Seg {
    Key(String),
    Index(usize),
}

fn render(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Seg::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// What the schema says of the keys of an object value.
struct Shape<'s> {
    /// The object schemas the value may be (more than one in a union).
    objects: Vec<&'s Map<String, Value>>,
    /// Whether keys the objects do not list may still be right (an open object, a
    /// composition, a schema that says nothing).
    open: bool,
    /// The element schemas, for an array value.
    arrays: Vec<&'s Map<String, Value>>,
}

impl<'s> Shape<'s> {
    fn of(defs: &Defs<'s>, schema: &'s Value) -> Self {
        let mut shape = Shape { objects: Vec::new(), open: false, arrays: Vec::new() };
        shape.gather(defs, schema, 0);
        shape
    }

    fn gather(&mut self, defs: &Defs<'s>, schema: &'s Value, depth: usize) {
        let Value::Object(map) = schema else {
            self.open |= schema == &Value::Bool(true);
            return;
        };
        if depth > 32 {
            self.open = true;
            return;
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            match defs.resolve(reference) {
                Some(target) => self.gather(defs, target, depth + 1),
                None => self.open = true,
            }
            return;
        }
        let composed = ["anyOf", "oneOf", "allOf"].iter().any(|k| map.contains_key(*k));
        if map.contains_key("properties") || map.contains_key("additionalProperties") {
            self.objects.push(map);
            // Keys split between this object and its composition's members.
            self.open |= composed;
        }
        if map.contains_key("items") || map.contains_key("prefixItems") {
            self.arrays.push(map);
        }
        self.open |= map.contains_key("allOf") || map.contains_key("patternProperties");
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(variants)) = map.get(key) {
                for variant in variants {
                    self.gather(defs, variant, depth + 1);
                }
            }
        }
    }

    /// The schema of key `key`'s value: `Ok(None)` when nothing is known of it,
    /// `Err(())` when the key is unknown.
    fn key(&self, key: &str) -> Result<Option<&'s Value>, ()> {
        for object in &self.objects {
            if let Some(field) = object.get("properties").and_then(|p| p.get(key)) {
                return Ok(Some(field));
            }
        }
        let closed = |o: &&Map<String, Value>| o.get("additionalProperties") == Some(&Value::Bool(false));
        if !self.open && !self.objects.is_empty() && self.objects.iter().all(closed) {
            return Err(());
        }
        Ok(self.objects.iter().find_map(|o| o.get("additionalProperties").filter(|a| a.is_object())))
    }

    fn element(&self, index: usize) -> Option<&'s Value> {
        self.arrays.iter().find_map(|array| {
            array.get("prefixItems").and_then(|p| p.get(index)).or_else(|| array.get("items").filter(|i| i.is_object()))
        })
    }
}

/// One value being read, with its schema (`None`: skip it).
struct Node<'s, 'c> {
    defs: &'c Defs<'s>,
    schema: Option<&'s Value>,
    path: &'c mut Vec<Seg>,
    found: &'c mut Option<Unknown>,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.schema.is_none() {
            return IgnoredAny::deserialize(deserializer).map(|_| ());
        }
        deserializer.deserialize_any(self)
    }
}

/// A key, borrowed from the text when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_owned().into()))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Node { defs, schema, path, found } = self;
        let shape = Shape::of(defs, schema.unwrap_or(&Value::Bool(true)));
        let mut index = 0;
        loop {
            path.push(Seg::Index(index));
            let child = Node { defs, schema: shape.element(index), path: &mut *path, found: &mut *found };
            let more = seq.next_element_seed(child)?;
            path.pop();
            if more.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Node { defs, schema, path, found } = self;
        let shape = Shape::of(defs, schema.unwrap_or(&Value::Bool(true)));
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let Ok(field) = shape.key(&key) else {
                *found = Some(Unknown { parent: render(path), field: key.into_owned() });
                return Err(de::Error::custom("unknown field"));
            };
            path.push(Seg::Key(key.into_owned()));
            let child = Node { defs, schema: field, path: &mut *path, found: &mut *found };
            map.next_value_seed(child)?;
            path.pop();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "filters": {"anyOf": [{"$ref": "#/$defs/Filters"}, {"type": "null"}]},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Filters"}},
                "labels": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Filters"}},
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"circle": {"type": "number"}}, "additionalProperties": false},
                    {"type": "object", "properties": {"square": {"type": "number"}}, "additionalProperties": false}
                ]},
                "loose": {"type": "object", "properties": {"a": {"type": "integer"}}},
                "any": true
            },
            "additionalProperties": false,
            "$defs": {"Filters": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "dueDate": {"type": "string"}
            }, "additionalProperties": false}}
        })
    }

    fn unknown(raw: &str) -> Option<(String, String)> {
        find(raw, &schema()).map(|u| (u.parent, u.field))
    }

    #[test]
    fn finds_unknown_keys_at_every_depth_with_their_parent() {
        assert_eq!(unknown(r#"{"filters": {"due": "x"}}"#), Some(("filters".into(), "due".into())));
        assert_eq!(
            unknown(r#"{"list": [{"tags": []}, {"tags": ["a"], "extra": 1}]}"#),
            Some(("list[1]".into(), "extra".into()))
        );
        assert_eq!(unknown(r#"{"labels": {"k": {"odd\"key": 1}}}"#), Some(("labels.k".into(), "odd\"key".into())));
        assert_eq!(unknown(r#"{"shape": {"triangle": 3}}"#), Some(("shape".into(), "triangle".into())));
    }

    #[test]
    fn accepts_what_the_schema_allows() {
        for raw in [
            r#"{"filters": {"tags": ["a"], "dueDate": "x"}}"#,
            r#"{"filters": null, "list": [], "labels": {}}"#,
            r#"{"shape": {"circle": 1.5}}"#,
            r#"{"shape": {"square": 2}}"#,
            r#"{"loose": {"a": 1, "b": {"c": []}}}"#,
            r#"{"any": {"whatever": [1, {"x": null}]}}"#,
        ] {
            assert_eq!(unknown(raw), None, "{raw}");
        }
    }

    #[test]
    fn knows_when_a_schema_closes_nested_objects() {
        assert!(closes_nested_objects(&schema()));
        let flat = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false});
        assert!(!closes_nested_objects(&flat));
    }
}
