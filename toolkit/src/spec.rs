//! What a model is shown of a tool: its [`ToolSpec`] (name, description, schema) and
//! its effect [`Annotations`].

use std::time::Duration;

use serde_json::Value;

/// Effect annotations of a tool, as MCP names them (`readOnlyHint`, ...).
///
/// They inform the model and the runtime (a result cache only serves read-only or
/// idempotent tools; a retry is only attempted for them) but enforce nothing.
///
/// ```
/// let a = toolkit::Annotations { read_only: true, ..Default::default() };
/// assert!(a.read_only && !a.destructive);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(default)]
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
    /// Icons a client may show next to the tool (MCP `icons`; other providers have none).
    pub icons: Vec<Icon>,
    /// Arguments MCP clients also send as HTTP headers (`Mcp-Param-*`), for routing.
    pub headers: Vec<ParamHeader>,
    /// Effect annotations.
    pub annotations: Annotations,
    /// How long one call may take before it fails with `timed_out`.
    pub timeout: Option<Duration>,
    /// Ask providers that support it to enforce the schema strictly (OpenAI `strict`).
    pub strict: bool,
    /// Example arguments (`#[tool(example = {...})]`): Anthropic's `input_examples`;
    /// appended to the description for providers without a field.
    pub examples: Vec<Value>,
    /// How a failed call is run again (`#[tool(retries = 3, backoff = "200ms")]`): the
    /// toolbox adds the `retries` hook for the tools that have one ([`hooks::Retry`](crate::hooks::Retry)).
    pub retry: Option<RetryPolicy>,
    /// A free-form tool: the model writes one string parameter as plain text, optionally
    /// in a grammar (`#[tool(freeform)]`, `lark = "..."`, `regex = "..."`).
    pub freeform: Option<Freeform>,
    /// Who may call the tool: the model, a program the model writes and the provider
    /// runs (programmatic tool calling, `#[tool(programmatic)]`), or both.
    pub callers: Callers,
    /// Not sent to the model at first: found by the toolbox's `search_tools` tool, then
    /// sent from the next turn on (`#[tool(defer)]`; see [`search`](crate::search)).
    pub deferred: bool,
    /// A one-line rendering of the arguments, used in error messages
    /// (`{location: string, unit?: "celsius" | "fahrenheit"}`).
    pub expected: String,
}

