use toolkit::prelude::*;

#[hook(error)]
fn friendly(err: &ToolError) -> Recovery {
    Recovery::Message(err.message.clone())
}

fn main() {
    let _ = hooks![friendly];
}
