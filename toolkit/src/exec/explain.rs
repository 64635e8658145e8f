//! Argument errors in the model's terms: what was found at a path, what the schema wants
//! there ("one of \"celsius\", \"fahrenheit\"", "an integer from 0 to 255", never a Rust
//! type), the nearest field name for an unknown one, and the part of a big tool's
//! signature where the error is. Compiled once, used on the error path only.
//!
//! A union (`oneOf`/`anyOf`: an enum with data) is read as the variant the value is meant
//! for ([`branch`]): the one its tag names, or the one holding its keys, or the only one
//! of its JSON type. So an error inside a variant is named by its own path
//! (`sev.number`), and a tag that names no variant is an error at the tag (`kind`).

use serde_json::{Map, Value};

use super::json_path::{self, Step};
use crate::json_schema::refs::Defs;
use crate::json_schema::render::Render;

/// A tool signature longer than this is cut to the object where the error is.
const LONG_SIGNATURE: usize = 200;
/// Enum values listed before `…`.
const MAX_LISTED: usize = 8;
/// Nested unions followed before giving up (a union of unions of ...).
const MAX_UNION_DEPTH: usize = 8;

/// The value at `path` in the arguments.
pub(crate) fn value_at<'v>(args: &'v Value, path: &str) -> Option<&'v Value> {
    json_path::parse(path).iter().try_fold(args, |value, step| match step {
        Step::Key(key) => value.get(*key),
        Step::Index(i) => value.get(*i),
    })
}

/// The schema of the value at `path` (references and optional wrappers followed; in a
/// union, the variant that has the next key).
pub(crate) fn schema_at<'s>(root: &'s Value, path: &str) -> Option<&'s Value> {
    match locate(root, None, path)? {
        Located::Schema(schema) => Some(schema),
        Located::Tag(_) => None,
    }
}

/// What `path` leads to in the schema, read with the arguments (so a union is read as
/// the variant each value is meant for).
enum Located<'s> {
    Schema(&'s Value),
    /// The path ends at a union's tag, and the tag sent names no variant: the tags there are.
    Tag(Vec<&'s Value>),
}

fn locate<'s>(root: &'s Value, args: Option<&Value>, path: &str) -> Option<Located<'s>> {
    let defs = Defs::new(root);
    let steps = json_path::parse(path);
    let mut schema = resolve(&defs, root);
    let mut value = args;
    for (i, step) in steps.iter().enumerate() {
        if i + 1 == steps.len()
            && let (Step::Key(key), Meant::Tag(tag, tags)) = (step, meant(&defs, schema, value, Some(*step)))
            && tag == *key
        {
            return Some(Located::Tag(tags));
        }
        schema = below(&defs, schema, *step, value, 0)?;
        value = value.and_then(|v| child_value(v, *step));
    }
    Some(Located::Schema(schema))
}

/// Whether the schema describes the value at `path` (a tag that names no variant counts:
/// the schema says what the tag may be).
pub(crate) fn knows(root: &Value, args: Option<&Value>, path: &str) -> bool {
    locate(root, args, path).is_some()
}

/// What the schema wants at `path`, in words; `range` is the bounds of the Rust integer
/// type serde expected there, if it named one.
pub(crate) fn wanted_at(root: &Value, args: Option<&Value>, path: &str, range: Option<IntRange>) -> Option<String> {
    match locate(root, args, path)? {
        Located::Schema(schema) => Some(wanted(root, schema, range)),
        Located::Tag(tags) => Some(one_of(tags)),
    }
}

fn child_value<'v>(value: &'v Value, step: Step<&str>) -> Option<&'v Value> {
    match step {
        Step::Key(key) => value.get(key),
        Step::Index(i) => value.get(i),
    }
}

