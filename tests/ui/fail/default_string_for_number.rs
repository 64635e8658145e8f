use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(query: String, #[arg(default = "10")] max_results: u32) -> String {
    format!("{query} {max_results}")
}

fn main() {
    let _ = toolbox![search];
}
