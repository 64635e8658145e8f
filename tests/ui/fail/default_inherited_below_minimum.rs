use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(query: String, #[arg(default, minimum = 1)] page: u32) -> String {
    format!("{query} {page}")
}

fn main() {
    let _ = toolbox![search];
}
