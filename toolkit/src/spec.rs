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
    /// Effect annotations.
    pub annotations: Annotations,
    /// How long one call may take before it fails with `timed_out`.
    pub timeout: Option<Duration>,
    /// Ask providers that support it to enforce the schema strictly (OpenAI `strict`).
    pub strict: bool,
    /// A one-line rendering of the arguments, used in error messages
    /// (`{location: string, unit?: "celsius" | "fahrenheit"}`).
    pub expected: String,
    /// When the schema closes an object below the root: the check for unknown nested
    /// keys (serde drops them in the parameters' own types), compiled at first use.
    pub(crate) key_check: crate::exec::unknown::LazyKeyCheck,
}

impl ToolSpec {
    /// A spec with a name, a description and a canonical input schema; everything
    /// else off. `expected` is rendered from the schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        let expected = crate::schema::render::render_expected(&input_schema);
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
            key_check: Default::default(),
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
