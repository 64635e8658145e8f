use toolkit::prelude::*;

/// File a story.
#[tool]
fn file_story(
    #[arg(default = vec!["news".into(), "gossip".into()], items_one_of = ["news", "sports"])] sections: Vec<String>,
) -> String {
    sections.join(",")
}

fn main() {
    let _ = toolbox![file_story];
}
