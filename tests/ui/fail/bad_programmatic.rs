use toolkit::prelude::*;

/// A program reads what this returns: text will not do.
#[tool(programmatic)]
fn summary(region: String) -> String {
    region
}

/// Nothing for a program to read.
#[tool(programmatic)]
fn touch(path: String) -> Result<(), std::io::Error> {
    let _ = path;
    Ok(())
}

fn main() {}
