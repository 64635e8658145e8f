//! Builds a tool's canonical input schema from its parameters, at spec-build time
//! (once per tool). Called by the code `#[tool]` generates.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

/// A type that can be a tool parameter's schema (any `JsonSchema`); its own trait so a
/// missing `JsonSchema` is one error at the parameter's type that names the fix.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `schemars::JsonSchema`",
    label = "no JSON Schema",
    note = "add `#[derive(schemars::JsonSchema)]` to the type so the model can be shown its schema"
)]
pub trait ParamSchema: JsonSchema {}
impl<T: JsonSchema + ?Sized> ParamSchema for T {}

/// The function `#[arg(schema_with = f)]` names: it gives the parameter's whole schema.
/// Either `fn(&mut SchemaGenerator) -> Schema`, the signature of
/// `#[schemars(schema_with = ...)]` (the generator describes other types, into the tool's
/// `$defs`), or `fn() -> Schema`. `Form` tells the two apart (and, with two impls, a
/// function of neither is reported with this trait's message).
#[diagnostic::on_unimplemented(
    message = "`schema_with` takes a function `fn(&mut schemars::SchemaGenerator) -> schemars::Schema` or `fn() -> schemars::Schema`; `{Self}` is neither",
    label = "not `fn(&mut SchemaGenerator) -> Schema`",
    note = "the function returns the parameter's whole schema, as for `#[schemars(schema_with = ...)]`: `fn my_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {{ schemars::json_schema!({{\"type\": \"string\"}}) }}`"
)]
pub trait SchemaWith<Form> {
    /// The schema.
    fn schema(self, generator: &mut SchemaGenerator) -> Schema;
}
impl<F: FnOnce(&mut SchemaGenerator) -> Schema> SchemaWith<(SchemaGenerator,)> for F {
    fn schema(self, generator: &mut SchemaGenerator) -> Schema {
        self(generator)
    }
}
impl<F: FnOnce() -> Schema> SchemaWith<()> for F {
    fn schema(self, _: &mut SchemaGenerator) -> Schema {
        self()
    }
}

/// Whether a parameter must be sent.
#[doc(hidden)]
pub enum Presence {
    /// Must be sent.
    Required,
    /// May be left out (an `Option`).
    Optional,
    /// May be left out; this value is used (the JSON of the default, if it has one).
    Default(Option<Value>),
}

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| {
        s.meta_schema = None;
    })
}

/// Accumulates the properties of a tool's argument object.
#[doc(hidden)]
pub struct ArgsSchema {
    generator: SchemaGenerator,
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl Default for ArgsSchema {
    fn default() -> Self {
        ArgsSchema::new()
    }
}

impl ArgsSchema {
    /// An empty argument object.
    pub fn new() -> Self {
        ArgsSchema { generator: settings().into_generator(), properties: Map::new(), required: Vec::new() }
    }

    /// Adds one parameter. `constraints` are extra keywords (`minimum`, `pattern`, ...);
    /// the keywords of an `items` object go into the parameter's own `items` schema.
    pub fn param<T: ParamSchema + ?Sized>(
        &mut self,
        name: &str,
        description: Option<&str>,
        presence: Presence,
        constraints: Vec<(&str, Value)>,
    ) -> &mut Self {
        let schema = self.generator.subschema_for::<T>().to_value();
        self.add(name, schema, description, presence, constraints)
    }

    /// Adds one parameter whose schema a function gives (`#[arg(schema_with = f)]`): what
    /// `f` returns, with the description and default added. Definitions `f` adds to the
    /// generator (`generator.subschema_for::<T>()`) go into the tool's `$defs`.
    pub fn param_with<Form>(
        &mut self,
        name: &str,
        description: Option<&str>,
        presence: Presence,
        f: impl SchemaWith<Form>,
    ) -> &mut Self {
        let schema = f.schema(&mut self.generator).to_value();
        self.add(name, schema, description, presence, Vec::new())
    }

    fn add(
        &mut self,
        name: &str,
        mut schema: Value,
        description: Option<&str>,
        presence: Presence,
        constraints: Vec<(&str, Value)>,
    ) -> &mut Self {
        if let Value::Bool(true) = schema {
            schema = Value::Object(Map::new());
        }
        if let Value::Object(map) = &mut schema {
            // Keyword order as a reader expects it: what the value is (`type`, `$ref`,
            // `enum`), what it means, what it may be, what it defaults to.
            for (k, _) in constraints.iter().filter(|(k, _)| *k != "items") {
                map.shift_remove(*k);
            }
            if let Some(d) = description.filter(|d| !d.is_empty()) {
                map.insert("description".into(), Value::String(d.to_string()));
            }
            for (k, v) in constraints {
                match (k, v, map.get_mut("items")) {
                    ("items", Value::Object(extra), Some(Value::Object(items))) => items.extend(extra),
                    (k, v, _) => {
                        map.insert(k.to_string(), v);
                    }
                }
            }
            if let Presence::Default(Some(v)) = &presence {
                map.insert("default".into(), v.clone());
            }
            nullable_enum(map);
        }
        if let Presence::Required = presence {
            self.required.push(Value::String(name.to_string()));
        }
        self.properties.insert(name.to_string(), schema);
        self
    }