/// The schema one step below `schema` (references and optional wrappers followed).
/// `container` is the value at `schema`, when known: in a union, it picks the variant.
fn below<'s>(
    defs: &Defs<'s>,
    schema: &'s Value,
    step: Step<&str>,
    container: Option<&Value>,
    depth: usize,
) -> Option<&'s Value> {
    let map = schema.as_object()?;
    let own = match step {
        Step::Key(key) => map
            .get("properties")
            .and_then(|p| p.get(key))
            .or_else(|| map.get("additionalProperties").filter(|v| v.is_object())),
        Step::Index(i) => map.get("prefixItems").and_then(|p| p.get(i)).or_else(|| map.get("items")),
    };
    if let Some(next) = own {
        return Some(resolve(defs, next));
    }
    match meant(defs, schema, container, Some(step)) {
        Meant::Schema(variant) if depth < MAX_UNION_DEPTH && !std::ptr::eq(variant, schema) => {
            below(defs, variant, step, container, depth + 1)
        }
        _ => None,
    }
}

/// The variants of a union (`oneOf`/`anyOf`), if `schema` is one.
pub(super) fn union_of(schema: &Value) -> Option<&[Value]> {
    ["oneOf", "anyOf"].iter().find_map(|k| schema.get(*k)).and_then(Value::as_array).map(Vec::as_slice)
}

/// What a value of a union is meant to be.
pub(super) enum Meant<'s> {
    /// This schema (not a union, or the variant chosen).
    Schema(&'s Value),
    /// The value's tag (`key`, a property the variants fix with `const`) names none of
    /// them: the tags there are.
    Tag(String, Vec<&'s Value>),
    /// No way to tell.
    Unknown,
}

/// `schema`, or for a union the variant `value` is meant for (see [`branch`]), through
/// nested unions.
pub(super) fn meant<'s>(
    defs: &Defs<'s>,
    mut schema: &'s Value,
    value: Option<&Value>,
    step: Option<Step<&str>>,
) -> Meant<'s> {
    for _ in 0..MAX_UNION_DEPTH {
        let Some(variants) = union_of(schema) else { return Meant::Schema(schema) };
        match branch(defs, variants, value, step) {
            Meant::Schema(variant) => schema = variant,
            other => return other,
        }
    }
    Meant::Schema(schema)
}

/// The variant of a union a value is meant for: with a value that is an object, the
/// variant whose constant properties (an internally tagged enum's tag) it matches, or
/// else the one that lists every key it has (an externally tagged enum's one key); with
/// `step`, a variant that has it; else the only variant of the value's JSON type.
fn branch<'s>(defs: &Defs<'s>, variants: &'s [Value], value: Option<&Value>, step: Option<Step<&str>>) -> Meant<'s> {
    let variants: Vec<&'s Value> = variants.iter().map(|v| resolve(defs, v)).collect();
    let properties = |v: &'s Value| v.get("properties").and_then(Value::as_object);
    if let Some(Value::Object(fields)) = value {
        let mut wrong_tag = None;
        for variant in &variants {
            let Some(props) = properties(variant) else { continue };
            let mut tagged = false;
            let mut matches = true;
            for (key, property) in props {
                let (Some(tag), Some(sent)) = (constant(defs, property), fields.get(key)) else { continue };
                tagged = true;
                if tag != sent {
                    matches = false;
                    wrong_tag.get_or_insert(key.as_str());
                }
            }
            if tagged && matches {
                return Meant::Schema(variant);
            }
        }
        if let Some(key) = wrong_tag {
            let tags = variants.iter().filter_map(|v| properties(v)?.get(key)).filter_map(|p| constant(defs, p));
            return Meant::Tag(key.to_owned(), tags.collect());
        }
    }
    let fitting: Vec<&'s Value> = variants.iter().copied().filter(|v| value.is_none_or(|x| shape_fits(v, x))).collect();
    let has_step = |v: &&&'s Value| match step {
        Some(Step::Key(key)) => properties(v).is_some_and(|p| p.contains_key(key)),
        Some(Step::Index(_)) => v.get("items").is_some() || v.get("prefixItems").is_some(),
        None => false,
    };
    if let Some(variant) = fitting.iter().find(has_step) {
        return Meant::Schema(variant);
    }
    if let Some(Value::Object(fields)) = value
        && let Some(variant) =
            fitting.iter().find(|v| properties(v).is_some_and(|p| fields.keys().all(|k| p.contains_key(k))))
    {
        return Meant::Schema(variant);
    }
    match fitting.as_slice() {
        [only] if value.is_some() => Meant::Schema(only),
        _ => Meant::Unknown,
    }
}

