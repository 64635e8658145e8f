use toolkit::prelude::*;

struct Store;

#[tools(read_only)]
impl Store {
    /// Read a file.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {
    let store = std::sync::Arc::new(Store);
    let _ = toolbox![store.read];
}
