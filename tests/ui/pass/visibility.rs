//! Tools in modules, with `pub`, `pub(crate)` and private visibility, listed by path.
mod tools {
    use toolkit::prelude::*;

    /// Add two integers.
    #[tool]
    pub fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    /// Subtract two integers.
    #[tool]
    pub(crate) fn subtract(a: i64, b: i64) -> i64 {
        a - b
    }

    /// Negate an integer.
    #[tool]
    fn negate(a: i64) -> i64 {
        -a
    }

    pub fn private_toolbox() -> toolkit::Toolbox {
        toolbox![negate]
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = toolkit::toolbox![tools::add, crate::tools::subtract];
    let r = tools.call(toolkit::ToolCall::new("1", "subtract", r#"{"a": 5, "b": 2}"#)).await;
    assert_eq!(r.content, "3");
    let r = tools::private_toolbox().call(toolkit::ToolCall::new("2", "negate", r#"{"a": 5}"#)).await;
    assert_eq!(r.content, "-5");
}
