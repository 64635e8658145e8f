use toolkit::prelude::*;

/// File a story.
#[tool]
fn file_story(
    /// The sections it appears in.
    #[arg(items_one_of = "news")]
    sections: Vec<String>,
) -> String {
    sections.join(",")
}

fn main() {
    let _ = toolbox![file_story];
}
