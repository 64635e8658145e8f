use toolkit::prelude::*;

#[derive(schemars::JsonSchema)]
struct Query {
    text: String,
}

/// Search the index.
#[tool]
fn search(query: Query) -> String {
    query.text
}

fn main() {
    let _ = toolbox![search];
}
