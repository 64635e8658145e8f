//! Raw identifiers: the wire names drop the `r#`.
use toolkit::prelude::*;

/// Match a value against a type.
#[tool]
fn r#match(r#type: String, #[arg(rename = "value")] r#ref: String) -> String {
    format!("{}:{}", r#type, r#ref)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = toolbox![r#match];
    assert_eq!(tools.names(), ["match"]);
    let r = tools.call(ToolCall::new("1", "match", r#"{"type": "a", "value": "b"}"#)).await;
    assert_eq!(r.content, "a:b");
}
