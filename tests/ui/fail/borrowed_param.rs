use toolkit::prelude::*;

/// Count the characters of a text.
#[tool]
fn count(text: &str) -> usize {
    text.chars().count()
}

fn main() {
    let _ = toolbox![count];
}
