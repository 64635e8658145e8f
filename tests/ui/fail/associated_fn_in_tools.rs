use toolkit::prelude::*;

struct Store;

#[tools]
impl Store {
    /// Read a file.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }

    /// Say hello.
    #[tool]
    fn hello() -> String {
        "hello".into()
    }
}

fn main() {
    let value = std::sync::Arc::new(Store);
    let _ = toolbox![value.read, value.hello];
}
