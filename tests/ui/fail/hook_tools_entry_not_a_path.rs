use toolkit::prelude::*;

#[hook(before, tools = ["mcp_search"])]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = hooks![sandbox];
}
