use toolkit::prelude::*;

struct Store;

#[tools]
impl Store {
    /// Read a file.
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {}
