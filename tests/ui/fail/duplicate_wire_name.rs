use toolkit::prelude::*;

/// Search the index.
#[tool]
fn search(query: String, #[arg(rename = "query")] text: String) -> String {
    query + &text
}

fn main() {
    let _ = toolbox![search];
}
