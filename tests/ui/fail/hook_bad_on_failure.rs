use toolkit::prelude::*;

#[hook(before, on_failure = "ignore")]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = hooks![sandbox];
}
