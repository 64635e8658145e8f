use toolkit::prelude::*;

/// Search the index.
#[tool(require_param_docs)]
fn search(
    /// What to look for.
    query: String,
    limit: u32,
    #[context] cx: &CallContext<'_>,
) -> String {
    let _ = cx;
    format!("{query} {limit}")
}

fn main() {
    let _ = toolbox![search];
}
