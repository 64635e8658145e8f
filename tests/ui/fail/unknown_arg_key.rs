use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(#[arg(min_lenght = 1)] query: String) -> String {
    query
}

fn main() {
    let _ = toolbox![search];
}
