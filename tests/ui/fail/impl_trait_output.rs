use toolkit::prelude::*;

/// Say hello.
#[tool]
fn hello(name: String) -> impl std::fmt::Display {
    name
}

fn main() {
    let _ = toolbox![hello];
}
