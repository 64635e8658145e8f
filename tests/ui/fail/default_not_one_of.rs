use toolkit::prelude::*;

/// Pick a plan.
#[tool]
fn pick(#[arg(default = 3, one_of = [1, 5, 25])] seats: u32) -> String {
    seats.to_string()
}

fn main() {
    let _ = toolbox![pick];
}
