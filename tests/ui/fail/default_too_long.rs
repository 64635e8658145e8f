use toolkit::prelude::*;

/// Tag a note.
#[tool]
fn tag(#[arg(default = vec!["a".into(), "b".into(), "c".into()], max_length = 2)] tags: Vec<String>) -> String {
    tags.join(",")
}

fn main() {
    let _ = toolbox![tag];
}
