//! From the model's arguments string to a tool's arguments, and from a failed parse to a
//! message the model can act on.
//!
//! Only [`parse_typed`] is generic (one `Deserialize` per tool, inlined into the tool's
//! own code); everything that describes a failure is compiled once. A failed parse is
//! described from the error serde_json gives and the text itself: the error's position
//! is mapped back to the JSON path of the value it stopped at ([`path_at`]), so the
//! arguments are never deserialized into the tool's type a second time.
//!
//! What the published schema admits, the parser accepts. Two things a model may send that
//! serde alone would refuse are read on the error path (the success path is one parse):
//! `null` for an optional field (what strict mode sends for "absent"), and an integer
//! written with a zero fraction (`10.0`, `1e2`), which JSON Schema 2020-12 counts an
//! integer: an integer parameter takes it as that integer ([`conform::conform`]).
//!
//! Kinds: a value of the wrong JSON type is `invalid_type`; an integer out of its type's
//! range, or a duplicate field, `invalid_value`; a value outside the values the schema
//! lists (an enum's variants, an internally tagged enum's tag, `one_of`, `items_one_of`:
//! all an `enum` in the schema) is `constraint_violation`, however it is checked. One
//! kind for one mistake; and that one, because `one_of`'s check is a
//! [`Validate`] impl, whose [`Violation`] carries no kind.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::json_path::{offset_of, parent_of, path_at, string_end, up, value_end, value_text};
use super::unknown::{KeyCheck, LazyKeyCheck};
use super::{conform, explain};
use crate::error::{ErrorKind, ToolError, Violation};
use crate::limits::Limits;
use crate::spec::ToolSpec;
use crate::tool::Validate;

/// Parses arguments straight into the tool's struct, then checks its constraints. Only
/// the parse and the constraint check are generic: what surrounds them is compiled once.
#[inline]
pub(crate) fn parse_typed<A: DeserializeOwned + Validate>(
    raw: &str,
    spec: &ToolSpec,
    keys: &LazyKeyCheck,
    limits: &Limits,
) -> Result<A, ToolError> {
    let raw = precheck(raw, spec, limits)?;
    let (args, fixed) = match serde_json::from_str::<A>(raw) {
        Ok(args) => (args, None),
        // A strict model sends `null` for a field it leaves out (strict schemas make
        // optional fields nullable), and a model may write an integer as `10.0`: read
        // them as the schema does (absent; 10), then try again.
        Err(e) => match conformed(raw, spec) {
            Some(fixed) => match serde_json::from_str::<A>(&fixed) {
                Ok(args) => (args, Some(fixed)),
                Err(_) => return Err(describe(raw, e, spec)),
            },
            None => return Err(describe(raw, e, spec)),
        },
    };
    let validated = args.validate();
    match checked(fixed.as_deref().unwrap_or(raw), spec, keys, validated) {
        Ok(()) => Ok(args),
        Err(e) => Err(e),
    }
}

/// After a parse: no key a closed object below the root leaves out, and the
/// constraints held. Not generic.
#[inline]
fn checked(
    text: &str,
    spec: &ToolSpec,
    keys: &LazyKeyCheck,
    validated: Result<(), Violation>,
) -> Result<(), ToolError> {
    if let Some(check) = keys.get(&spec.input_schema) {
        nested_unknown(check, text, spec)?;
    }
    validated.map_err(|v| violated(v, spec))
}

/// Rejects a key that a closed object below the root does not list (serde dropped it
/// in the parameter's own type); see [`unknown`](super::unknown). Not generic.
#[inline(never)]
fn nested_unknown(check: &KeyCheck, raw: &str, spec: &ToolSpec) -> Result<(), ToolError> {
    match check.find(raw) {
        None => Ok(()),
        Some(found) => Err(unknown_field(&format!("`{}`", found.field), &found.parent, spec)),
    }
}

/// "unknown field `due` in `filters` (did you mean `dueDate`?); expected …": `field` as
/// serde quotes it, `parent` the path of the object holding it.
#[cold]
fn unknown_field(field: &str, parent: &str, spec: &ToolSpec) -> ToolError {
    let schema = &spec.input_schema;
    let at = if parent.is_empty() { String::new() } else { format!(" in `{parent}`") };
    let name = field.trim_matches('`');
    let hint = match explain::nearest_field(schema, parent, name) {
        Some(near) => format!(" (did you mean `{near}`?)"),
        None => String::new(),
    };
    let signature = explain::signature(schema, &spec.expected, parent);
    ToolError::new(ErrorKind::UnknownField, format!("unknown field {field}{at}{hint}; expected {signature}"))
}

