use toolkit::prelude::*;

#[derive(Debug)]
struct Denied;

#[hook(before)]
fn sandbox(call: &mut BeforeCall<'_>) -> Result<(), Denied> {
    if call.tool() == "delete_file" { Err(Denied) } else { Ok(()) }
}

fn main() {
    let _ = hooks![sandbox];
}
