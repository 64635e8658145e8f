use toolkit::prelude::*;

/// Set the switches.
#[tool]
fn set_switches(
    /// One value per switch.
    #[arg(items_one_of = [true])]
    switches: Vec<bool>,
) -> usize {
    switches.len()
}

fn main() {
    let _ = toolbox![set_switches];
}
