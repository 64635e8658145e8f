//! The `tools` of a Responses-API request, and its native tool search.
//!
//! With [`tool_search`](super::OpenAiResponsesBuilder::tool_search) on, the client sends
//! every tool: the deferred ones with `defer_loading: true`, the tools of a
//! [`Namespace`] inside one `namespace` tool (its name and description are what the
//! model sees of them at first), and the API's hosted `tool_search` in place of
//! toolkit's `search_tools`. The API searches and loads tools itself; its
//! `tool_search_call` and `tool_search_output` items go back in the message's echo, and a
//! call to a namespaced tool names its namespace, as the API asks.

use serde_json::{Value, json};

use crate::search::{Namespace, SEARCH_TOOLS};
use crate::spec::ToolSpec;

use super::ModelRequest;

/// The request's `tools`: every tool as the Responses API takes it, and, with
/// `tool_search`, grouped and deferred as above.
pub(super) fn tools(request: &ModelRequest<'_>, tool_search: bool) -> Vec<Value> {
    let export = |spec: &ToolSpec| {
        let mut tool = spec.openai_responses_strict(request.strict);
        if tool_search && spec.deferred {
            tool["defer_loading"] = Value::Bool(true);
        }
        tool
    };
    let mut tools: Vec<Value> = Vec::with_capacity(request.tools.len() + 2);
    if !tool_search {
        tools.extend(request.tools.iter().map(|spec| export(spec)));
    } else {
        let deferring = request.tools.iter().any(|spec| spec.deferred);
        // Each namespace is one tool, where its first member comes.
        let mut groups: Vec<(&str, usize)> = Vec::new();
        for spec in request.tools.iter().filter(|spec| !(deferring && spec.name == SEARCH_TOOLS)) {
            let Some(namespace) = namespace_of(request.namespaces, &spec.name) else {
                tools.push(export(spec));
                continue;
            };
            match groups.iter().find(|(name, _)| *name == namespace.name()) {
                Some(&(_, at)) => {
                    if let Some(members) = tools[at]["tools"].as_array_mut() {
                        members.push(export(spec));
                    }
                }
                None => {
                    groups.push((namespace.name(), tools.len()));
                    tools.push(json!({
                        "type": "namespace",
                        "name": namespace.name(),
                        "description": namespace.description(),
                        "tools": [export(spec)],
                    }));
                }
            }
        }
        if deferring {
            tools.push(json!({"type": "tool_search"}));
        }
    }
    // Programmatic tool calling: the program runner, for the tools programs may call.
    if request.tools.iter().any(|spec| spec.programmable(crate::schema::Target::OpenAiResponses)) {
        tools.push(json!({"type": "programmatic_tool_calling"}));
    }
    tools
}

/// The namespace of the tool `name`, if it is in one.
pub(super) fn namespace_of<'a>(namespaces: &'a [Namespace], name: &str) -> Option<&'a Namespace> {
    namespaces.iter().find(|ns| ns.contains(name))
}

/// Whether the API's tool search made this output item: it goes back as it came.
pub(super) fn searched(item: &Value) -> bool {
    matches!(item["type"].as_str(), Some("tool_search_call" | "tool_search_output"))
        || (item["type"] == "function_call" && item.get("namespace").is_some_and(Value::is_string))
}
