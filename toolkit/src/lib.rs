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
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate self as toolkit;

pub mod agent;
pub mod call;
pub mod context;
pub mod error;
mod exec;
pub mod hook;
pub mod hooks;
mod limits;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
pub mod model;
pub mod record;
pub mod schema;
pub mod spec;
pub mod tool;
pub mod toolbox;

#[doc(hidden)]
pub mod __private;

pub use call::{Output, ToolCall, ToolCallRef, ToolResult};
pub use context::{CallContext, State};
pub use error::{ErrorKind, ToolError, Violation};
pub use hook::{AfterCall, BeforeCall, Decision, ErrorCall, Hook, HookError, Hooks, OnFailure, Recovery, Scope};
pub use limits::Limits;
pub use record::{CallRecord, Effect, HookAction, Outcome, RecordSink};
pub use schema::{Incompatibility, Target};
pub use spec::{Annotations, ToolSpec};
pub use tool::{DynTool, FnTool, Tool, Validate};
pub use toolbox::{Toolbox, ToolboxError};
pub use toolkit_macros::{tool, tools};

/// Builds a [`Toolbox`] of `#[tool]` functions and methods, its names checked at compile
/// time: `toolbox![get_weather, files::read_file, store.search]`.
///
/// Entries are paths to `#[tool]` functions, or `value.method` for a `#[tool]` method
/// (in a `#[tools]` impl block) of an `Arc` value. Two tools with the same name are a
/// compile error at the second one. The macro reaches this crate through `$crate`, so it
/// works under any name the dependency is given.
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let tools = toolbox![add];
/// assert_eq!(tools.names(), ["add"]);
/// ```
#[macro_export]
macro_rules! toolbox {
    ($($entries:tt)*) => {
        $crate::__private::toolbox_impl!($crate; $($entries)*)
    };
}

