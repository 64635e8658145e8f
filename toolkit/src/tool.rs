//! What a tool is to the runtime: the [`Tool`] trait, which `#[tool]` implements for a
//! function known at compile time, and [`DynTool`] for a tool defined at run time (for
//! example, imported from an MCP server). Both run through the same call path.

use std::future::Future;

use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::call::Output;
use crate::context::CallContext;
use crate::error::ToolError;
use crate::spec::ToolSpec;

/// A tool known at compile time, implemented by `#[tool]` (and `#[tools]` for
/// methods) on a zero-sized handle type named like the function.
///
/// The runtime parses the model's JSON straight into [`Tool::Args`], validates it, and
/// calls [`Tool::invoke`]. Only that much is compiled per tool: the drivers, the hook
/// pipeline, the timeout guard, records and error messages are compiled once and reach
/// the tool through a type-erased boundary.
///
/// Implementing it by hand takes an argument type, an output type (what typed after
/// hooks may read: use the type `invoke` turns into text, or `()`), a name, a spec and
/// `invoke`; the hidden items have defaults.
///
/// ```
/// use std::future::Future;
/// use std::sync::LazyLock;
/// use toolkit::{CallContext, Output, Tool, ToolCall, ToolError, ToolSpec, Toolbox, Validate, Violation};
///
/// #[derive(serde::Deserialize)]
/// struct PingArgs {}
///
/// impl Validate for PingArgs {
///     fn validate(&self) -> Result<(), Violation> {
///         Ok(())
///     }
/// }
///
/// struct Ping;
///
/// impl Tool for Ping {
///     type Args = PingArgs;
///     type Output = String;
///     const NAME: &'static str = "ping";
///
///     fn spec() -> &'static ToolSpec {
///         static SPEC: LazyLock<ToolSpec> = LazyLock::new(|| {
///             ToolSpec::new("ping", "Answer `pong`.", serde_json::json!({"type": "object"}))
///         });
///         &SPEC
///     }
///
///     fn invoke<'a>(
///         &'a self,
///         _args: PingArgs,
///         _cx: CallContext<'a>,
///     ) -> impl Future<Output = Result<Output, ToolError>> + Send + 'a {
///         async { Ok(Output::text("pong")) }
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let mut tools = Toolbox::new();
/// tools.add(Ping).unwrap();
/// assert_eq!(tools.call(ToolCall::new("1", "ping", "{}")).await.content, "pong");
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "not a tool",
    note = "put `#[tool]` on a function (or `#[tools]` on an `impl` block with `#[tool]` methods) to make it one"
)]
pub trait Tool: Send + Sync + 'static {
    /// The generated argument struct.
    type Args: DeserializeOwned + Validate + Send + 'static;
    /// What the tool returns when it succeeds, before it becomes text: `T` for a function
    /// returning `T` or `Result<T, E>`, `()` for one returning nothing, `String` (or
    /// `&'static str`, `Cow<'static, str>`) for text. An after hook for this one tool may
    /// read it typed (`raw: Option<&T>` in `#[hook(after, tools = [..])]`), and `#[hook]`
    /// checks at compile time that `T` is this type.
    type Output;
    /// The tool's name (a constant, so `toolbox!` can match on it and reject duplicates
    /// at compile time).
    const NAME: &'static str;
    /// The tool's spec, built once.
    fn spec() -> &'static ToolSpec;
    /// Runs the tool on parsed, validated arguments. The future owns the context (a
    /// `#[context]` parameter borrows it from there).
    fn invoke<'a>(
        &'a self,
        args: Self::Args,
        cx: CallContext<'a>,
    ) -> impl Future<Output = Result<Output, ToolError>> + Send + 'a;

    /// The arguments as a JSON object, for hooks that read or rewrite them as JSON and for
    /// call records. `#[tool]` implements it; the default says it cannot.
    #[doc(hidden)]
    fn encode_args(args: &Self::Args) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        let _ = args;
        Err(format!("the arguments of `{}` cannot be shown as JSON", Self::NAME))
    }

    /// Whether a successful call keeps its typed output beside the text for after hooks
    /// ([`Output::with_raw`], when [`CallContext::keeps_raw`]): `#[tool]` sets it for
    /// typed (JSON) outputs. A `raw` parameter of a typed after hook needs it.
    #[doc(hidden)]
    const KEEPS_RAW: bool = false;

    /// Whether the tool declares a retry policy (`#[tool(retries = ..)]`): the toolbox
    /// then adds the `retries` hook for it, without building the spec.
    #[doc(hidden)]
    const RETRIES: bool = false;

    /// Whether the tool is deferred (`#[tool(defer)]`): the toolbox then adds
    /// `search_tools` and indexes it.
    #[doc(hidden)]
    const DEFERRED: bool = false;

    /// Whether [`invoke_now`](Tool::invoke_now) runs the tool (`#[tool]` sets it for sync
    /// functions that are not `blocking`): such a call needs no future at all.
    #[doc(hidden)]
    const RUNS_NOW: bool = false;

    /// Runs a tool that never waits at once, with no future to box: `#[tool]` implements
    /// it for sync functions that are not `blocking`. Async tools give the arguments back
    /// (the default) and are run through [`invoke`](Tool::invoke).
    #[doc(hidden)]
    #[inline]
    fn invoke_now<'a>(
        &'a self,
        args: Self::Args,
        cx: &'a CallContext<'a>,
    ) -> Result<Result<Output, ToolError>, Self::Args> {
        let _ = cx;
        Err(args)
    }
}

/// Checks that a parsed argument struct satisfies the constraints declared with
/// `#[arg(minimum = .., maximum = .., min_length = .., max_length = .., pattern = ..)]`.
/// Generated by `#[tool]`.
pub trait Validate {
    /// `Err` names the parameter and the rule it broke.
    fn validate(&self) -> Result<(), crate::error::Violation>;
}

/// A tool defined at run time (for example, imported from an MCP server). It receives
/// arguments already checked to be a JSON object within the size limit; checking them
/// against its schema is its own business.
///
/// ```
/// use toolkit::{DynTool, FnTool, Output, ToolSpec, Toolbox, ToolCall};
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let spec = ToolSpec::new("shout", "Upper-case the text.", json!({
///     "type": "object", "properties": {"text": {"type": "string"}},
///     "required": ["text"], "additionalProperties": false}));
/// let shout = FnTool::new(spec, |args| async move {
///     let text = args["text"].as_str().unwrap_or_default().to_uppercase();
///     Ok(Output::text(text))
/// });
/// let mut tools = Toolbox::new();
/// tools.add_dynamic(shout).unwrap();
/// let r = tools.call(ToolCall::new("1", "shout", r#"{"text":"hi"}"#)).await;
/// assert_eq!(r.content, "HI");
/// # }
/// ```
pub trait DynTool: Send + Sync + 'static {
    /// The tool's spec.
    fn spec(&self) -> &ToolSpec;
    /// Runs the tool.
    fn call<'a>(&'a self, args: Map<String, Value>, cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>>;
}

/// A [`DynTool`] made of a spec and an async closure.
pub struct FnTool<F> {
    spec: ToolSpec,
    f: F,
}

impl<F> FnTool<F> {
    /// A tool that runs `f` on the argument object.
    pub fn new<Fut>(spec: ToolSpec, f: F) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Output, ToolError>> + Send + 'static,
    {
        FnTool { spec, f }
    }
}

impl<F, Fut> DynTool for FnTool<F>
where
    F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Output, ToolError>> + Send + 'static,
{
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(&'a self, args: Map<String, Value>, _cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin((self.f)(args))
    }
}
