use toolkit::prelude::*;

/// Read a file.
#[tool]
async fn read_file(#[context] cx: &CallContext<'_>, path: String, #[context] again: &CallContext<'_>) -> String {
    let _ = (cx, again);
    path
}

fn main() {
    let _ = toolbox![read_file];
}
