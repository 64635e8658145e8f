use std::sync::Arc;

use toolkit::prelude::*;

struct Counter;

impl Counter {
    /// Tell the count.
    #[tool]
    fn count(&self) -> u64 {
        0
    }
}

fn main() {
    let counter = Arc::new(Counter);
    let _ = toolbox![counter.count];
}
