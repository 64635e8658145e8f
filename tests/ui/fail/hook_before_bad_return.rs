use toolkit::prelude::*;

#[hook(before)]
fn sandbox(call: &mut BeforeCall<'_>) -> bool {
    call.tool() != "delete_file"
}

fn main() {
    let _ = hooks![sandbox];
}
