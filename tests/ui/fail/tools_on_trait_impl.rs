use toolkit::prelude::*;

trait Reader {
    fn read(&self, path: String) -> String;
}

struct Store;

#[tools]
impl Reader for Store {
    /// Read a file.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {}
