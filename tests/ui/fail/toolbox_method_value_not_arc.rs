use toolkit::prelude::*;

pub struct Counter;

#[tools]
impl Counter {
    /// Count.
    #[tool]
    fn count(&self) -> u64 {
        1
    }
}

fn main() {
    let c = Counter;
    let _ = toolbox![c.count];
}
