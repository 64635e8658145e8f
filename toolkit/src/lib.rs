//! # toolkit
//!
//! Turn ordinary Rust functions into tools a language model can call.
//!
//! ```
//! use toolkit::prelude::*;
//!
//! /// Add two integers.
//! ///
//! /// Use for exact integer arithmetic.
//! #[tool(read_only)]
//! fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let tools = toolbox![add];
//! let result = tools.call(ToolCall::new("call_1", "add", r#"{"a": 2, "b": 40}"#)).await;
//! assert_eq!(result.content, "42");
//!
//! let bad = tools.call(ToolCall::new("call_2", "add", r#"{"a": 2}"#)).await;
//! assert_eq!(bad.content, "missing required field `b`; expected {a: integer, b: integer}");
//! # }
//! ```
//!
//! See the repository README for the whole picture: what a tool may take and return,
//! the errors a model gets back, the schema targets, and the measured dispatch cost.
#![deny(missing_docs)]

extern crate self as toolkit;

pub mod call;
pub mod schema;
pub mod tool;
pub mod toolbox;

#[doc(hidden)]
pub mod __private;

pub use call::{
    CallContext, CallRecord, ErrorKind, Outcome, Output, RecordSink, State, ToolCall, ToolError, ToolResult, Violation,
};
pub use schema::{Incompatibility, Target};
pub use tool::{Annotations, Tool, ToolSpec, Validate};
pub use toolbox::{DynTool, FnTool, Limits, Toolbox, ToolboxError};
pub use toolkit_macros::{tool, toolbox, tools};

/// The argument struct `#[tool]` generated for a tool: `Args<read_file>`.
pub type Args<T> = <T as Tool>::Args;

/// Everything a tool author needs, in one import.
pub mod prelude {
    pub use crate::{
        Args, CallContext, ErrorKind, Output, Target, Tool, ToolCall, ToolError, ToolResult, ToolSpec, Toolbox, tool,
        toolbox, tools,
    };
}

/// The README's Rust examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
