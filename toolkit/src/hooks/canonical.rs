//! The canonical text of a call's arguments: the same arguments give the same text,
//! whatever order the model wrote their keys in (cache keys, loop detection).

use serde_json::{Map, Value};

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
    fn key_order_does_not_matter() {
        let a = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}});
        let b = json!({"a": {"x": "s", "y": [1, {"c": 3, "d": 2}]}, "b": 1});
        let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
        assert_eq!(canonical_json(a), canonical_json(b));
        assert_eq!(canonical_json(a), r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#);
    }
}
