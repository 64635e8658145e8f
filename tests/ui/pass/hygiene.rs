//! The user's own names must not break an expansion: generated code reaches the runtime
//! only through `::toolkit::__private` and `::core`/`::std` paths.
#![allow(dead_code)]

use ::toolkit::prelude::{ToolCall, toolbox};
use user::{Counter, add, maybe};

mod user {
    use ::toolkit::prelude::{tool, tools};

    // Shadows of names the expansion could have used unqualified.
    #[derive(Debug)]
    pub struct AppError;
    impl std::fmt::Display for AppError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("app error")
        }
    }
    type Result<T> = std::result::Result<T, AppError>;
    struct Box;
    struct Option;
    struct Vec;
    struct Some;
    struct Ok;
    struct Err;
    struct Arc;
    struct LazyLock;
    struct Default;
    trait Clone {}
    trait Debug {}
    trait Send {}
    trait Future {}
    mod toolkit {}
    mod serde {}
    mod core {}
    mod std_shadow {}
    fn from_context() {}
    fn from_state() {}
    fn run() {}

    /// Add two integers.
    #[tool]
    pub fn add(a: i64, #[arg(default = 1)] b: i64) -> Result<i64> {
        if a == i64::MIN { Result::Err(AppError) } else { Result::Ok(a + b) }
    }

    /// An optional value.
    #[tool]
    pub fn maybe(#[arg(minimum = 0, maximum = 10)] value: ::std::option::Option<u8>) -> ::std::string::String {
        ::std::format!("{value:?}")
    }

    pub struct Counter;

    #[tools]
    impl Counter {
        /// Echo a word.
        #[tool]
        pub fn echo(
            &self,
            #[arg(pattern = "^[a-z]+$", min_length = 1)] word: ::std::string::String,
        ) -> ::std::string::String {
            word
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let counter = ::std::sync::Arc::new(Counter);
    let tools = toolbox![add, maybe, counter.echo];
    let r = tools.call(ToolCall::new("1", "add", r#"{"a": 2}"#)).await;
    assert_eq!(r.content, "3");
    let r = tools.call(ToolCall::new("2", "maybe", r#"{"value": 11}"#)).await;
    assert!(r.is_error());
    let r = tools.call(ToolCall::new("3", "echo", r#"{"word": "hi"}"#)).await;
    assert_eq!(r.content, "hi");
}
