use toolkit::prelude::*;

/// Say hello.
#[tool]
fn hello<'a>(name: String) -> &'a [u8] {
    let _ = name;
    &[]
}

fn main() {
    let _ = toolbox![hello];
}
