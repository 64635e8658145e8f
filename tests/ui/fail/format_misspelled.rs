use toolkit::prelude::*;

/// Book a slot.
#[tool]
fn book(
    /// When the slot starts.
    #[arg(format = "datetime")]
    start: String,
    /// Who to tell.
    #[arg(format = "")]
    notify: String,
) -> String {
    format!("{start} {notify}")
}

fn main() {
    let _ = toolbox![book];
}
