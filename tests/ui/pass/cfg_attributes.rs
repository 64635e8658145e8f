//! `#[cfg]` on a tool (before or after `#[tool]`) and on its parameters.
use toolkit::prelude::*;

/// Only compiled when the condition holds: its companions follow it.
#[tool]
#[cfg(any())]
fn never(a: i64) -> i64 {
    a
}

/// Always compiled.
#[tool]
#[cfg(all())]
fn always(a: i64) -> i64 {
    a
}

/// Some parameters only exist in some builds.
#[tool]
fn configured(
    /// Kept.
    a: i64,
    /// Removed in this build.
    #[cfg(any())]
    #[arg(minimum = 0)]
    b: i64,
    /// Kept.
    #[cfg(all())]
    #[arg(maximum = 100)]
    c: i64,
) -> i64 {
    #[cfg(any())]
    let _ = b;
    a + c
}

#[cfg_attr(all(), tool)]
/// Made a tool through `cfg_attr`.
fn via_cfg_attr(a: i64) -> i64 {
    a
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = toolbox![always, configured, via_cfg_attr];
    let schema = &tools.spec("configured").unwrap().input_schema;
    assert!(schema["properties"].get("b").is_none(), "{schema}");
    assert!(schema["properties"].get("c").is_some(), "{schema}");
    let r = tools.call(ToolCall::new("1", "configured", r#"{"a": 1, "c": 2}"#)).await;
    assert_eq!(r.content, "3");
    let r = tools.call(ToolCall::new("2", "configured", r#"{"a": 1, "c": 200}"#)).await;
    assert!(r.is_error());
    assert_eq!(tools.call(ToolCall::new("3", "always", r#"{"a": 7}"#)).await.content, "7");
}
