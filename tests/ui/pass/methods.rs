//! `#[tools]` methods: sync, async and blocking, sharing one value.
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use toolkit::prelude::*;

#[derive(Default)]
struct Counter {
    count: AtomicU64,
}

#[tools]
impl Counter {
    /// Add to the counter.
    #[tool]
    fn add(&self, by: u64) -> u64 {
        self.count.fetch_add(by, Ordering::SeqCst) + by
    }

    /// Read the counter.
    #[tool(read_only, name = "current")]
    async fn get(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Reset the counter (blocks).
    #[tool(blocking)]
    fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
    }

    /// Not a tool: an ordinary method in the same block.
    fn double(&self) -> u64 {
        self.count.load(Ordering::SeqCst) * 2
    }
}

#[tokio::main]
async fn main() {
    let counter = Arc::new(Counter::default());
    let tools = toolbox![counter.add, counter.get, counter.reset];
    assert_eq!(tools.call(ToolCall::new("1", "add", r#"{"by": 2}"#)).await.content, "2");
    assert_eq!(tools.call(ToolCall::new("2", "current", "{}")).await.content, "2");
    assert_eq!(counter.double(), 4);
    tools.call(ToolCall::new("3", "reset", "{}")).await;
    assert_eq!(counter.add(0), 0);
}
