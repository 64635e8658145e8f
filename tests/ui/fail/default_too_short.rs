use toolkit::prelude::*;

/// Greet someone.
#[tool]
fn greet(#[arg(default = "", min_length = 1)] name: String) -> String {
    name
}

fn main() {
    let _ = toolbox![greet];
}
