use toolkit::prelude::*;

/// Book a slot.
#[tool]
fn book(
    /// When the slot starts.
    #[arg(format = date_time)]
    start: String,
) -> String {
    start
}

fn main() {
    let _ = toolbox![book];
}
