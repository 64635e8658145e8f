use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add((a, b): (i32, i32)) -> i32 {
    a + b
}

fn main() {
    let _ = toolbox![add];
}
