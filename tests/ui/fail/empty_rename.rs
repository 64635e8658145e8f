use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(#[arg(rename = "")] query: String) -> String {
    query
}

fn main() {
    let _ = toolbox![search];
}
