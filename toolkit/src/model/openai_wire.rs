//! Pieces of the OpenAI wire formats that the Chat Completions reply, its stream and the
//! Responses client share: the request's free-form (custom) tools, token usage, and
//! the thought signatures of Gemini's OpenAI-compatible API.

use serde::Deserialize;
use serde_json::Value;

use crate::spec::Freeform;
use crate::spec::ToolSpec;

/// The free-form tools of a request, which OpenAI calls custom tools: the model writes
/// their input as plain text, which goes to (and comes back from) the tool's one
/// parameter, so the rest of toolkit sees ordinary JSON arguments. Shared by both OpenAI
/// clients.
#[derive(Default, Clone)]
pub(crate) struct Custom(Vec<(String, Freeform)>);

impl Custom {
    pub(crate) fn of(tools: &[&ToolSpec]) -> Self {
        Custom(
            tools
                .iter()
                .filter_map(|t| t.freeform.as_ref().map(|f| (t.name.clone(), Freeform::new(f.param.clone()))))
                .collect(),
        )
    }

    /// The tool `name`, if it is a custom one.
    pub(crate) fn get(&self, name: &str) -> Option<&Freeform> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, f)| f)
    }

    /// The arguments of a custom call to `name` with this text: under the tool's
    /// parameter, or under `input` for a tool the request did not send as custom (the
    /// toolbox then says what it expected).
    pub(crate) fn arguments(&self, name: &str, input: &str) -> String {
        match self.get(name) {
            Some(freeform) => freeform.arguments(input),
            None => Freeform::new("input").arguments(input),
        }
    }
}

/// The thought signature in an `extra_content` (Gemini's OpenAI-compatible API).
pub(super) fn google_signature(extra_content: Option<&Value>) -> Option<String> {
    let signature = extra_content?.get("google")?.get("thought_signature")?.as_str()?;
    (!signature.is_empty()).then(|| signature.to_string())
}

#[derive(Deserialize)]
pub(super) struct WireUsage {
    #[serde(default)]
    pub(super) prompt_tokens: u64,
    #[serde(default)]
    pub(super) completion_tokens: u64,
    #[serde(default)]
    pub(super) total_tokens: Option<u64>,
}
