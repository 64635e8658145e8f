use toolkit::prelude::*;

/// Read a file.
#[tool(icon = "ftp://example.com/file.png")]
fn read_file(path: String) -> String {
    path
}

/// Write a file.
#[tool(icon = "https:///file.png")]
fn write_file(path: String) -> String {
    path
}

/// Delete a file.
#[tool(icon = "data:image/png;base64,")]
fn delete_file(path: String) -> String {
    path
}

fn main() {
    let _ = toolbox![read_file, write_file, delete_file];
}
