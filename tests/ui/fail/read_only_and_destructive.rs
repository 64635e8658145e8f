use toolkit::prelude::*;

/// Delete a file.
#[tool(read_only, destructive)]
fn delete_file(path: String) -> String {
    path
}

fn main() {
    let _ = toolbox![delete_file];
}
