use toolkit::prelude::*;

/// Pick a size.
#[tool]
fn pick(
    /// The size.
    #[arg(one_of = 5)]
    size: u32,
) -> u32 {
    size
}

fn main() {
    let _ = toolbox![pick];
}
