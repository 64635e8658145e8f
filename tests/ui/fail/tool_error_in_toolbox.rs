use toolkit::prelude::*;

/// Count the characters of a text.
#[tool]
fn count(text: &str) -> usize {
    text.chars().count()
}

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let _ = toolbox![count, add];
}