/// The arguments as the canonical schema reads them, when that differs from what serde
/// reads ([`conform::conform`]: a `null` for an optional field removed, `10.0` for an
/// integer written `10`); `None` when nothing changed. Only on the error path, and only
/// when the text could hold either (a `null`; a `.`, `e` or `E`).
#[cold]
#[inline(never)]
fn conformed(raw: &str, spec: &ToolSpec) -> Option<String> {
    if !raw.contains("null") && !raw.contains(['.', 'e', 'E']) {
        return None;
    }
    let mut args: Value = serde_json::from_str(raw).ok()?;
    conform::conform(&spec.input_schema, &mut args, floats_are_exact(raw)).then(|| args.to_string())
}

/// Whether every number written with a fraction or an exponent has at most 15
/// significant digits, so the float serde_json reads is the number written (an `f64`
/// holds any decimal of 15 digits): only then is a float with no fraction known to
/// stand for an integer the model wrote (`10.0`), and not for `10.0000000000000001`.
fn floats_are_exact(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i).unwrap_or(bytes.len()),
            b'-' | b'0'..=b'9' => {
                let end = value_end(bytes, i).unwrap_or(bytes.len());
                let number = &raw[i..end];
                if number.contains(['.', 'e', 'E']) && significant_digits(number) > 15 {
                    return false;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    true
}

/// The digits of a number's mantissa between its first and last non-zero digit.
fn significant_digits(number: &str) -> usize {
    let mantissa = number.split(['e', 'E']).next().unwrap_or(number);
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    match (digits.iter().position(|d| *d != b'0'), digits.iter().rposition(|d| *d != b'0')) {
        (Some(first), Some(last)) => last - first + 1,
        _ => 0,
    }
}

/// Whether a number as written is an integer: `12`, `-3`, `10.0`, `1e30`, `1.5e1`.
fn is_integral_literal(number: &str) -> bool {
    let number = number.trim().trim_start_matches('-');
    let (mantissa, exponent) = match number.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.trim_start_matches('+').parse::<i64>().unwrap_or(i64::MIN)),
        None => (number, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
        return false;
    }
    // The digits, and where the point falls among them once the exponent is applied:
    // an integer when no non-zero digit is past it.
    let digits: Vec<u8> = whole.bytes().chain(fraction.bytes()).collect();
    let point = whole.len() as i64 + exponent.max(-(1 << 40));
    digits.iter().rposition(|d| *d != b'0').is_none_or(|last| (last as i64) < point)
}

/// Parses the arguments of a run-time tool into an object.
pub(crate) fn parse_object(raw: &str, spec: &ToolSpec, limits: &Limits) -> Result<Map<String, Value>, ToolError> {
    let raw = precheck(raw, spec, limits)?;
    serde_json::from_str(raw).map_err(|e| malformed(e, spec))
}

#[cold]
#[inline(never)]
fn violated(v: Violation, spec: &ToolSpec) -> ToolError {
    ToolError::new(ErrorKind::ConstraintViolation, format!("invalid argument: {v}; expected {}", spec.expected))
}

/// The checks every arguments string goes through before it is deserialized: size,
/// emptiness, and an object root (serde would otherwise read `["a", 1]` positionally).
#[inline]
fn precheck<'s>(raw: &'s str, spec: &ToolSpec, limits: &Limits) -> Result<&'s str, ToolError> {
    // The usual case, `{` first and within the limit, without a call.
    if raw.len() <= limits.max_argument_bytes && raw.as_bytes().first() == Some(&b'{') {
        return Ok(raw);
    }
    precheck_slow(raw, spec, limits)
}

#[cold]
#[inline(never)]
fn precheck_slow<'s>(raw: &'s str, spec: &ToolSpec, limits: &Limits) -> Result<&'s str, ToolError> {
    if raw.len() > limits.max_argument_bytes {
        return Err(ToolError::new(
            ErrorKind::ArgumentsTooLarge,
            format!(
                "the arguments are too large ({} bytes; the limit is {}); send less at once",
                raw.len(),
                limits.max_argument_bytes
            ),
        ));
    }
    match raw.bytes().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(raw),
        None if spec.takes_no_arguments() => Ok("{}"),
        None => Err(ToolError::new(
            ErrorKind::EmptyArguments,
            format!("the arguments are empty; expected {}", spec.expected),
        )),
        Some(_) => Err(not_an_object(raw, spec)),
    }
}

