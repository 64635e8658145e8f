use toolkit::prelude::*;

struct Store;

impl Store {
    /// Read a file.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {}
