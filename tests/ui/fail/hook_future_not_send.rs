use std::rc::Rc;
use toolkit::prelude::*;

async fn pause() {}

#[hook(before)]
async fn sandbox(call: &mut BeforeCall<'_>) -> Decision {
    let seen = Rc::new(call.tool().to_string());
    pause().await;
    Decision::Block(seen.to_string())
}

fn main() {
    let _ = hooks![sandbox];
}
