//! Unknown fields inside nested objects.
//!
//! A tool's own argument struct rejects unknown keys, but the types of its parameters
//! are the user's, and serde drops unknown keys in them without a word. The canonical
//! schema closes every plain object (`additionalProperties: false`), so the parser has
//! to agree with it: for a tool whose schema closes an object below the root, the
//! arguments text is read once more, without building values, guided by a [`KeyCheck`]
//! compiled from the schema when the spec is made (property names in short lists, one
//! node per schema, references as indices). Not generic; tools without nested objects
//! never come here.
//!
//! In a union (`anyOf`/`oneOf`: an enum with data, `Option<Struct>`), a key that any
//! object variant lists is accepted; a key is unknown only when every object variant
//! is closed and none lists it. Objects whose keys are split across a composition
//! (`#[serde(flatten)]` of an enum, `allOf`) are not closed and not checked.

use std::fmt;

use std::collections::HashMap;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::json_path::{self, Step};
use crate::json_schema::refs::Defs;

/// An unknown key, and the path of the object holding it (`filters`, `items[2]`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unknown {
    pub(crate) parent: String,
    pub(crate) field: String,
}

/// A typed tool's [`KeyCheck`], compiled on the first parse that needs it (never for
/// tools that parse into a JSON object: run-time and imported tools). Held by the
/// toolbox's entry for the tool, not by its spec: the spec is what the model is shown.
#[derive(Debug, Default)]
pub(crate) struct LazyKeyCheck(std::sync::OnceLock<Option<KeyCheck>>);

impl LazyKeyCheck {
    /// The check for `schema`, compiled the first time.
    pub(crate) fn get(&self, schema: &Value) -> Option<&KeyCheck> {
        self.0.get_or_init(|| KeyCheck::compile(schema)).as_ref()
    }
}

/// A schema compiled for finding unknown keys: node 0 is the root.
#[derive(Debug, PartialEq)]
pub(crate) struct KeyCheck {
    nodes: Vec<Shape>,
}

/// One schema node.
#[derive(Debug, Default, PartialEq)]
struct Shape {
    /// The properties it lists, with their values' nodes (`None`: nothing to check).
    properties: Vec<(Box<str>, Option<u32>)>,
    /// Whether it describes an object (lists properties, or has `additionalProperties`).
    object: bool,
    /// `additionalProperties: false`, with no composition sharing its keys.
    closed: bool,
    /// Keys it does not list may be right whatever it says (`allOf`, `patternProperties`,
    /// properties beside a union: keys split across a composition).
    shared: bool,
    /// The node of a map's values.
    values: Option<u32>,
    /// The node of an array's elements, and of a tuple's.
    items: Option<u32>,
    prefix: Vec<Option<u32>>,
    /// The members of its unions and compositions (a reference is one member).
    variants: Vec<u32>,
    /// `true` as a schema: anything goes.
    anything: bool,
}

/// At most this many nodes are compiled (a bound for adversarial schemas); a schema
/// past it is not checked.
const MAX_NODES: usize = 20_000;
/// At most this many unions are followed from one node when looking up a key.
const MAX_DEPTH: usize = 32;

impl KeyCheck {
    /// The check for `schema`, or `None` when it closes no object below the root (the
    /// typed parse already rejects unknown keys at the root) or is too big to compile.
    pub(crate) fn compile(schema: &Value) -> Option<KeyCheck> {
        let mut compiler = Compiler { defs: Defs::new(schema), nodes: Vec::new(), refs: HashMap::new() };
        compiler.node(schema)?;
        let check = KeyCheck { nodes: compiler.nodes };
        check.nodes.iter().skip(1).any(|n| n.closed).then_some(check)
    }

