//! Generated code adds no warnings to a crate with strict lints.
#![deny(warnings, missing_docs, missing_debug_implementations, unreachable_pub, unused_qualifications)]
#![deny(unused_results, unused_lifetimes, single_use_lifetimes, elided_lifetimes_in_paths, trivial_casts)]
#![deny(unnameable_types, unit_bindings, let_underscore_drop, unsafe_code)]

use toolkit::prelude::*;

/// Add two integers, undocumented parameters and all.
#[tool(timeout = "1s")]
pub fn add(a: i64, #[arg(default = 2, minimum = 0, maximum = 10)] b: i64) -> Result<i64, std::io::Error> {
    Ok(a + b)
}

/// Tools on a value.
pub mod store {
    use toolkit::prelude::*;

    /// A store.
    #[derive(Debug, Clone, Copy)]
    pub struct Store;

    #[tools]
    impl Store {
        /// Read a path.
        #[tool]
        pub fn read(&self, #[arg(pattern = "^/", max_length = 100)] path: String) -> String {
            path
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let store = std::sync::Arc::new(store::Store);
    let tools = toolbox![add, store.read];
    assert_eq!(tools.call(ToolCall::new("1", "add", r#"{"a": 1}"#)).await.content, "3");
}
