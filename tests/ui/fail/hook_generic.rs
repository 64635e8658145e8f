use toolkit::prelude::*;

#[hook(before)]
fn sandbox<T: Default>(call: &mut BeforeCall<'_>) {
    let _ = (call, T::default());
}

fn main() {
    let _ = hooks![sandbox];
}
