use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(query: String, #[arg(default)] limit: Option<u32>) -> String {
    let _ = limit;
    query
}

fn main() {
    let _ = toolbox![search];
}
