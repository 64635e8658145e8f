use toolkit::prelude::*;

#[hook(error)]
async fn friendly(err: &ErrorCall<'_>) -> Recovery {
    Recovery::Message(err.error().message.clone())
}

fn main() {
    let _ = hooks![friendly];
}