/// Makes a function a hook: code that runs around tool calls and governs them.
///
/// Put `#[hook(before)]`, `#[hook(after)]` or `#[hook(error)]` on a free `fn` or
/// `async fn` taking the event's context:
///
/// | event | takes | returns |
/// |---|---|---|
/// | `before` | `call: &mut BeforeCall<'_>` | `()`, [`Decision`], `Result<(), E>`, `Result<Decision, E>` |
/// | `after` | `out: &mut AfterCall<'_>` | `()`, `Result<(), E>` |
/// | `error` | `err: &mut ErrorCall<'_>`, or `err: &ErrorCall<'_>` in a sync hook | `()`, [`Recovery`], `Result<(), E>`, `Result<Recovery, E>` |
///
/// `E` is any `Display`: an `Err` makes the hook fail, and its failure policy applies.
/// An async hook's future must be `Send`.
///
/// A hook of exactly one tool (`tools = [read_file]`) may work on that tool's own types,
/// checked at compile time:
///
/// - a before hook may take the tool's argument struct, `args: &mut ReadFileArgs`: the
///   struct `#[tool]` generated, named after the function in CamelCase with `Args`, also
///   written `&mut Args<read_file>` (`read_file::Args` cannot name it: `read_file` is a
///   function, not a module). For a tool of that name defined at run time, the hook
///   does nothing.
/// - an after hook may take a second parameter, `raw: Option<&T>`, where `T` is what the
///   tool returns on success (the `T` of `-> T` or `-> Result<T, E>`, which must be
///   `Send + Sync`): the value itself, not its JSON; `None` for a cached output. Tools
///   that return text or `()` have no typed output to read.
///
/// Options:
///
/// | option | meaning |
/// |---|---|
/// | `before`, `after`, `error` | the event (exactly one) |
/// | `tools = [read_file, files::write_file]` | act only on these `#[tool]` functions (a path that is not one is a compile error) |
/// | `matching = "mcp_*"` | act only on tools whose name matches (`*`: any run of characters, `?`: one); for tools known only at run time; not with `tools` |
/// | `priority = 10` | higher runs first (default `0`; may be negative) |
/// | `on_failure = block` or `continue` | when the hook fails: block the call, or carry on (default: `block` before, `continue` after and on error) |
/// | `timeout = "2s"` | how long an `async fn` hook may take; past it, the hook has failed |
/// | `name = "sandbox"` | the hook's name (default: the function's), unique within a registry |
/// | `crate = path` | the path of this crate, if not `::toolkit` |
///
/// The function stays as written and callable. Beside it, the macro generates a struct of
/// the same name (types and functions live apart) with `NAME`, `hook()` (the [`Hook`]
/// with its options) and `Into<Hook>`; list hooks with [`hooks!`](macro@crate::hooks).
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Read a file.
/// #[tool(read_only)]
/// fn read_file(path: String) -> String {
///     format!("contents of {path}")
/// }
///
/// /// Keeps the model out of system directories.
/// #[hook(before, priority = 10)]
/// fn sandbox(call: &mut BeforeCall<'_>) -> Decision {
///     match call.arguments().get("path").and_then(|p| p.as_str()) {
///         Some(p) if p.starts_with("/etc") => Decision::Block(format!("`{p}` is outside the sandbox")),
///         _ => Decision::Continue,
///     }
/// }
///
/// /// Makes relative paths absolute, on `read_file`'s own argument struct.
/// #[hook(before, tools = [read_file])]
/// fn absolute(args: &mut ReadFileArgs) {
///     if !args.path.starts_with('/') {
///         args.path = format!("/data/{}", args.path);
///     }
/// }
///
/// /// Tells the model what went wrong in its own words.
/// #[hook(error)]
/// fn friendly(err: &ErrorCall<'_>) -> Recovery {
///     Recovery::Message(format!("that did not work: {}", err.error().message))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let tools = toolbox![read_file].with_hooks(hooks![sandbox, absolute, friendly]);
/// let r = tools.call(ToolCall::new("1", "read_file", r#"{"path": "notes.txt"}"#)).await;
/// assert_eq!(r.content, "contents of /data/notes.txt");
/// let r = tools.call(ToolCall::new("2", "read_file", r#"{"path": "/etc/passwd"}"#)).await;
/// assert_eq!(r.content, "blocked: `/etc/passwd` is outside the sandbox");
/// let r = tools.call(ToolCall::new("3", "write_file", "{}")).await;
/// assert_eq!(r.content, "that did not work: unknown tool `write_file`; available tools: `read_file`");
/// assert_eq!(sandbox::hook().get_priority(), 10);
/// # }
/// ```
pub use toolkit_macros::hook;

/// A [`Hooks`] set of `#[hook]` functions, listed by path: `hooks![sandbox,
/// policy::audit]`. They run by priority, then in the order listed; two hooks with the
/// same name are a compile error.
///
/// ```
/// use toolkit::prelude::*;
///
/// mod policy {
///     use toolkit::prelude::*;
///
///     /// Notes every output's length.
///     #[hook(after)]
///     pub fn audit(out: &mut AfterCall<'_>) {
///         let _ = out.text().len();
///     }
/// }
///
/// /// Runs first.
/// #[hook(before, priority = 1)]
/// fn sandbox(_call: &mut BeforeCall<'_>) {}
///
/// let hooks = hooks![policy::audit, sandbox];
/// assert_eq!(hooks.names(), ["sandbox", "audit"]);
/// let tools = Toolbox::new().with_hooks(hooks);
/// assert_eq!(tools.hooks().len(), 2);
/// ```
#[macro_export]
macro_rules! hooks {
    ($($entries:tt)*) => {
        $crate::__private::hooks_impl!($crate; $($entries)*)
    };
}

/// The argument struct `#[tool]` generated for a tool: `Args<read_file>`.
pub type Args<T> = <T as Tool>::Args;

/// Everything a tool author needs, in one import.
pub mod prelude {
    pub use crate::{
        AfterCall, Args, BeforeCall, CallContext, CallRecord, Decision, ErrorCall, ErrorKind, Hook, Hooks, Output,
        Recovery, Scope, Target, Tool, ToolCall, ToolCallRef, ToolError, ToolResult, ToolSpec, Toolbox,
        agent::Agent,
        hook, hooks,
        model::{Message, Model, ScriptedModel, ToolChoice, Turn},
        tool, toolbox, tools,
    };
}

/// The README's Rust examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
