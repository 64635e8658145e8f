use toolkit::prelude::*;

/// Book a slot.
#[tool]
fn book(#[arg(default = "tomorrow at 9", format = "date-time")] start: String) -> String {
    start
}

fn main() {
    let _ = toolbox![book];
}
