use toolkit::prelude::*;

struct Counter {
    count: u64,
}

#[tools]
impl Counter {
    /// Add one to the counter.
    #[tool]
    fn increment(&mut self) -> u64 {
        self.count += 1;
        self.count
    }
}

fn main() {
    let value = std::sync::Arc::new(Counter { count: Default::default() });
    let _ = toolbox![value.increment];
}
