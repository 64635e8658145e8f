use toolkit::prelude::*;

// Three independent mistakes: each is reported once, in one compile.
#[tool(read_onyl)]
fn count(text: &str) -> usize {
    text.chars().count()
}

fn main() {
    let _ = toolbox![count];
}
