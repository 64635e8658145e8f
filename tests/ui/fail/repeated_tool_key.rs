use toolkit::prelude::*;

/// Read a file.
#[tool(name = "read", name = "read_file")]
fn read_file(path: String) -> String {
    path
}

fn main() {
    let _ = toolbox![read_file];
}
