use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(#[arg(min_length = 10, max_length = 5)] query: String) -> String {
    query
}

fn main() {
    let _ = toolbox![search];
}
