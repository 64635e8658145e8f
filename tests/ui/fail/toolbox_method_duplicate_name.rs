use std::sync::Arc;
use toolkit::prelude::*;

/// Read a file from disk.
#[tool]
fn read(path: String) -> String {
    path
}

struct Store;

#[tools]
impl Store {
    /// Read a file from the store.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {
    let store = Arc::new(Store);
    let _ = toolbox![read, store.read];
}
