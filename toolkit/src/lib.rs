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
//! # At a glance
//!
//! | what | where |
//! |---|---|
//! | a tool from a function: schema from its signature and doc comments, parsing with errors the model can act on | [`#[tool]`](macro@tool), [`#[tools]`](macro@tools) for `&self` methods, [`toolbox!`] |
//! | a dispatch table: one call, or many in parallel with one result per call id | [`Toolbox::call`], [`Toolbox::call_all`], tools defined at run time with [`FnTool`] |
//! | hooks that govern every call: rewrite or block before, rewrite after, recover from errors | [`#[hook]`](macro@hook), [`hooks!`](macro@hooks), [`Hook`], [`Decision`], [`Recovery`] |
//! | built-in hooks: audit log, redaction, path sandbox, rate limit, circuit breaker, cache, loop guard, approval, effect ledger | [`hooks`](mod@hooks), their state in a [`Store`](hooks::store::Store) (memory, a directory, Redis) |
//! | one record per call, whatever happened | [`CallRecord`], [`RecordSink`] |
//! | schemas for every provider, checked before a provider refuses them | [`Toolbox::export`], [`Toolbox::validate`], [`Target`] |
//! | the agent loop, with native clients for OpenAI, Anthropic and Gemini and an offline scripted model | [`agent::Agent`], [`model`] |
//! | runs that pause on a call, persist and resume in any process; effects at most once | [`durable`], [`agent::Agent::resume`], [`hooks::EffectLedger`] |
//! | serving tools over MCP, and importing an MCP server's tools | `mcp` (feature `mcp`) |
//!
//! Features: `openai`, `anthropic`, `gemini` (the model clients), `mcp`, `redis`
//! (`RedisStore`: hook state shared by processes), `fs` (`SafeDir`), `otel` (MCP calls
//! continue the caller's OpenTelemetry trace: `traceparent` in `_meta`; the
//! `gen_ai.execute_tool.duration` histogram, [`otel::ToolMetrics`]). The [`guide`]s are
//! the manual: what a tool may take and return and the errors a model gets back
//! ([`guide::tools`]), hooks and each guard's guarantees ([`guide::hooks`]), agents and
//! durable runs ([`guide::agents`]), MCP ([`guide::mcp`]), the choices and the measured
//! cost ([`guide::choices`]), and testing ([`guide::testing_an_agent`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate self as toolkit;

