use toolkit::prelude::*;

/// Look up an order.
#[tool]
fn order(#[arg(default = "latest", pattern = "^ORD-[0-9]{4}$")] id: String) -> String {
    id
}

fn main() {
    let _ = toolbox![order];
}
