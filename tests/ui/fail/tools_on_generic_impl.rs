use toolkit::prelude::*;

struct Store<T> {
    inner: T,
}

#[tools]
impl<T: Send + Sync + 'static> Store<T> {
    /// Read a file.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }
}

fn main() {}
