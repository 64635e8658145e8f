use toolkit::prelude::*;

#[hook(before)]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

struct Audit;

fn main() {
    let _ = (Audit, hooks![sandbox, Audit]);
}
