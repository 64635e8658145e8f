use toolkit::prelude::*;

#[hook(before, timeout = "soon")]
async fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = hooks![sandbox];
}