/// The one value a schema allows (`const`, or an `enum` of one), if it allows one.
fn constant<'s>(defs: &Defs<'s>, schema: &'s Value) -> Option<&'s Value> {
    let schema = resolve(defs, schema);
    schema.get("const").or_else(|| match schema.get("enum") {
        Some(Value::Array(values)) if values.len() == 1 => values.first(),
        _ => None,
    })
}

/// Whether `value` has the JSON type `schema` is about (its `type`, or `properties` for an
/// object, `items` for an array); any number fits `integer`.
fn shape_fits(schema: &Value, value: &Value) -> bool {
    let fits = |kind: &str| match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" | "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    match schema.get("type") {
        Some(Value::String(kind)) => fits(kind),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).any(fits),
        _ if schema.get("properties").is_some() => value.is_object(),
        _ if schema.get("items").is_some() => value.is_array(),
        _ => true,
    }
}

/// Follows `$ref`s, and picks the non-null branch of `T | null`.
pub(super) fn resolve<'s>(defs: &Defs<'s>, mut schema: &'s Value) -> &'s Value {
    for _ in 0..16 {
        if let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| defs.resolve(r)) {
            schema = target;
            continue;
        }
        let nullable = ["anyOf", "oneOf"].iter().find_map(|k| schema.get(*k).and_then(Value::as_array));
        if let Some(branches) = nullable
            && let [a, b] = branches.as_slice()
        {
            let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
            if is_null(b) {
                schema = a;
                continue;
            }
            if is_null(a) {
                schema = b;
                continue;
            }
        }
        break;
    }
    schema
}

/// The path of the first value inside the container at `path` that its schema does not
/// admit (its type, `enum`/`const`, bounds; in a union, the tag or a value of the variant
/// meant), depth first; `None` when every value fits. serde reports an error inside a
/// `#[serde(flatten)]`ed or buffered value (an internally tagged or untagged enum) at the
/// container; this finds the place.
pub(crate) fn first_mismatch(root: &Value, args: &Value, path: &str) -> Option<String> {
    let defs = Defs::new(root);
    let value = value_at(args, path)?;
    let Located::Schema(schema) = locate(root, Some(args), path)? else { return None };
    // Each child's schema is found from its parent's, and the path written once, for the
    // value found: the work is one visit per value, whatever the keys' lengths.
    let mut found = Vec::new();
    if !mismatch_below(&defs, value, schema, 0, &mut found) {
        return None;
    }
    let mut at = path.to_string();
    for step in found.iter().rev() {
        json_path::push(&mut at, step);
    }
    Some(at)
}

/// Whether a value inside `value` (whose schema is `schema`) is one its schema does not
/// admit; if so, `found` holds the steps to it, innermost first.
fn mismatch_below<'v>(
    defs: &Defs<'_>,
    value: &'v Value,
    schema: &Value,
    depth: usize,
    found: &mut Vec<Step<&'v str>>,
) -> bool {
    if depth > 64 {
        return false;
    }
    // A tag that names no variant is the place.
    if let Meant::Tag(tag, _) = meant(defs, schema, Some(value), None)
        && let Some((key, _)) = value.as_object().and_then(|fields| fields.get_key_value(&tag))
    {
        found.push(Step::Key(key));
        return true;
    }
    let check = |step: Step<&'v str>, child: &'v Value, found: &mut Vec<Step<&'v str>>| {
        let Some(child_schema) = below(defs, schema, step, Some(value), 0) else { return false };
        if mismatch_below(defs, child, child_schema, depth + 1, found) || !admits(defs, child_schema, child, 0) {
            found.push(step);
            return true;
        }
        false
    };
    match value {
        Value::Object(fields) => fields.iter().any(|(k, v)| check(Step::Key(k), v, found)),
        Value::Array(items) => items.iter().enumerate().any(|(i, v)| check(Step::Index(i), v, found)),
        _ => false,
    }
}

