use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(#[arg(rename = "q", rename = "text")] query: String) -> String {
    query
}

fn main() {
    let _ = toolbox![search];
}