fn not_an_object(raw: &str, spec: &ToolSpec) -> ToolError {
    match serde_json::from_str::<serde::de::IgnoredAny>(raw) {
        Err(e) => malformed(e, spec),
        Ok(_) => {
            let found = match raw.trim_start().as_bytes().first() {
                Some(b'[') => "an array",
                Some(b'"') => "a string",
                Some(b'n') => "null",
                Some(b't' | b'f') => "a boolean",
                _ => "a number",
            };
            ToolError::new(
                ErrorKind::NotAnObject,
                format!("the arguments must be a JSON object, not {found}; expected {}", spec.expected),
            )
        }
    }
}

#[cold]
fn malformed(e: serde_json::Error, spec: &ToolSpec) -> ToolError {
    if e.to_string().starts_with("recursion limit exceeded") {
        return ToolError::new(
            ErrorKind::MalformedJson,
            format!("the arguments are nested too deeply (more than 128 levels); expected {}", spec.expected),
        )
        .with_detail(e.to_string());
    }
    ToolError::new(
        ErrorKind::MalformedJson,
        format!("the arguments are not valid JSON ({e}); expected {}", spec.expected),
    )
    .with_detail(e.to_string())
}

/// Turns a failed parse into a message the model can act on: the kind, the JSON path of
/// the offending value, what was found there and what the schema wants (in words, not
/// Rust types), and the tool's signature (for a big tool, the object where the error is).
#[cold]
#[inline(never)]
pub(crate) fn describe(raw: &str, e: serde_json::Error, spec: &ToolSpec) -> ToolError {
    // A deserializer asked for one type may report a value of another as a syntax error
    // (`null` where an enum's string goes, `5.0` for an `i128`): if the text is valid
    // JSON, it is a type error at that place.
    let args = serde_json::from_str::<Value>(raw).ok();
    if (e.is_syntax() || e.is_eof()) && args.is_none() {
        return malformed(e, spec);
    }
    let schema = &spec.input_schema;
    let mut path = path_at(raw, offset_of(raw, e.line(), e.column()));
    // The parser may stop inside the wrong value (the `[` of an array sent for a
    // string): the place is the nearest enclosing value the schema describes.
    while !path.is_empty() && !explain::knows(schema, args.as_ref(), &path) {
        path = up(&path).to_owned();
    }
    let detail = e.to_string();
    let message = strip_position(&detail);
    let signature = |parent: &str| explain::signature(schema, &spec.expected, parent);
    let (kind, text) = if let Some(rest) = message.strip_prefix("missing field ") {
        let at = if path.is_empty() { String::new() } else { format!(" in `{path}`") };
        (ErrorKind::MissingField, format!("missing required field {rest}{at}; expected {}", signature(&path)))
    } else if let Some(rest) = message.strip_prefix("unknown field ") {
        // The path ends at the unknown key itself; the place is its parent.
        let field = rest.split(',').next().unwrap_or(rest);
        return unknown_field(field, parent_of(&path), spec).with_detail(detail);
    } else if let Some(rest) = message.strip_prefix("duplicate field ") {
        let parent = parent_of(&path);
        let text = format!("duplicate field {rest}: send each argument once; expected {}", signature(parent));
        (ErrorKind::InvalidValue, text)
    } else {
        // serde reports an error inside a buffered value (`#[serde(flatten)]`, internally
        // tagged and untagged enums) at its container: find the value that does not fit.
        let path = match &args {
            Some(a) if explain::value_at(a, &path).is_some_and(|v| v.is_object() || v.is_array()) => {
                explain::first_mismatch(schema, a, &path).unwrap_or(path)
            }
            _ => path,
        };
        let serde_expected = message.rsplit_once(", expected ").map(|(_, serde)| serde);
        let value = args.as_ref().and_then(|a| explain::value_at(a, &path));
        let range = match serde_expected.and_then(explain::integer_range) {
            Some(range) => Some(range),
            None if e.is_syntax() && value.is_some_and(Value::is_number) => {
                explain::wide_integer_range(schema, args.as_ref(), &path)
            }
            None => None,
        };
        let sent = value.filter(|v| v.is_number()).and_then(|_| value_text(raw, &path));
        let found = value.map(|v| explain::found(v, sent));
        let wanted = (!path.is_empty())
            .then(|| explain::wanted_at(schema, args.as_ref(), &path, range))
            .flatten()
            .or_else(|| serde_expected.map(explain::plain_expectation));
        // An integer literal refused for an integer is out of its type's range: a wrong
        // value, not a wrong type, however serde read it (past `i64`, as a float).
        let out_of_range = range.is_some() && sent.is_some_and(is_integral_literal);
        let kind = if message.starts_with("unknown variant ") {
            ErrorKind::ConstraintViolation
        } else if (e.is_syntax() || e.is_eof() || message.starts_with("invalid type")) && !out_of_range {
            ErrorKind::InvalidType
        } else {
            ErrorKind::InvalidValue
        };
        let place = if path.is_empty() { String::new() } else { format!(" for `{path}`") };
        let noun = if kind == ErrorKind::InvalidType { "type" } else { "value" };
        let text = match (found, wanted) {
            (Some(found), Some(wanted)) => format!("invalid {noun}{place}: got {found}, expected {wanted}"),
            (None, Some(wanted)) => format!("invalid {noun}{place}: expected {wanted}"),
            (_, None) => format!(
                "invalid {noun}{place}: {}",
                message.trim_start_matches("invalid type: ").trim_start_matches("invalid value: ")
            ),
        };
        (kind, format!("{text}; expected {}", signature(parent_of(&path))))
    };
    ToolError::new(kind, text).with_detail(detail)
}