/// Whether `value` has a type `schema` allows, is one of its `enum`/`const` values and
/// within its numeric bounds (what a typed parse checks of a single value).
fn admits(defs: &Defs<'_>, schema: &Value, value: &Value, depth: usize) -> bool {
    let Some(map) = schema.as_object() else { return schema != &Value::Bool(false) };
    if depth > 16 {
        return true;
    }
    if let Some(target) = map.get("$ref").and_then(Value::as_str).and_then(|r| defs.resolve(r)) {
        return admits(defs, target, value, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(variants)) = map.get(key)
            && !variants.iter().any(|v| admits(defs, v, value, depth + 1))
        {
            return false;
        }
    }
    let kind_fits = |kind: &str| match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" => is_integer(value),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    let typed = match map.get("type") {
        Some(Value::String(kind)) => kind_fits(kind),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).any(kind_fits),
        _ => true,
    };
    let listed = match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(values)), _) => values.contains(value),
        (_, Some(constant)) => constant == value,
        _ => true,
    };
    let number = value.as_f64();
    let above = |key: &str| match (map.get(key).and_then(Value::as_f64), number) {
        (Some(bound), Some(n)) => n >= bound,
        _ => true,
    };
    let below = |key: &str| match (map.get(key).and_then(Value::as_f64), number) {
        (Some(bound), Some(n)) => n <= bound,
        _ => true,
    };
    typed && listed && above("minimum") && below("maximum")
}

/// Whether `value` is an integer as JSON Schema 2020-12 counts one: a number with no
/// fraction, however written (`10`, `10.0`, `1e1`).
fn is_integer(value: &Value) -> bool {
    value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|n| n.is_finite() && n.fract() == 0.0)
}

/// Whether the schema wants an integer (and not any number).
pub(super) fn wants_integer(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "integer",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "integer") && !kinds.iter().any(|k| k == "number"),
        _ => false,
    }
}

/// A found value, shortly: `null`, `true`, `3`, `"abc"`, `an array`, `an object`; a
/// number as the model wrote it (`sent`: its text in the arguments), so an integer too
/// large for a float reads as sent (`-9223372036854775809`, not `-9.223372036854776e18`).
pub(crate) fn found(value: &Value, sent: Option<&str>) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match sent.map(str::trim) {
            Some(text) if text.len() > 40 => format!("a number of {} characters", text.len()),
            Some(text) if !text.is_empty() => text.into(),
            _ => n.to_string(),
        },
        Value::String(s) if s.chars().count() > 40 => {
            format!("a string of {} characters", s.chars().count())
        }
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) => format!("an array of {}", count(items.len(), "item")),
        Value::Object(_) => "an object".into(),
    }
}

fn count(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// The bounds of a Rust integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntRange {
    min: i128,
    max: u128,
}

/// The bounds of the integer type serde names in an expectation (`i64`, `u8`, ...).
pub(crate) fn integer_range(serde: &str) -> Option<IntRange> {
    let (min, max): (i128, u128) = match serde.trim() {
        "i8" => (i8::MIN.into(), i8::MAX as u128),
        "i16" => (i16::MIN.into(), i16::MAX as u128),
        "i32" => (i32::MIN.into(), i32::MAX as u128),
        "i64" => (i64::MIN.into(), i64::MAX as u128),
        "i128" => (i128::MIN, i128::MAX as u128),
        "isize" => (isize::MIN as i128, isize::MAX as u128),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        "u128" => (0, u128::MAX),
        "usize" => (0, usize::MAX as u128),
        _ => return None,
    };
    Some(IntRange { min, max })
}