impl ToolSpec {
    /// A spec with a name, a description and a canonical input schema; everything
    /// else off. `expected` is rendered from the schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        let expected = crate::json_schema::render::render_expected(&input_schema);
        ToolSpec {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            icons: Vec::new(),
            headers: Vec::new(),
            annotations: Annotations::default(),
            timeout: None,
            strict: false,
            retry: None,
            freeform: None,
            callers: Callers::Direct,
            deferred: false,
            examples: Vec::new(),
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

    /// Adds an icon (MCP `icons`, in the order added).
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Has MCP clients send the top-level argument `param` also as the HTTP header
    /// `Mcp-Param-{header}` (published as `x-mcp-header` on the parameter's schema; the
    /// HTTP server refuses a request whose header disagrees with the argument).
    /// `#[arg(header = "...")]` does it with the checks done when the crate builds: a
    /// string, integer or boolean parameter, an HTTP token, one header per parameter.
    pub fn with_header(mut self, param: impl Into<String>, header: impl Into<String>) -> Self {
        self.headers.push(ParamHeader::new(param, header));
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

    /// Adds an example of the arguments (an object the tool accepts). `#[tool(example =
    /// {...})]` does it with checks when the crate builds, and a generated test that
    /// parses it as a call.
    pub fn with_example(mut self, arguments: Value) -> Self {
        self.examples.push(arguments);
        self
    }

    /// Makes the tool free-form: the model writes the parameter `freeform.param` (the
    /// schema's one string property) as plain text, optionally in a grammar. See
    /// [`Freeform`]; `#[tool(freeform)]`, `lark = "..."` and `regex = "..."` do it with
    /// the checks done when the crate builds.
    pub fn with_freeform(mut self, freeform: Freeform) -> Self {
        self.freeform = Some(freeform);
        self
    }

    /// Sets who may call the tool. A tool a program calls returns JSON the program
    /// reads: it needs an output schema with an object root (a struct deriving
    /// `JsonSchema`), which [`check`](crate::schema::check) verifies for the providers
    /// that run programs (Anthropic, OpenAI Responses).
    pub fn with_callers(mut self, callers: Callers) -> Self {
        self.callers = callers;
        self
    }

    /// Defers the tool: it is not sent to the model until a `search_tools` call finds
    /// it (see [`search`](crate::search)). A toolbox the tool is added to adds
    /// `search_tools`.
    pub fn with_deferred(mut self, deferred: bool) -> Self {
        self.deferred = deferred;
        self
    }

    /// Retries a failed call by `policy` (only for a tool declared `read_only` or
    /// `idempotent`, and never `destructive`: see [`hooks::Retry`](crate::hooks::Retry)).
    /// A toolbox the tool is added to adds the hook that does it.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
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

/// How a tool's failed calls are run again: how many times, and the pause before the
/// first retry, doubled at each retry up to a ceiling.
///
/// ```
/// use std::time::Duration;
/// use toolkit::spec::RetryPolicy;
///
/// let policy = RetryPolicy::new(3, Duration::from_millis(200));
/// // The pause before retry n is a random point in the upper half of 200 ms · 2^(n-1).
/// assert_eq!(policy.delay(1, 0.0), Duration::from_millis(100));
/// assert_eq!(policy.delay(3, 0.5), Duration::from_millis(600));
/// // Never past the ceiling (30 s unless set).
/// assert_eq!(policy.delay(40, 1.0), Duration::from_secs(30));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// How many times a failed call is run again (the call runs at most `retries + 1`
    /// times).
    pub retries: u32,
    /// The pause before the first retry (before jitter).
    pub backoff: Duration,
    /// The longest pause.
    pub max_backoff: Duration,
}

impl RetryPolicy {
    /// `retries` retries, the first after about `backoff`; pauses up to 30 s.
    pub const fn new(retries: u32, backoff: Duration) -> Self {
        RetryPolicy { retries, backoff, max_backoff: Duration::from_secs(30) }
    }

    /// Sets the longest pause.
    pub const fn with_max_backoff(mut self, max_backoff: Duration) -> Self {
        self.max_backoff = max_backoff;
        self
    }

    /// The pause before retry `retry` (1 for the first): `backoff · 2^(retry-1)`, at most
    /// `max_backoff`, of which the upper half is spread by `unit` in `[0, 1)` ("equal
    /// jitter": at least half the pause, so calls that failed together come back apart
    /// but never at once).
    pub fn delay(&self, retry: u32, unit: f64) -> Duration {
        let doubling = 1u32.checked_shl(retry.saturating_sub(1)).unwrap_or(u32::MAX);
        let full = self.backoff.saturating_mul(doubling).min(self.max_backoff);
        let half = full / 2;
        half + half.mul_f64(unit.clamp(0.0, 1.0))
    }
}

/// Who may call a tool ([`ToolSpec::callers`]).
///
/// With programmatic tool calling the model writes a program (Python for Anthropic, in
/// its code-execution container; JavaScript for OpenAI) that calls the tools in a loop
/// and filters their results, so intermediate results never fill the conversation. The
/// calls still come to the client one by one, as ordinary tool calls: hooks, records
/// and approvals see each.
///
/// | callers | Anthropic `allowed_callers` | OpenAI Responses `allowed_callers` |
/// |---|---|---|
/// | `Direct` (default) | left out | left out |
/// | `Program` | `["code_execution_20260120"]` | `["programmatic"]` |
/// | `Both` (`#[tool(programmatic)]`) | `["direct", "code_execution_20260120"]` | `["direct", "programmatic"]` |
///
/// A request with such a tool also carries the provider's program runner (Anthropic's
/// code-execution tool, OpenAI's `programmatic_tool_calling` tool).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Callers {
    /// Only the model, directly.
    #[default]
    Direct,
    /// Only a program the model writes.
    Program,
    /// The model and its programs.
    Both,
}

impl Callers {
    /// Whether the model may call the tool directly.
    pub fn direct(self) -> bool {
        matches!(self, Callers::Direct | Callers::Both)
    }

    /// Whether a program may call the tool.
    pub fn program(self) -> bool {
        matches!(self, Callers::Program | Callers::Both)
    }
}

/// A free-form tool: the model writes its input as plain text (code, SQL, a patch, a
/// command line) instead of JSON arguments, optionally held to a grammar.
/// `#[tool(freeform)]`, `#[tool(lark = "...")]` or `#[tool(regex = "...")]` on a
/// function with one `String` parameter makes one, the grammar checked when the crate
/// builds.
///
/// OpenAI (Responses and Chat Completions) gets a custom tool (`{"type": "custom",
/// ...}`, with `format` `text` or `grammar`) and the model's raw text, which the
/// client puts under the parameter's name: hooks, records and the tool see ordinary
/// arguments, `{"code": "..."}`. Every other provider gets a function with that one
/// string parameter and the grammar in the description. A regex grammar is also the
/// parameter's `pattern`, checked on every call whoever the model is; a Lark grammar is
/// enforced only by a provider that decodes by it (OpenAI), so a tool that needs its
/// input well-formed parses it too.
///
/// ```
/// use serde_json::json;
/// use toolkit::spec::{Freeform, Grammar};
/// use toolkit::{Target, ToolSpec};
///
/// let schema = json!({"type": "object", "properties": {"sql": {"type": "string"}},
///                     "required": ["sql"], "additionalProperties": false});
/// let spec = ToolSpec::new("query", "Run a read-only SQL query.", schema)
///     .with_freeform(Freeform::new("sql").with_grammar(Grammar::Lark("start: \"SELECT 1\"".into())));
/// let tool = spec.export(Target::OpenAiResponses);
/// assert_eq!(tool["type"], "custom");
/// assert_eq!(tool["format"], json!({"type": "grammar", "syntax": "lark", "definition": "start: \"SELECT 1\""}));
/// assert!(spec.export(Target::Anthropic)["description"].as_str().unwrap().contains("Lark grammar"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Freeform {
    /// The parameter the text goes to (the tool's one string parameter).
    pub param: String,
    /// The grammar the text follows, if any.
    pub grammar: Option<Grammar>,
}

