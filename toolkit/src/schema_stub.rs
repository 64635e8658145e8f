//! TEMPORARY stand-in until the export module lands.
#![allow(missing_docs, dead_code)]
#[path = "schema/builder.rs"]
pub(crate) mod builder;
use crate::ToolSpec;
use serde_json::Value;
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    OpenAiChat,
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incompatibility {
    pub tool: String,
}
pub fn check(_: &ToolSpec, _: Target) -> Vec<Incompatibility> {
    vec![]
}
pub fn markdown<'a>(_: &str, _: impl IntoIterator<Item = &'a ToolSpec>) -> String {
    String::new()
}
pub fn render_expected(v: &Value) -> String {
    let req: Vec<&str> = v
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parts = vec![];
    if let Some(p) = v.get("properties").and_then(Value::as_object) {
        for (k, s) in p {
            let t = s.get("type").map(|t| t.to_string().replace('"', "")).unwrap_or("object".into());
            parts.push(format!("{k}{}: {t}", if req.contains(&k.as_str()) { "" } else { "?" }));
        }
    }
    format!("{{{}}}", parts.join(", "))
}
pub fn is_valid_name(n: &str) -> bool {
    !n.is_empty() && n.len() <= 64 && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
impl ToolSpec {
    pub fn export(&self, _: Target) -> Value {
        Value::Null
    }
}
