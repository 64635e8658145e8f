use toolkit::prelude::*;

#[hook(before, matching = "")]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = hooks![sandbox];
}
