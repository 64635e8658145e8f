//! Descriptions computed by `#[doc = include_str!(..)]` and `#[doc = concat!(..)]`.
use toolkit::prelude::*;

#[doc = include_str!("description.md")]
#[tool]
fn define(word: String) -> String {
    word
}

#[doc = concat!("Add ", "two integers.")]
#[tool]
fn add(
    #[doc = concat!("The first ", "addend.")] a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Explicit description wins.
#[tool(description = "Multiply two integers.")]
fn multiply(a: i64, b: i64) -> i64 {
    a * b
}

fn main() {
    let tools = toolbox![define, add, multiply];
    assert!(tools.spec("define").unwrap().description.starts_with("Look up a word"));
    assert_eq!(tools.spec("add").unwrap().description, "Add two integers.");
    assert_eq!(tools.spec("multiply").unwrap().description, "Multiply two integers.");
    let a = &tools.spec("add").unwrap().input_schema["properties"]["a"]["description"];
    assert_eq!(a, "The first addend.");
}
