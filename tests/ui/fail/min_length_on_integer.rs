use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(query: String, #[arg(min_length = 1)] limit: u32) -> String {
    let _ = limit;
    query
}

fn main() {
    let _ = toolbox![search];
}
