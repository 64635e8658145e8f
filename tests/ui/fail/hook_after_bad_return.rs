use toolkit::prelude::*;

#[hook(after)]
fn truncate(out: &mut AfterCall<'_>) -> String {
    out.text().chars().take(100).collect()
}

fn main() {
    let _ = hooks![truncate];
}
