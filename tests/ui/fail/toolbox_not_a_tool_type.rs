use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

struct Calculator;

fn main() {
    let _ = Calculator;
    let _ = toolbox![add, Calculator];
}
