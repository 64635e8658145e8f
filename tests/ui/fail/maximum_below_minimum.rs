use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(query: String, #[arg(minimum = 10, maximum = 5)] limit: u32) -> String {
    let _ = limit;
    query
}

fn main() {
    let _ = toolbox![search];
}
