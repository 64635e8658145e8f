use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(#[arg(pattern = "^[a-z+$")] query: String) -> String {
    query
}

fn main() {
    let _ = toolbox![search];
}
