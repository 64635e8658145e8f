//! The providers a tool list can be exported to.

use std::fmt;

/// A provider's tool format, for [`ToolSpec::export`](crate::ToolSpec::export) and
/// [`check`](fn@crate::schema::check).
///
/// ```
/// use toolkit::schema::Target;
/// assert_eq!(Target::ALL.len(), 6);
/// assert_eq!(Target::Gemini.to_string(), "Gemini");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Target {
    /// OpenAI Chat Completions: `{"type": "function", "function": {...}}`, strict when
    /// the tool asks for it (and its schema allows it).
    OpenAiChat,
    /// OpenAI Chat Completions with strict mode (Structured Outputs) for every tool.
    OpenAiChatStrict,
    /// The OpenAI Responses API: `{"type": "function", "name": ..., "strict": ...}`.
    OpenAiResponses,
    /// Anthropic Messages: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// Gemini function declarations, in Gemini's OpenAPI 3.0 subset.
    Gemini,
    /// A Model Context Protocol `Tool`, with annotations and an output schema.
    Mcp,
}

impl Target {
    /// Every target, in declaration order (for validating against all of them).
    pub const ALL: [Target; 6] = [
        Target::OpenAiChat,
        Target::OpenAiChatStrict,
        Target::OpenAiResponses,
        Target::Anthropic,
        Target::Gemini,
        Target::Mcp,
    ];
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Target::OpenAiChat => "OpenAI Chat Completions",
            Target::OpenAiChatStrict => "OpenAI Chat Completions (strict)",
            Target::OpenAiResponses => "OpenAI Responses",
            Target::Anthropic => "Anthropic",
            Target::Gemini => "Gemini",
            Target::Mcp => "MCP",
        })
    }
}
