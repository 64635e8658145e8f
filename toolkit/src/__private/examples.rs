//! `#[tool(example = {...})]`: the example as a value, and the generated test's check.

use serde_json::Value;

use crate::tool::Tool;

/// An example the macro wrote as JSON text (it wrote it from checked tokens, so it
/// parses).
pub fn example(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or_else(|e| Value::String(format!("(an example that is not JSON: {e})")))
}

/// Each example of `T` parsed and validated as a call's arguments are: the test
/// `#[tool(example = ..)]` generates.
///
/// # Panics
///
/// On an example the tool would refuse, saying which and why.
#[track_caller]
pub fn check_examples<T: Tool>() {
    let spec = T::spec();
    let limits = crate::limits::Limits::default();
    let keys = crate::exec::unknown::LazyKeyCheck::default();
    for (i, example) in spec.examples.iter().enumerate() {
        let raw = example.to_string();
        if let Err(e) = crate::exec::parse::parse_typed::<T::Args>(&raw, spec, &keys, &limits) {
            panic!(
                "example {} of `{}` is not arguments the tool accepts: {}\n  example: {raw}",
                i + 1,
                T::NAME,
                e.message
            );
        }
    }
}
