use toolkit::prelude::*;

#[hook(before, name = "path sandbox")]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = hooks![sandbox];
}