    /// The finished canonical schema.
    pub fn finish(&mut self) -> Value {
        let mut root = Map::new();
        root.insert("type".into(), "object".into());
        root.insert("properties".into(), Value::Object(std::mem::take(&mut self.properties)));
        if !self.required.is_empty() {
            root.insert("required".into(), Value::Array(std::mem::take(&mut self.required)));
        }
        root.insert("additionalProperties".into(), false.into());
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        let mut root = Value::Object(root);
        normalize(&mut root);
        close_objects(&mut root, true);
        root
    }
}

/// An `enum` beside a `type` that admits `null` lists `null` too: `one_of = [1, 2]` on an
/// `Option<i64>` gives `{"type": ["integer", "null"], "enum": [1, 2, null]}`. Without it,
/// the schema would refuse the `null` the parser takes (and the field could not be left
/// out in strict mode, where "absent" is sent as `null`).
fn nullable_enum(map: &mut Map<String, Value>) {
    let typed_null = match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => false,
    };
    if typed_null
        && let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// The canonical schema of a typed output.
pub(crate) fn output_schema<T: JsonSchema + ?Sized>() -> Value {
    let mut schema = settings().into_generator().into_root_schema_for::<T>().to_value();
    normalize(&mut schema);
    schema
}

/// Integer/float formats schemars emits that are not JSON Schema formats; providers
/// reject or ignore them, and the `minimum` schemars adds beside them says what matters.
const NON_STANDARD_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32", "uint64", "uint128",
    "float", "double",
];

/// Closes every plain object (`additionalProperties: false`), as the parser treats it:
/// a key a parameter's struct does not list is an error at any depth, not dropped
/// (see `exec::unknown`). Objects whose keys a composition shares (a flattened enum:
/// `properties` beside `oneOf`; `allOf`) and maps are left as they are.
fn close_objects(schema: &mut Value, closable: bool) {
    let Value::Object(map) = schema else { return };
    let composed = ["anyOf", "oneOf", "allOf"].iter().any(|k| map.contains_key(*k));
    let has_properties = map.contains_key("properties");
    if closable
        && has_properties
        && !composed
        && !["additionalProperties", "patternProperties", "unevaluatedProperties"].iter().any(|k| map.contains_key(*k))
    {
        map.insert("additionalProperties".into(), false.into());
    }
    for (key, value) in map.iter_mut() {
        match (key.as_str(), value) {
            ("properties" | "$defs", Value::Object(children)) => {
                children.values_mut().for_each(|child| close_objects(child, true));
            }
            ("allOf", Value::Array(members)) => members.iter_mut().for_each(|m| close_objects(m, false)),
            ("anyOf" | "oneOf", Value::Array(variants)) => {
                variants.iter_mut().for_each(|v| close_objects(v, !has_properties));
            }
            ("prefixItems", Value::Array(items)) => items.iter_mut().for_each(|item| close_objects(item, true)),
            ("items" | "additionalProperties", value) => close_objects(value, true),
            _ => {}
        }
    }
}

/// A subschema written `true` (schemars' `serde_json::Value`) as `{}`, which means the
/// same: every export and check then sees the untyped value (a boolean `items` was
/// skipped by them, and dropped by the OpenAI strict and Gemini exports, leaving an
/// array without `items`, which both refuse).
fn untyped(schema: &mut Value) {
    if *schema == Value::Bool(true) {
        *schema = Value::Object(Map::new());
    }
}

/// Removes noise (`$schema`, `title`, non-standard formats) everywhere in a schema, and
/// writes `true` subschemas as `{}`.
fn normalize(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.shift_remove("$schema");
            if map.get("title").is_some_and(Value::is_string) {
                map.shift_remove("title");
            }
            if map.get("format").and_then(Value::as_str).is_some_and(|f| NON_STANDARD_FORMATS.contains(&f)) {
                map.shift_remove("format");
            }
            for (key, value) in map.iter_mut() {
                // `properties` and `$defs` hold names, not keywords: a property called
                // `title` must survive.
                if key == "properties" || key == "$defs" || key == "patternProperties" {
                    if let Value::Object(children) = value {
                        children.values_mut().for_each(|child| {
                            untyped(child);
                            normalize(child);
                        });
                    }
                } else if key == "items" {
                    untyped(value);
                    normalize(value);
                } else if matches!(key.as_str(), "prefixItems" | "anyOf" | "oneOf" | "allOf") {
                    if let Value::Array(members) = value {
                        members.iter_mut().for_each(|member| {
                            untyped(member);
                            normalize(member);
                        });
                    }
                } else if key != "default" && key != "const" && key != "enum" && key != "examples" {
                    normalize(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize),
        _ => {}
    }
}