    /// The first key in `raw` (arguments that parsed) that a closed object does not
    /// list; `None` when there is none, or when the text is not JSON. Allocates only
    /// when it finds one (the path is gathered while the error unwinds).
    pub(crate) fn find(&self, raw: &str) -> Option<Unknown> {
        let mut found = None;
        let node = Node { check: self, at: Some(0), found: &mut found };
        let mut reader = serde_json::Deserializer::from_str(raw);
        let _ = node.deserialize(&mut reader);
        found.map(|f: Found| Unknown { parent: json_path::write(f.parent.iter().rev()), field: f.field })
    }

    fn shape(&self, at: u32) -> &Shape {
        &self.nodes[at as usize]
    }

    /// The node of property `key` of the first object node `at` may be that lists it.
    fn property(&self, at: u32, key: &str, depth: usize) -> Option<Option<u32>> {
        let shape = self.shape(at);
        if let Some((_, child)) = shape.properties.iter().find(|(name, _)| &**name == key) {
            return Some(*child);
        }
        if depth >= MAX_DEPTH {
            return None;
        }
        shape.variants.iter().find_map(|v| self.property(*v, key, depth + 1))
    }

    fn first(&self, at: u32, depth: usize, pick: &impl Fn(&Shape) -> Option<u32>) -> Option<u32> {
        let shape = self.shape(at);
        pick(shape).or_else(|| {
            if depth >= MAX_DEPTH {
                return None;
            }
            shape.variants.iter().find_map(|v| self.first(*v, depth + 1, pick))
        })
    }

    /// Whether every object node `at` may be is closed (and it may be one).
    fn closed(&self, at: u32) -> bool {
        self.keys(at, 0) == Keys::Closed
    }

    fn keys(&self, at: u32, depth: usize) -> Keys {
        let shape = self.shape(at);
        if shape.anything || shape.shared || depth >= MAX_DEPTH {
            return Keys::Open;
        }
        let mut found = match (shape.object, shape.closed) {
            (false, _) => Keys::NoObject,
            (true, true) => Keys::Closed,
            (true, false) => return Keys::Open,
        };
        for variant in &shape.variants {
            match self.keys(*variant, depth + 1) {
                Keys::Open => return Keys::Open,
                Keys::Closed => found = Keys::Closed,
                Keys::NoObject => {}
            }
        }
        found
    }
}

/// How a schema constrains the keys of an object value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// No object shape at all (a string-only schema, say).
    NoObject,
    /// Every object it may be is closed: keys it does not list are unknown.
    Closed,
    /// Some key it does not list may still be right.
    Open,
}

struct Compiler<'s> {
    defs: Defs<'s>,
    nodes: Vec<Shape>,
    /// References compiled or being compiled, and their nodes (a recursive type points
    /// back at its own node).
    refs: HashMap<&'s str, u32>,
}

impl<'s> Compiler<'s> {
    fn node(&mut self, schema: &'s Value) -> Option<u32> {
        if self.nodes.len() >= MAX_NODES {
            return None;
        }
        let at = self.nodes.len() as u32;
        self.nodes.push(Shape::default());
        let mut shape = Shape::default();
        match schema {
            Value::Object(map) => self.fill(map, &mut shape)?,
            Value::Bool(true) => shape.anything = true,
            _ => {}
        }
        self.nodes[at as usize] = shape;
        Some(at)
    }

    fn reference(&mut self, reference: &'s str) -> Option<u32> {
        if let Some(at) = self.refs.get(reference) {
            return Some(*at);
        }
        let target = self.defs.resolve(reference)?;
        // Reserve the node before compiling the target, so a recursive type finds it.
        let at = self.nodes.len() as u32;
        self.refs.insert(reference, at);
        let compiled = self.node(target)?;
        debug_assert_eq!(compiled, at);
        Some(at)
    }