/// The range of the integer at `path` when serde named no type: serde_json reads an
/// `i128` or a `u128` by its own grammar, which takes no fraction or exponent, so a
/// number like `1e40` there is a syntax error in valid JSON. Which of the two is told by
/// the schema (a `u128` has `minimum: 0`).
pub(crate) fn wide_integer_range(root: &Value, args: Option<&Value>, path: &str) -> Option<IntRange> {
    let Located::Schema(schema) = locate(root, args, path)? else { return None };
    if !wants_integer(schema) {
        return None;
    }
    let unsigned = schema.get("minimum").and_then(Value::as_f64).is_some_and(|m| m >= 0.0);
    integer_range(if unsigned { "u128" } else { "i128" })
}

impl IntRange {
    /// "an integer from -128 to 127", narrowed by the schema's own bounds.
    fn words(self, minimum: Option<f64>, maximum: Option<f64>) -> String {
        let min = match minimum {
            Some(m) if m > self.min as f64 => plain(m),
            _ => self.min.to_string(),
        };
        let max = match maximum {
            Some(m) if m < self.max as f64 => plain(m),
            _ => self.max.to_string(),
        };
        format!("an integer from {min} to {max}")
    }
}

/// What a schema wants, in words; `range` is the bounds of the Rust integer type, when
/// known (the schema of an `i64` says only `integer`).
pub(crate) fn wanted(root: &Value, schema: &Value, range: Option<IntRange>) -> String {
    let Some(map) = schema.as_object() else { return "any value".into() };
    if let Some(value) = map.get("const") {
        return value.to_string();
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return one_of(values);
    }
    if let Some(Value::Array(variants)) = map.get("oneOf").or_else(|| map.get("anyOf")) {
        let consts: Option<Vec<Value>> = variants.iter().map(|v| v.get("const").cloned()).collect();
        if let Some(consts) = consts {
            return one_of(&consts);
        }
        return format!("one of: {}", Render::new(root).value(schema, 1));
    }
    let kinds: Vec<&str> = match map.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ if map.contains_key("properties") => vec!["object"],
        _ => return "any value".into(),
    };
    let words: Vec<String> = kinds.iter().map(|kind| typed(root, map, kind, range)).collect();
    words.join(" or ")
}

fn typed(root: &Value, map: &Map<String, Value>, kind: &str, range: Option<IntRange>) -> String {
    let number = |key: &str| map.get(key).and_then(Value::as_f64);
    let bounds = |noun: &str| match (number("minimum"), number("maximum")) {
        (Some(min), Some(max)) => format!("{noun} from {} to {}", plain(min), plain(max)),
        (Some(min), None) if min == 0.0 && noun == "an integer" => "a non-negative integer".into(),
        (Some(min), None) => format!("{noun} of at least {}", plain(min)),
        (None, Some(max)) => format!("{noun} of at most {}", plain(max)),
        (None, None) => noun.into(),
    };
    match kind {
        "integer" => match range {
            Some(range) => range.words(number("minimum"), number("maximum")),
            None => bounds("an integer"),
        },
        "number" => bounds("a number"),
        "string" => {
            let length = |key: &str| map.get(key).and_then(Value::as_u64);
            match (length("minLength"), length("maxLength")) {
                (Some(min), Some(max)) => format!("a string of {min} to {max} characters"),
                (Some(min), None) => format!("a string of at least {}", count(min as usize, "character")),
                (None, Some(max)) => format!("a string of at most {}", count(max as usize, "character")),
                (None, None) => "a string".into(),
            }
        }
        "boolean" => "true or false".into(),
        "null" => "null".into(),
        "array" => match map.get("items") {
            Some(items) => format!("an array of {}", Render::new(root).value(items, 1)),
            None => "an array".into(),
        },
        "object" => format!("an object {}", Render::new(root).value(&Value::Object(map.clone()), 1)),
        other => other.into(),
    }
}

