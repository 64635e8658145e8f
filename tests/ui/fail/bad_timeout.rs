use toolkit::prelude::*;

/// Read a file.
#[tool(timeout = "ten seconds")]
fn read_file(path: String) -> String {
    path
}

fn main() {
    let _ = toolbox![read_file];
}
