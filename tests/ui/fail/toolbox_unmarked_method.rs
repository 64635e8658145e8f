use std::sync::Arc;
use toolkit::prelude::*;

struct Store;

#[tools]
impl Store {
    /// Read a file.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }

    /// Write a file (but not marked `#[tool]`).
    fn write(&self, path: String) -> String {
        path
    }
}

fn main() {
    let store = Arc::new(Store);
    let _ = store.write(String::new());
    let _ = toolbox![store.read, store.write];
}
