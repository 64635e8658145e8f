use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(query: String, #[arg(pattern = "^[0-9]+$")] limit: u32) -> String {
    let _ = limit;
    query
}

fn main() {
    let _ = toolbox![search];
}
