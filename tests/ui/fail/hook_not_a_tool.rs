use toolkit::prelude::*;

struct Calculator;

#[hook(before, tools = [Calculator])]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = (Calculator, hooks![sandbox]);
}
