use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[hook(after)]
fn trim(out: &mut AfterCall<'_>) {
    let _ = out;
}

fn main() {
    let _ = hooks![trim, add];
}
