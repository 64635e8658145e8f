//! What a tool is: its [`ToolSpec`] (what a model is shown) and the [`Tool`] trait
//! (what the runtime calls). `#[tool]` implements both; tools built at run time
//! implement [`DynTool`](crate::toolbox::DynTool) instead.

use std::future::Future;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::{CallContext, Output, ToolError};

/// Effect annotations of a tool, as MCP names them (`readOnlyHint`, ...).
///
/// They inform the model and the runtime (a result cache only serves read-only or
/// idempotent tools; a retry is only attempted for them) but enforce nothing.
///
/// ```
/// let a = toolkit::Annotations { read_only: true, ..Default::default() };
/// assert!(a.read_only && !a.destructive);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Annotations {
    /// The tool does not change its environment.
    pub read_only: bool,
    /// The tool may destroy or overwrite data.
    pub destructive: bool,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// The tool talks to an open world (the web, other people's systems).
    pub open_world: bool,
}

impl Annotations {
    /// Whether running the tool again with the same arguments is safe (it is read-only
    /// or idempotent): the condition for a retry and for a cached answer.
    ///
    /// ```
    /// let a = toolkit::Annotations { idempotent: true, ..Default::default() };
    /// assert!(a.repeatable());
    /// assert!(!toolkit::Annotations::default().repeatable());
    /// ```
    pub fn repeatable(&self) -> bool {
        self.read_only || self.idempotent
    }
}

/// Everything a model needs to know about one tool, built once per tool.
///
/// `input_schema` is the canonical schema: JSON Schema 2020-12, an object root,
/// properties in declaration order, `additionalProperties: false`, descriptions from
/// doc comments, nested types under `$defs`. Provider-specific shapes are derived from
/// it by [`ToolSpec::export`].
///
/// ```
/// use serde_json::json;
/// let spec = toolkit::ToolSpec::new(
///     "echo",
///     "Repeat the text back.",
///     json!({"type": "object", "properties": {"text": {"type": "string"}},
///            "required": ["text"], "additionalProperties": false}),
/// );
/// assert_eq!(spec.name, "echo");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The name the model calls the tool by (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// A human-readable title (MCP `title`), if any.
    pub title: Option<String>,
    /// What the tool does and when to use it: the text the model decides by.
    pub description: String,
    /// The canonical JSON Schema of the arguments (an object).
    pub input_schema: Value,
    /// The JSON Schema of a typed output, if the tool has one.
    pub output_schema: Option<Value>,
    /// Effect annotations.
    pub annotations: Annotations,
    /// How long one call may take before it fails with `timed_out`.
    pub timeout: Option<Duration>,
    /// Ask providers that support it to enforce the schema strictly (OpenAI `strict`).
    pub strict: bool,
    /// A one-line rendering of the arguments, used in error messages
    /// (`{location: string, unit?: "celsius" | "fahrenheit"}`).
    pub expected: String,
}

impl ToolSpec {
    /// A spec with a name, a description and a canonical input schema; everything
    /// else off. `expected` is rendered from the schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        let expected = crate::schema::render_expected(&input_schema);
        ToolSpec {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            annotations: Annotations::default(),
            timeout: None,
            strict: false,
            expected,
        }
    }

    /// Sets the title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the output schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the effect annotations.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets the per-call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Marks the tool strict (OpenAI structured outputs).
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Whether the tool takes no arguments at all (an empty arguments string is then
    /// read as `{}`, as several models send it).
    pub fn takes_no_arguments(&self) -> bool {
        self.input_schema.get("properties").and_then(Value::as_object).is_none_or(|p| p.is_empty())
    }
}

/// A tool known at compile time, implemented by `#[tool]` (and `#[tools]` for
/// methods) on a zero-sized handle type named like the function.
///
/// The runtime parses the model's JSON straight into [`Tool::Args`], validates it, and
/// calls [`Tool::invoke`]; everything in between is monomorphized, so dispatch through
/// `toolbox!` costs one `match` on the name and one boxed future.
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
///         _cx: &'a CallContext<'a>,
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
    /// Runs the tool on parsed, validated arguments.
    fn invoke<'a>(
        &'a self,
        args: Self::Args,
        cx: &'a CallContext<'a>,
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
    fn validate(&self) -> Result<(), crate::call::Violation>;
}