pub mod agent;
pub mod call;
pub mod context;
mod digest;
pub mod durable;
pub mod error;
mod exec;
pub mod guide;
pub mod hook;
pub mod hooks;
mod json_schema;
mod limits;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
pub mod model;
mod nearest;
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod otel;
pub mod parts;
pub mod progress;
pub mod record;
pub mod schema;
pub mod search;
pub mod spec;
pub mod testing;
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
pub use spec::{Annotations, Callers, Icon, ParamHeader, RetryPolicy, ToolSpec};
pub use tool::{DynTool, FnTool, Tool, Validate};
pub use toolbox::{Toolbox, ToolboxError};
/// Makes a function a tool a language model can call.
///
/// On an `async fn`, a sync `fn`, or (inside a [`#[tools]`](macro@tools) `impl` block) a
/// `&self` method. The function stays as written and callable; beside it the macro
/// generates the argument struct (`GetWeatherArgs`, also [`Args<get_weather>`](Args)),
/// the tool's [`ToolSpec`] (built once), and a handle named like the function for
/// [`toolbox!`].
///
/// # Descriptions
///
/// The tool's description is its doc comment; each parameter's is the parameter's `///`
/// comment. A tool without a doc comment is a compile error (the model decides by the
/// description); `description = "..."` replaces it.
///
/// # Options: `#[tool(...)]`
///
/// | option | meaning |
/// |---|---|
/// | `name = "get_weather"` | the name the model calls the tool by (default: the function's) |
/// | `title = "Current weather"` | a human title (MCP `title`) |
/// | `icon = "https://example.com/sun.svg"` | an icon an MCP client may show (MCP `icons`; an `https://` URL or a `data:image/` URI, checked when the crate builds; the MIME type is read from the extension or the URI) |
/// | `description = "..."` | replaces the doc comment |
/// | `timeout = "10s"` | per call; past it the call fails as `timed_out`. A positive number (decimals allowed) and a unit: `ms`, `s` (or `sec`, `secs`), `m` (or `min`, `mins`) or `h`, with or without a space: `"500ms"`, `"10s"`, `"1.5s"`, `"2 min"`, `"1h"`. Anything else (`"10 seconds"`) is a compile error |
/// | `retries = 3`, `backoff = "200ms"` | run a failed call again (a tool error or a timeout), up to 3 times, the first after about 200 ms (the default), doubling, with jitter ([`RetryPolicy`], [`hooks::Retry`]); only for a `read_only` or `idempotent` tool that is not `destructive` (else a compile error); each retry is in the call's record |
/// | `example = {"city": "Paris", "days": 3}` | example arguments, repeatable, written as JSON: keys, required parameters and plain types are checked when the crate builds, the rest by a generated test that parses each as a call; sent as Anthropic's `input_examples`, at the end of the description to other providers, and shown in the Markdown docs |
/// | `freeform` | the model writes the one `String` parameter as plain text, not JSON (code, SQL, a patch): an OpenAI custom tool, whose raw text comes back as that parameter's value; elsewhere a function with that one string parameter ([`spec::Freeform`]) |
/// | `lark = "start: ..."`, `regex = "[0-9]+"` | a free-form tool whose text follows a grammar: checked when the crate builds (a Lark grammar's tokens, definitions, names, `start` rule and terminal regexes; a regex compiled); sent as the custom tool's `grammar` to OpenAI, in the description elsewhere; a regex is also the parameter's `pattern`, checked on every call |
/// | `programmatic` | programs the model writes may call the tool too (programmatic tool calling, [`Callers`]): Anthropic and OpenAI Responses get `allowed_callers` and the output's shape, and requests carry their program runner; the output must be JSON (a struct; else a compile error) with an object schema ([`schema::check`] says when it is not) |
/// | `defer` | not sent to the model at first: the toolbox adds `search_tools`, which finds deferred tools by what the model needs (BM25 over names, descriptions and parameters; by meaning too with [`Toolbox::with_embedder`]), and an agent run sends each tool found from the next turn on ([`search`]) |
/// | `read_only`, `destructive`, `idempotent`, `open_world` | effect annotations: exported (MCP hints), and read by hooks (only `read_only`/`idempotent` tools are retried or cached; `ApprovalGate::destructive()` asks about `destructive` ones) |
/// | `strict` | ask OpenAI for strict mode (Structured Outputs) when the schema allows it |
/// | `blocking` | a sync function that blocks (file or network I/O): runs on Tokio's blocking pool |
/// | `require_param_docs` | a parameter the model sends without a `///` comment is a compile error (by default it compiles, with no description) |
/// | `crate = path` | the path of this crate, when it is not `::toolkit` |
///
/// # Parameters: `#[arg(...)]`
///
/// Any `T: Deserialize + JsonSchema` (with `schema_with`, any `T: Deserialize`).
/// `Option<T>` is optional. Keywords work (`r#type` is `type` on the wire).
///
/// | option | meaning |
/// |---|---|
/// | `default` / `default = expr` | optional, with the type's `Default` or this value. A string literal converts with `From<&str>` (`String`, `PathBuf`, ...) or, for any other `Deserialize` type, is read as the model would send it: `default = "celsius"` for an enum that serializes its variant `Celsius` as `"celsius"` (read when the spec is first built; a string that is no value of the type panics there, naming the parameter). A literal default that breaks the parameter's own `minimum`, `maximum`, `one_of`, lengths, `pattern`, `items_one_of` or checked `format` is a compile error at the default, as is a string default for a number or a `bool` |
/// | `rename = "dueDate"` | the name on the wire |
/// | `minimum = 1`, `maximum = 50` | bounds of a number, in the schema and checked when parsing |
/// | `min_length = 1`, `max_length = 200` | characters of a string, items of a list |
/// | `pattern = "^[a-z]+$"` | a regular expression a string must match (compiled when the crate builds: an invalid one is a compile error) |
/// | `one_of = [1, 5, 25]` | the values a number may take: an `enum` in the schema, checked when parsing |
/// | `items_one_of = ["news", "sports"]` | the values each item of a list (`Vec`, array, set; of strings or numbers) may take: an `enum` in the schema's `items`, checked when parsing (the error names the item: ``got "gossip" at `sections[2]` ``) |
/// | `format = "date-time"` | the JSON Schema `format` of a string. Checked when parsing for `date-time`, `date`, `time` (RFC 3339), `ipv4`, `ipv6` and `uuid`; any other format (`email`, `uri`, ...) is only published in the schema. A misspelled standard format (`datetime`) is a compile error |
/// | `header = "Region"` | MCP clients also send the argument as the HTTP header `Mcp-Param-Region` (2026-07-28; `x-mcp-header` in the MCP export), checked by the HTTP server against the argument; a string, integer or boolean parameter (or an `Option` of one), an HTTP token, one header per parameter |
/// | `schema_with = path::to::function` | the parameter's whole schema, from `fn(&mut schemars::SchemaGenerator) -> schemars::Schema` (as `#[schemars(schema_with)]`) or `fn() -> schemars::Schema`; the type then needs no `JsonSchema`. The doc comment's description and the default are added to it; the constraints above cannot go with it (write them into the schema; they are then not checked when parsing) |
///
/// A constraint broken by the model's arguments is an error naming the parameter and the
/// rule: ``invalid argument: `query` must have at least 1 character (got 0)``.
///
/// What the published schema admits, the parser takes: an integer parameter takes a
/// number with no fraction however it is written (`10.0`, `1e2`), as JSON Schema 2020-12
/// counts it an integer (a fraction, or more digits than a float holds, is refused); an
/// optional parameter takes `null` as absent, and its `one_of` lists `null` too.
///
/// # Injected parameters
///
/// Never in the schema, never sent by the model:
///
/// - `#[context] cx: &CallContext<'_>`: the call id, the spec, the shared state;
/// - `#[state] db: &Db` or `#[state] db: Arc<Db>`: a value given with
///   [`Toolbox::with_state`] (a `blocking` tool takes `Arc<Db>`: it runs on another
///   thread). A call whose state was never given fails as `unavailable`.
///
/// # What a tool returns
///
/// | returns | the model reads |
/// |---|---|
/// | `String`, `&'static str`, `Cow<'static, str>` | the text |
/// | `()` | `ok` |
/// | any other `T: Serialize` | its JSON; with `T: JsonSchema` the tool also publishes an output schema (MCP `outputSchema`, typed after hooks) |
/// | `Result<T, E>` with `E: Display` | `T` as above, or `E`'s text (its `source()` chain is kept for the operator) |
///
/// Text is recognised by the spelled type: a type alias of `String` is sent as a JSON
/// string, so spell `String`.
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
/// use toolkit::prelude::*;
///
/// #[derive(Default, Deserialize, Serialize, JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// pub enum Unit { #[default] Celsius, Fahrenheit }
///
/// #[derive(Serialize, JsonSchema)]
/// pub struct Weather { location: String, temperature: f64 }
///
/// pub struct Db { base: f64 }
///
/// /// Get the current weather for a city.
/// #[tool(read_only, timeout = "10s")]
/// async fn get_weather(
///     /// City name, for example "Beijing".
///     #[arg(min_length = 1, max_length = 100)]
///     location: String,
///     /// Temperature unit.
///     #[arg(default)]
///     unit: Unit,
///     /// How many days back, 0 for today.
///     #[arg(default = 0, maximum = 7, rename = "daysBack")]
///     days_back: u8,
///     #[state] db: &Db,
///     #[context] cx: &CallContext<'_>,
/// ) -> Result<Weather, std::io::Error> {
///     let _ = (days_back, cx.call_id());
///     let celsius = db.base;
///     let temperature = match unit { Unit::Celsius => celsius, Unit::Fahrenheit => celsius * 1.8 + 32.0 };
///     Ok(Weather { location, temperature })
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![get_weather].with_state(Db { base: 20.0 });
/// let spec = tools.spec("get_weather").unwrap();
/// assert_eq!(spec.expected, r#"{location: string, unit?: "celsius" | "fahrenheit", daysBack?: integer}"#);
/// let r = tools.call(ToolCall::new("1", "get_weather", r#"{"location": "Oslo", "unit": "fahrenheit"}"#)).await;
/// assert_eq!(r.content, r#"{"location":"Oslo","temperature":68.0}"#);
/// let r = tools.call(ToolCall::new("2", "get_weather", r#"{"location": "", "daysBack": 9}"#)).await;
/// assert!(r.content.starts_with("invalid argument: `location` must have at least 1 character"), "{}", r.content);
/// # }
/// ```
///
/// Mistakes in a tool definition are compile errors that point at the token and say
/// the fix (a missing doc comment, a generic or borrowed parameter, a `blocking` async
/// function, an invalid `pattern` or `timeout`, ...).
pub use toolkit_macros::tool;

