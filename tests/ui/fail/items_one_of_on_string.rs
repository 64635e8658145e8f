use toolkit::prelude::*;

/// File a story.
#[tool]
fn file_story(
    /// The section it appears in.
    #[arg(items_one_of = ["news", "sports"])]
    section: String,
) -> String {
    section
}

fn main() {
    let _ = toolbox![file_story];
}
