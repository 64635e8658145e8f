use std::rc::Rc;
use toolkit::prelude::*;

async fn pause() {}

/// Count to a number.
#[tool]
async fn count(to: u32) -> u32 {
    let shared = Rc::new(to);
    pause().await;
    *shared
}

fn main() {
    let _ = toolbox![count];
}
