use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(query: String, #[arg(default = 0, minimum = 1, maximum = 50)] max_results: u32) -> String {
    format!("{query} {max_results}")
}

fn main() {
    let _ = toolbox![search];
}
