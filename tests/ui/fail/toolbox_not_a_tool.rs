use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn multiply(a: i64, b: i64) -> i64 {
    a * b
}

fn main() {
    let _ = multiply(1, 2);
    let _ = toolbox![add, multiply];
}
