use toolkit::prelude::*;

#[derive(Debug)]
struct NotFound;

/// Read a file.
#[tool]
fn read_file(path: String) -> Result<String, NotFound> {
    if path.is_empty() { Err(NotFound) } else { Ok(path) }
}

fn main() {
    let _ = toolbox![read_file];
}
