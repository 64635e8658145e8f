use toolkit::prelude::*;

#[hook(after)]
fn truncate(out: &mut AfterCall<'_>, limit: usize) {
    let _ = (out, limit);
}

fn main() {
    let _ = hooks![truncate];
}
