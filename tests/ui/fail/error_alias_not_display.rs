use toolkit::prelude::*;

#[derive(Debug)]
struct NotFound;

type Result<T> = std::result::Result<T, NotFound>;

/// Read a file.
#[tool]
fn read_file(path: String) -> Result<String> {
    if path.is_empty() { Err(NotFound) } else { Ok(path) }
}

fn main() {
    let _ = toolbox![read_file];
}
