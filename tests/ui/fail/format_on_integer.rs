use toolkit::prelude::*;

/// Wait a while.
#[tool]
fn wait(
    /// How long, in seconds.
    #[arg(format = "duration")]
    seconds: u64,
) -> u64 {
    seconds
}

fn main() {
    let _ = toolbox![wait];
}
