use toolkit::prelude::*;

#[hook(after)]
fn audit(out: &mut AfterCall<'_>, raw: Option<&i64>) {
    let _ = (out, raw);
}

fn main() {
    let _ = hooks![audit];
}
