use toolkit::prelude::*;

#[hook(before)]
fn sandbox() -> Decision {
    Decision::Continue
}

fn main() {
    let _ = hooks![sandbox];
}
