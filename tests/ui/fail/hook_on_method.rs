use toolkit::prelude::*;

struct Policy;

impl Policy {
    #[hook(before)]
    fn check(&self, call: &mut BeforeCall<'_>) {
        let _ = call;
    }
}

fn main() {
    let _ = Policy;
}
