use toolkit::prelude::*;

/// Repeat a word.
#[tool]
fn repeat<const N: usize>(word: String) -> String {
    word.repeat(N)
}

fn main() {
    let _ = toolbox![repeat];
}