/// Makes the `#[tool]` methods of an inherent `impl` block tools: `&self` methods of a
/// type that holds state (a client, a connection pool).
///
/// List them in [`toolbox!`] as `value.method`, where `value` is an `Arc` of the type:
/// each tool holds a clone of the `Arc`. Methods without `#[tool]` stay ordinary methods.
/// `#[tool]` on a method outside a `#[tools]` block is a compile error that says so.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use toolkit::prelude::*;
///
/// pub struct Counter { n: AtomicU64 }
///
/// #[tools]
/// impl Counter {
///     /// Add one and tell the new count.
///     #[tool]
///     fn bump(&self) -> u64 {
///         self.n.fetch_add(1, Ordering::Relaxed) + 1
///     }
///
///     /// Tell the count.
///     #[tool(read_only)]
///     async fn read(&self) -> u64 {
///         self.n.load(Ordering::Relaxed)
///     }
///
///     /// Not a tool.
///     pub fn reset(&self) {
///         self.n.store(0, Ordering::Relaxed);
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let counter = Arc::new(Counter { n: AtomicU64::new(0) });
/// let tools = toolbox![counter.bump, counter.read];
/// tools.call(ToolCall::new("1", "bump", "{}")).await;
/// assert_eq!(tools.call(ToolCall::new("2", "read", "{}")).await.content, "1");
/// counter.reset();
/// assert_eq!(tools.call(ToolCall::new("3", "read", "{}")).await.content, "0");
/// # }
/// ```
pub use toolkit_macros::tools;

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
/// | `timeout = "2s"` | how long an `async fn` hook may take; past it, the hook has failed. Written as a tool's `timeout`: a positive number and `ms`, `s` (`sec`, `secs`), `m` (`min`, `mins`) or `h` |
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
/// /// Cuts long results: the model reads the rewritten text, `out.output()` stays whole.
/// #[hook(after)]
/// fn cut(out: &mut AfterCall<'_>) {
///     if out.text().len() > 20 {
///         let head: String = out.text().chars().take(20).collect();
///         out.set_text(format!("{head}… (cut)"));
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let tools = toolbox![read_file].with_hooks(hooks![sandbox, absolute, friendly, cut]);
/// let r = tools.call(ToolCall::new("1", "read_file", r#"{"path": "notes.txt"}"#)).await;
/// assert_eq!(r.content, "contents of /data/no… (cut)");
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
