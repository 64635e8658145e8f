use toolkit::prelude::*;

/// Read a file.
#[tool(cache)]
fn read_file(path: String) -> String {
    path
}

fn main() {
    let _ = toolbox![read_file];
}
