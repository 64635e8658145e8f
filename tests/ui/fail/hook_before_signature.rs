use toolkit::prelude::*;

#[hook(before)]
fn sandbox(call: &BeforeCall<'_>) -> Decision {
    let _ = call;
    Decision::Continue
}

fn main() {
    let _ = hooks![sandbox];
}
