use toolkit::prelude::*;

#[hook(error)]
fn friendly(err: &ErrorCall<'_>) -> Decision {
    let _ = err;
    Decision::Continue
}

fn main() {
    let _ = hooks![friendly];
}