/// serde_json appends " at line L column C"; the model needs the field, not the column.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::super::json_path::{offset_of, path_at, value_text};
    use super::{floats_are_exact, is_integral_literal};

    fn at_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(raw: &str) -> String {
        let e = serde_json::from_str::<T>(raw).unwrap_err();
        path_at(raw, offset_of(raw, e.line(), e.column()))
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Filters {
        tags: Vec<u8>,
        depth: u8,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Query {
        text: String,
        filters: Option<Filters>,
        list: Option<Vec<Filters>>,
    }

    #[test]
    fn paths_of_type_errors() {
        assert_eq!(at_error::<Query>(r#"{"text": 1}"#), "text");
        assert_eq!(at_error::<Query>(r#"{"text": "a", "filters": {"tags": [1, "x"], "depth": 1}}"#), "filters.tags[1]");
        assert_eq!(
            at_error::<Query>("{\"text\": \"a\",\n \"filters\": {\"depth\": 300, \"tags\": []}}"),
            "filters.depth"
        );
        assert_eq!(
            at_error::<Query>(r#"{"text": "a", "list": [{"tags": [], "depth": 1}, {"tags": [], "depth": -1}]}"#),
            "list[1].depth"
        );
        assert_eq!(at_error::<Query>(r#"{"text": {"nested": true}}"#), "text");
    }

    #[test]
    fn paths_of_missing_and_unknown_fields() {
        assert_eq!(at_error::<Query>(r#"{"filters": null}"#), "");
        assert_eq!(at_error::<Query>(r#"{"text": "a", "filters": {"tags": []}}"#), "filters");
        assert_eq!(at_error::<Query>(r#"{"text": "a", "list": [{"tags": []}]}"#), "list[0]");
        assert_eq!(
            at_error::<Query>(r#"{"text": "a", "filters": {"tags": [], "depth": 1, "odd\"key": 2}}"#),
            "filters.odd\"key"
        );
    }

    #[test]
    fn values_as_sent() {
        let raw = r#"{"a": -9223372036854775809, "b": {"c\u0064": [1, 1e30 , {"x": "]"}, 2.50]}, "s": "a,b"}"#;
        assert_eq!(value_text(raw, "a"), Some("-9223372036854775809"));
        assert_eq!(value_text(raw, "b.cd[1]"), Some("1e30"));
        assert_eq!(value_text(raw, "b.cd[2].x"), Some(r#""]""#));
        assert_eq!(value_text(raw, "b.cd[3]"), Some("2.50"));
        assert_eq!(value_text(raw, "s"), Some(r#""a,b""#));
        assert_eq!(value_text(raw, "b.cd[4]"), None);
        assert_eq!(value_text(raw, "z"), None);
    }

    #[test]
    fn integral_literals_and_exact_floats() {
        for yes in ["12", "-3", "10.0", "1e30", "1.5e1", "2.50e1", "0", "-0.0", "1E+2", "100e-2"] {
            assert!(is_integral_literal(yes), "{yes}");
        }
        for no in ["10.5", "1e-1", "1.25e1", "abc", "", "-"] {
            assert!(!is_integral_literal(no), "{no}");
        }
        assert!(floats_are_exact(r#"{"a": 10.0, "b": 123456789012345.0, "c": "10.0000000000000001"}"#));
        assert!(!floats_are_exact(r#"{"a": 10.0000000000000001}"#));
        assert!(floats_are_exact(r#"{"a": 10.000000000000000000, "b": 1234567890123456789}"#));
    }
}