/// The grammar of a free-form tool's input, in a syntax OpenAI's custom tools take.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Grammar {
    /// A Lark grammar (a context-free grammar with a `start` rule; terminals' regular
    /// expressions in the Rust `regex` syntax).
    Lark(String),
    /// A regular expression (the Rust `regex` syntax) the whole input matches.
    Regex(String),
}

impl Grammar {
    /// `"lark"` or `"regex"`, as OpenAI names the syntax.
    pub fn syntax(&self) -> &'static str {
        match self {
            Grammar::Lark(_) => "lark",
            Grammar::Regex(_) => "regex",
        }
    }

    /// The grammar's text.
    pub fn definition(&self) -> &str {
        match self {
            Grammar::Lark(text) | Grammar::Regex(text) => text,
        }
    }
}

impl Freeform {
    /// Free text for the parameter `param`.
    pub fn new(param: impl Into<String>) -> Self {
        Freeform { param: param.into(), grammar: None }
    }

    /// The text follows `grammar`.
    pub fn with_grammar(mut self, grammar: Grammar) -> Self {
        self.grammar = Some(grammar);
        self
    }

    /// The arguments of a call whose text is `input`: `{"<param>": input}`.
    pub fn arguments(&self, input: &str) -> String {
        let mut object = serde_json::Map::new();
        object.insert(self.param.clone(), Value::String(input.to_string()));
        Value::Object(object).to_string()
    }

    /// The text of a call's `arguments` (what the model wrote), or the arguments as
    /// they are if they are not an object holding the parameter as a string.
    pub fn input<'a>(&self, arguments: &'a str) -> std::borrow::Cow<'a, str> {
        match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(mut object)) => match object.remove(&self.param) {
                Some(Value::String(text)) if object.is_empty() => std::borrow::Cow::Owned(text),
                _ => std::borrow::Cow::Borrowed(arguments),
            },
            _ => std::borrow::Cow::Borrowed(arguments),
        }
    }
}

/// An icon an MCP client may show next to a tool: an `https://` URL or a `data:` URI of an
/// image, with its MIME type and sizes when known. `#[tool(icon = "...")]` makes one
/// (checked when the crate builds).
///
/// ```
/// use toolkit::spec::Icon;
/// let icon = Icon::new("https://example.com/weather.svg");
/// assert_eq!(icon.mime_type.as_deref(), Some("image/svg+xml"));
/// let inline = Icon::new("data:image/png;base64,iVBORw0KGgo=").with_sizes(["16x16"]);
/// assert_eq!(inline.mime_type.as_deref(), Some("image/png"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// Where the image is: an `https://` URL or a `data:` URI.
    pub src: String,
    /// Its MIME type (`image/png`, `image/svg+xml`, ...), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The sizes it comes in (`"48x48"`, `"any"` for a scalable image).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
}

impl Icon {
    /// An icon at `src`, its MIME type read from a `data:` URI's header or from the
    /// path's extension (`png`, `jpg`/`jpeg`, `gif`, `webp`, `svg`, `ico`) when it has one.
    pub fn new(src: impl Into<String>) -> Self {
        let src = src.into();
        let mime_type = icon_mime_type(&src).map(str::to_owned);
        Icon { src, mime_type, sizes: Vec::new() }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the sizes (`"48x48"`, `"any"`).
    pub fn with_sizes<S: Into<String>>(mut self, sizes: impl IntoIterator<Item = S>) -> Self {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }
}

/// The MIME type an icon's `src` says: a `data:` URI's, or its path's extension's.
fn icon_mime_type(src: &str) -> Option<&'static str> {
    if let Some(data) = src.strip_prefix("data:") {
        let mime = data.split([';', ',']).next().unwrap_or("");
        return ["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml", "image/x-icon"]
            .into_iter()
            .find(|known| known.eq_ignore_ascii_case(mime));
    }
    let path = src.split(['?', '#']).next().unwrap_or("");
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        _ => return None,
    })
}

/// A top-level argument MCP clients also send as an HTTP header, `Mcp-Param-{header}`,
/// so proxies and load balancers can route on it without reading the body.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParamHeader {
    /// The parameter's name on the wire.
    pub param: String,
    /// The header's name after `Mcp-Param-` (`Region`).
    pub header: String,
}

impl ParamHeader {
    /// `param` travels as `Mcp-Param-{header}` too.
    pub fn new(param: impl Into<String>, header: impl Into<String>) -> Self {
        ParamHeader { param: param.into(), header: header.into() }
    }
}
