use toolkit::prelude::*;

#[hook(before, priority = 1, priority = 2)]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = hooks![sandbox];
}
