//! The canonical text of a call's arguments, and the digests made from it: the same
//! arguments give the same text, whatever order the model wrote their keys in (cache
//! keys, loop detection, the digest a decision is bound to, the idempotency key).

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The SHA-256 of the canonical JSON of `args`, in lowercase hex (64 characters): what a
/// decision on a paused call is bound to ([`CallDecision`](crate::durable::CallDecision)).
pub(crate) fn arguments_digest(args: &Map<String, Value>) -> String {
    hex(&Sha256::digest(canonical_json(args).as_bytes()))
}

/// [`arguments_digest`] of an arguments text (a JSON object); a text that is not one is
/// digested as it is.
pub(crate) fn text_digest(arguments: &str) -> String {
    hex(&Sha256::digest(canonical_text(arguments).as_bytes()))
}

/// The canonical JSON of an arguments text, or the text itself when it is not an object.
fn canonical_text(arguments: &str) -> std::borrow::Cow<'_, str> {
    match serde_json::from_str::<Map<String, Value>>(arguments) {
        Ok(args) => canonical_json(&args).into(),
        Err(_) => arguments.into(),
    }
}

/// The idempotency key of a call: stable for (run, call id, arguments as the model sent
/// them, in canonical JSON), across attempts, processes and replays. `tk1-` and 40 hex
/// characters (160 bits of one SHA-256), short enough for any downstream API's
/// idempotency header.
pub fn idempotency_key(run: Option<&str>, call_id: &str, arguments: &str) -> String {
    let mut hasher = Sha256::new();
    // Lengths first: ("ab", "c") and ("a", "bc") must not give one key.
    for part in [run.unwrap_or(""), call_id] {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.update(canonical_text(arguments).as_bytes());
    let mut key = String::with_capacity(44);
    key.push_str("tk1-");
    key.push_str(&hex(&hasher.finalize()[..20]));
    key
}

/// `bytes` in lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// The arguments as compact JSON with every object's keys sorted.
pub(crate) fn canonical_json(args: &Map<String, Value>) -> String {
    let mut out = String::with_capacity(64);
    write_object(args, &mut out);
    out
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(key.clone()).to_string());
        out.push(':');
        write_value(value, out);
    }
    out.push('}');
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => write_object(map, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::canonical_json;

    use serde_json::json;

    #[test]
    fn keys_are_stable_and_tell_their_parts_apart() {
        use super::idempotency_key;
        let a = idempotency_key(Some("run-1"), "call_1", r#"{"b": 1, "a": 2}"#);
        assert_eq!(a, idempotency_key(Some("run-1"), "call_1", r#"{"a":2,"b":1}"#), "key order");
        assert!(a.starts_with("tk1-") && a.len() == 44, "{a}");
        assert_ne!(a, idempotency_key(Some("run-2"), "call_1", r#"{"a":2,"b":1}"#), "another run");
        assert_ne!(a, idempotency_key(Some("run-1"), "call_2", r#"{"a":2,"b":1}"#), "another call");
        assert_ne!(a, idempotency_key(Some("run-1"), "call_1", r#"{"a":3,"b":1}"#), "other arguments");
        assert_ne!(idempotency_key(Some("ab"), "c", "{}"), idempotency_key(Some("a"), "bc", "{}"), "boundaries");
    }

    #[test]
    fn key_order_does_not_matter() {
        let a = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}});
        let b = json!({"a": {"x": "s", "y": [1, {"c": 3, "d": 2}]}, "b": 1});
        let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
        assert_eq!(canonical_json(a), canonical_json(b));
        assert_eq!(canonical_json(a), r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#);
    }
}
