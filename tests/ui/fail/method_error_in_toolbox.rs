use std::sync::Arc;
use toolkit::prelude::*;

struct Store;

#[tools]
impl Store {
    /// Read a file.
    #[tool(read_onyl)]
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {
    let store = Arc::new(Store);
    let _ = toolbox![store.read];
}