/// `5` for 5.0, `0.5` for 0.5.
fn plain(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { n.to_string() }
}

fn one_of<'v>(values: impl IntoIterator<Item = &'v Value>) -> String {
    let mut values = values.into_iter();
    let mut listed: Vec<String> = values.by_ref().take(MAX_LISTED).map(Value::to_string).collect();
    if values.next().is_some() {
        listed.push("…".into());
    }
    match listed.as_slice() {
        [one] => one.clone(),
        _ => format!("one of {}", listed.join(", ")),
    }
}

/// Serde's expectation, in the model's terms, for where the schema says nothing.
pub(crate) fn plain_expectation(serde: &str) -> String {
    let serde = serde.trim();
    if let Some(range) = integer_range(serde) {
        return range.words(None, None);
    }
    match serde {
        "f32" | "f64" => "a number".into(),
        "a boolean" | "bool" => "true or false".into(),
        "a sequence" => "an array".into(),
        "a map" => "an object".into(),
        "a string" | "a borrowed string" | "a character" => serde.into(),
        _ if serde.starts_with("struct ") || serde.starts_with("a map") => "an object".into(),
        _ if serde.starts_with("enum ") || serde.starts_with("variant identifier") => "one of the listed values".into(),
        _ if serde.starts_with("a tuple") || serde.starts_with("tuple") => "an array".into(),
        _ => serde.into(),
    }
}

/// The known field nearest to `unknown` among the properties of the object at `parent`
/// (the rule unknown tools get: [`nearest`](crate::nearest::nearest)).
pub(crate) fn nearest_field<'s>(root: &'s Value, parent: &str, unknown: &str) -> Option<&'s str> {
    let object = schema_at(root, parent)?;
    let names: Vec<&str> = object.get("properties")?.as_object()?.keys().map(String::as_str).collect();
    crate::nearest::nearest(unknown, &names)
}

/// The signature shown after an argument error: the tool's whole signature, or, for a
/// long one, the object where the error is (cut if still long).
pub(crate) fn signature(root: &Value, whole: &str, parent: &str) -> String {
    if whole.chars().count() <= LONG_SIGNATURE {
        return whole.to_owned();
    }
    let object = schema_at(root, parent).map(|schema| Render::new(root).value(schema, 0));
    let text = object.unwrap_or_else(|| whole.to_owned());
    let shown = if text.chars().count() > LONG_SIGNATURE {
        let cut: String = text.chars().take(LONG_SIGNATURE).collect();
        format!("{cut}…")
    } else {
        text
    };
    if parent.is_empty() { shown } else { format!("`{parent}` to be {shown}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_values_and_schemas() {
        let args = json!({"a": {"b": [1, {"c": true}]}});
        assert_eq!(value_at(&args, "a.b[1].c"), Some(&json!(true)));
        let schema = json!({"type": "object", "properties": {"sub": {"$ref": "#/$defs/Sub"}}, "$defs": {"Sub": {"type": "object", "properties": {"depth": {"type": "integer", "minimum": 0, "maximum": 255}}}}});
        let depth = schema_at(&schema, "sub.depth").unwrap();
        assert_eq!(wanted(&schema, depth, None), "an integer from 0 to 255");
        assert_eq!(nearest_field(&json!({"properties": {"dueDate": {}, "title": {}}}), "", "due"), Some("dueDate"));
        assert_eq!(nearest_field(&json!({"properties": {"due_date": {}}}), "", "DueDate"), Some("due_date"));
        assert_eq!(nearest_field(&json!({"properties": {"title": {}}}), "", "zzz"), None);
        assert_eq!(plain_expectation("u64"), "an integer from 0 to 18446744073709551615");
        assert_eq!(plain_expectation("struct TaskTree"), "an object");
    }
}
