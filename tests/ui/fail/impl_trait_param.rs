use toolkit::prelude::*;

/// Greet someone.
#[tool]
fn greet(name: impl Into<String>) -> String {
    name.into()
}

fn main() {
    let _ = toolbox![greet];
}
