use toolkit::prelude::*;

#[hook(before, timeout = "2s")]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = hooks![sandbox];
}
