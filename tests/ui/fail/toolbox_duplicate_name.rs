use toolkit::prelude::*;

/// Add two integers.
#[tool(name = "calc")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Multiply two integers.
#[tool(name = "calc")]
fn multiply(a: i64, b: i64) -> i64 {
    a * b
}

fn main() {
    let _ = toolbox![add, multiply];
}
