//! Arguments the schema admits but a typed parse would refuse, rewritten before the
//! second parse: a strict model's `null` for an optional field, and an integer written as
//! a float. Compiled once, used only when the first parse failed.

use serde_json::{Number, Value};

use super::explain::{Meant, meant, resolve, union_of, wants_integer};
use crate::json_schema::refs::Defs;

/// Rewrites, in place, what the schema admits but a typed parse would refuse; `true` if
/// anything changed:
///
/// - a `null` that is the value of a field the schema makes optional (not in `required`)
///   and does not allow to be `null` is removed: what a strict model sends for "absent";
/// - a number with no fraction written as a float (`10.0`, `1e2`) where the schema wants
///   an integer becomes that integer: JSON Schema 2020-12 counts it an integer, serde
///   does not. Only when `floats` says the floats read are the numbers written, and below
///   2^53 (where a float holds every integer); a larger one stays, and is refused with
///   its type's range.
pub(crate) fn conform(root: &Value, args: &mut Value, floats: bool) -> bool {
    let defs = Defs::new(root);
    conform_to(&defs, root, args, floats, 0)
}

fn conform_to(defs: &Defs<'_>, schema: &Value, value: &mut Value, floats: bool, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    let schema = resolve(defs, schema);
    let mut changed = false;
    match value {
        Value::Number(n) if floats && wants_integer(schema) => {
            if let Some(integer) = n.as_f64().filter(|_| n.is_f64()).and_then(integral) {
                *value = Value::Number(integer);
                changed = true;
            }
        }
        Value::Object(fields) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let absent: Vec<String> = fields
                .iter()
                .filter(|(name, v)| {
                    v.is_null()
                        && !required.contains(&name.as_str())
                        && properties.and_then(|p| p.get(*name)).is_some_and(|s| !allows_null(defs, s))
                })
                .map(|(name, _)| name.clone())
                .collect();
            for name in absent {
                fields.remove(&name);
                changed = true;
            }
            let others = schema.get("additionalProperties").filter(|s| s.is_object());
            for (name, field) in fields.iter_mut() {
                if let Some(sub) = properties.and_then(|p| p.get(name)).or(others) {
                    changed |= conform_to(defs, sub, field, floats, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            for (i, element) in items.iter_mut().enumerate() {
                if let Some(item) = prefix.and_then(|p| p.get(i)).or_else(|| schema.get("items")) {
                    changed |= conform_to(defs, item, element, floats, depth + 1);
                }
            }
        }
        _ => {}
    }
    // A union: the variant the value is meant for (its keys beside the union's own).
    if union_of(schema).is_some()
        && let Meant::Schema(variant) = meant(defs, schema, Some(value), None)
        && !std::ptr::eq(variant, schema)
    {
        changed |= conform_to(defs, variant, value, floats, depth + 1);
    }
    changed
}

/// The integer a float with no fraction stands for, below 2^53 (past it, a float is
/// not the integer written: `-9223372036854775809` reads as -2^63).
fn integral(n: f64) -> Option<Number> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    (n.fract() == 0.0 && n.abs() < EXACT).then(|| Number::from(n as i64))
}

/// Whether `null` is a value of `schema` (its type includes it, or a branch is null).
fn allows_null(defs: &Defs<'_>, schema: &Value) -> bool {
    let schema = match schema.get("$ref").and_then(Value::as_str).and_then(|r| defs.resolve(r)) {
        Some(target) => target,
        None => schema,
    };
    let typed = match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    typed
        || ["anyOf", "oneOf"]
            .iter()
            .any(|k| schema.get(*k).and_then(Value::as_array).is_some_and(|bs| bs.iter().any(|b| allows_null(defs, b))))
        || schema.get("const").is_some_and(Value::is_null)
        || schema.get("enum").and_then(Value::as_array).is_some_and(|e| e.iter().any(Value::is_null))
}
