use toolkit::prelude::*;

/// Read a file.
#[tool(blocking)]
fn read_file(#[context] cx: &CallContext<'_>, path: String) -> String {
    let _ = cx;
    path
}

fn main() {
    let _ = toolbox![read_file];
}
