//! What a tool whose definition has errors expands to.

#![allow(missing_docs)]

#[allow(unused_imports)]
use super::*;

/// The arguments of a tool whose definition did not compile (see the compile errors).
#[derive(serde::Deserialize)]
pub struct NoArgs {}

impl Validate for NoArgs {
    fn validate(&self) -> Result<(), Violation> {
        Ok(())
    }
}

pub fn placeholder_spec() -> &'static ToolSpec {
    static SPEC: LazyLock<ToolSpec> = LazyLock::new(|| {
        ToolSpec::new(
            "placeholder",
            "A tool whose definition has compile errors.",
            serde_json::json!({"type": "object"}),
        )
    });
    &SPEC
}

pub fn placeholder_error() -> ToolError {
    ToolError::new(ErrorKind::Unavailable, "this tool is not available")
}
