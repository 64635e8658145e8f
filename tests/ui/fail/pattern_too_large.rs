use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(#[arg(pattern = "^\\w{1000}{1000}$")] query: String) -> String {
    query
}

fn main() {
    let _ = toolbox![search];
}
