use toolkit::prelude::*;

/// Pick a name.
#[tool]
fn pick(
    /// The name.
    #[arg(one_of = ["a", "b"])]
    name: String,
) -> String {
    name
}

fn main() {
    let _ = toolbox![pick];
}
