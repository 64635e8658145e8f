use toolkit::prelude::*;

#[hook(before, name = "policy")]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

#[hook(after, name = "policy")]
fn truncate(out: &mut AfterCall<'_>) {
    let _ = out;
}

fn main() {
    let _ = hooks![sandbox, truncate];
}