    fn fill(&mut self, map: &'s Map<String, Value>, shape: &mut Shape) -> Option<()> {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            match self.reference(reference) {
                Some(target) => shape.variants.push(target),
                None if self.nodes.len() >= MAX_NODES => return None,
                // A reference that leads nowhere says nothing.
                None => shape.anything = true,
            }
        }
        let composed = ["anyOf", "oneOf", "allOf"].iter().any(|k| map.contains_key(*k));
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let child = self.node(property)?;
                shape.properties.push((name.as_str().into(), Some(child)));
            }
        }
        shape.object = map.contains_key("properties") || map.contains_key("additionalProperties");
        shape.closed = map.get("additionalProperties") == Some(&Value::Bool(false));
        shape.shared = map.contains_key("allOf") || map.contains_key("patternProperties") || (shape.object && composed);
        if let Some(values) = map.get("additionalProperties").filter(|v| v.is_object()) {
            shape.values = Some(self.node(values)?);
        }
        if let Some(items) = map.get("items").filter(|v| v.is_object()) {
            shape.items = Some(self.node(items)?);
        }
        if let Some(Value::Array(tuple)) = map.get("prefixItems") {
            for item in tuple {
                let child = self.node(item)?;
                shape.prefix.push(Some(child));
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(variants)) = map.get(key) {
                for variant in variants {
                    let child = self.node(variant)?;
                    shape.variants.push(child);
                }
            }
        }
        Some(())
    }
}

/// What was found: the key, and the path to its object, innermost step first (each
/// level adds its own step as the error passes through it).
struct Found {
    field: String,
    parent: Vec<Step<String>>,
}

/// One value being read, with its node (`None`: skip it).
struct Node<'k, 'c> {
    check: &'k KeyCheck,
    at: Option<u32>,
    found: &'c mut Option<Found>,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.at.is_none() {
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
        let Node { check, at, found } = self;
        let mut index = 0;
        loop {
            let element =
                at.and_then(|at| check.first(at, 0, &|s: &Shape| s.prefix.get(index).copied().flatten().or(s.items)));
            let child = Node { check, at: element, found: &mut *found };
            match seq.next_element_seed(child) {
                Ok(Some(())) => index += 1,
                Ok(None) => return Ok(()),
                Err(e) => {
                    if let Some(f) = found.as_mut() {
                        f.parent.push(Step::Index(index));
                    }
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Node { check, at, found } = self;
        // Whether unlisted keys are unknown: decided at the first one, if any.
        let mut closed = None;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let field = match at {
                None => None,
                Some(at) => match check.property(at, &key, 0) {
                    Some(field) => field,
                    None => {
                        if *closed.get_or_insert_with(|| check.closed(at)) {
                            *found = Some(Found { field: key.into_owned(), parent: Vec::new() });
                            return Err(de::Error::custom("unknown field"));
                        }
                        check.first(at, 0, &|s: &Shape| s.values)
                    }
                },
            };
            let child = Node { check, at: field, found: &mut *found };
            if let Err(e) = map.next_value_seed(child) {
                if let Some(f) = found.as_mut() {
                    f.parent.push(Step::Key(key.into_owned()));
                }
                return Err(e);
            }
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
        KeyCheck::compile(&schema()).unwrap().find(raw).map(|u| (u.parent, u.field))
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
    fn a_recursive_type_is_checked_at_every_level() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "additionalProperties": false,
            "$defs": {"Node": {"type": "object", "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }, "additionalProperties": false}}
        });
        let check = KeyCheck::compile(&schema).unwrap();
        let raw = r#"{"tree": {"value": 1, "children": [{"value": 2, "children": [{"value": 3, "kids": []}]}]}}"#;
        let found = check.find(raw).unwrap();
        assert_eq!((found.parent.as_str(), found.field.as_str()), ("tree.children[0].children[0]", "kids"));
        assert_eq!(check.find(r#"{"tree": {"value": 1, "children": [{"value": 2}]}}"#), None);
    }

    #[test]
    fn knows_when_a_schema_closes_nested_objects() {
        assert!(KeyCheck::compile(&schema()).is_some());
        let flat = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false});
        assert!(KeyCheck::compile(&flat).is_none());
    }
}
