use toolkit::prelude::*;

struct Db;

/// Count the rows.
#[tool(blocking)]
fn count(#[state] db: &Db) -> usize {
    let _ = db;
    0
}

fn main() {
    let _ = toolbox![count];
}
