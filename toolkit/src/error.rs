//! Why a call failed: [`ErrorKind`] for programs to branch on, [`ToolError`] with a
//! message for the model and detail for the operator, and [`Violation`] for a broken
//! argument constraint.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What went wrong with a call, for programs to branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// No tool by that name.
    UnknownTool,
    /// The arguments string was empty (and the tool takes arguments).
    EmptyArguments,
    /// The arguments string exceeded the toolbox's size limit.
    ArgumentsTooLarge,
    /// The arguments were not valid JSON.
    MalformedJson,
    /// The arguments were valid JSON but not an object.
    NotAnObject,
    /// A required field was missing.
    MissingField,
    /// A field the tool does not take.
    UnknownField,
    /// A field had the wrong JSON type.
    InvalidType,
    /// A field had the right type but a value the tool does not accept (an integer out of
    /// its type's range, a duplicate field).
    InvalidValue,
    /// A declared constraint (`minimum`, `max_length`, `pattern`, ...) was violated, or a
    /// value is not one of the values the schema lists: an enum's variants (or an
    /// internally tagged enum's tag), `one_of`, `items_one_of`. All of these are an
    /// `enum` in the schema, so the one mistake has this one kind however it is checked.
    ConstraintViolation,
    /// The tool ran and returned an error.
    ToolFailed,
    /// The tool panicked.
    Panicked,
    /// The tool did not finish within its timeout.
    TimedOut,
    /// The toolbox is misconfigured (for example, a tool's `#[state]` was never
    /// provided). The model is told the tool is unavailable.
    Unavailable,
    /// A hook blocked the call (a before hook's `Decision::Block`, or a hook that failed
    /// under the `block` policy). The model is told why.
    Blocked,
    /// A before hook deferred the call ([`Decision::Defer`](crate::Decision::Defer)): it
    /// did not run and waits for a decision. An agent run pauses on it
    /// ([`AgentError::Paused`](crate::agent::AgentError::Paused)); elsewhere the model
    /// reads ``deferred: {reason}``. The error's `detail` holds the arguments as the
    /// deferring hook saw them (JSON): what a decision on the call is bound to.
    Deferred,
    /// The call started in an earlier attempt and never reported finishing, so it may or
    /// may not have taken effect ([`EffectLedger`](crate::hooks::EffectLedger)): it is not
    /// run again without a person or a `reconcile` function deciding.
    InDoubt,
    /// The result (its text and the bytes of its parts) was larger than
    /// [`Limits::max_result_bytes`](crate::Limits::max_result_bytes).
    ResultTooLarge,
}

impl ErrorKind {
    /// The snake_case name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::EmptyArguments => "empty_arguments",
            ErrorKind::ArgumentsTooLarge => "arguments_too_large",
            ErrorKind::MalformedJson => "malformed_json",
            ErrorKind::NotAnObject => "not_an_object",
            ErrorKind::MissingField => "missing_field",
            ErrorKind::UnknownField => "unknown_field",
            ErrorKind::InvalidType => "invalid_type",
            ErrorKind::InvalidValue => "invalid_value",
            ErrorKind::ConstraintViolation => "constraint_violation",
            ErrorKind::ToolFailed => "tool_failed",
            ErrorKind::Panicked => "panicked",
            ErrorKind::TimedOut => "timed_out",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Blocked => "blocked",
            ErrorKind::Deferred => "deferred",
            ErrorKind::InDoubt => "in_doubt",
            ErrorKind::ResultTooLarge => "result_too_large",
        }
    }

    /// Whether the model sent arguments the tool cannot take (it can fix them and retry).
    pub fn is_argument_error(self) -> bool {
        matches!(
            self,
            ErrorKind::EmptyArguments
                | ErrorKind::ArgumentsTooLarge
                | ErrorKind::MalformedJson
                | ErrorKind::NotAnObject
                | ErrorKind::MissingField
                | ErrorKind::UnknownField
                | ErrorKind::InvalidType
                | ErrorKind::InvalidValue
                | ErrorKind::ConstraintViolation
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a call failed: a kind, a message for the model, and detail for the operator.
///
/// ```
/// use toolkit::{ErrorKind, ToolError};
/// let e = ToolError::new(ErrorKind::ToolFailed, "file not found: report.md")
///     .with_detail("os error 2");
/// assert_eq!(e.to_string(), "file not found: report.md");
/// assert_eq!(e.detail.as_deref(), Some("os error 2"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{message}")]
pub struct ToolError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// What the model is told: what was wrong, where, and what is expected.
    pub message: String,
    /// Operator-only detail (source error chain, parser position, panic payload); never
    /// shown to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl ToolError {
    /// An error with a kind and a model-facing message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolError { kind, message: message.into(), detail: None }
    }

    /// Adds operator-only detail.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

/// A broken argument constraint, reported by [`Validate`](crate::Validate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The parameter's wire name.
    pub field: &'static str,
    /// The rule, as the model should read it (`must be at most 20 (got 50)`).
    pub rule: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {}", self.field, self.rule)
    }
}
