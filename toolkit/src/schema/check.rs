//! Compatibility checks: what a target cannot take of a tool, found before a provider
//! answers 400.

use std::fmt;

use serde_json::Value;

use super::walk::Problem;
use super::{Target, gemini, openai};
use crate::spec::ToolSpec;

/// One thing a target cannot take of a tool: which tool, where in its schema, and the
/// rule it breaks (with what to do about it).
///
/// `path` is readable: `filters.tags` for a property of a property, `ids[]` for the
/// elements of an array, `pair[1]` for a tuple element, `labels.*` for the values of a
/// map; empty for the tool as a whole (its name, its root); `(output)` for the output
/// schema.
///
/// ```
/// use serde_json::json;
/// use toolkit::ToolSpec;
/// use toolkit::schema::{Target, check};
///
/// let spec = ToolSpec::new("tag", "Tag a file.", json!({
///     "type": "object",
///     "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}},
///     "required": ["labels"],
///     "additionalProperties": false
/// }));
/// let found = check(&spec, Target::OpenAiChatStrict);
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].path, "labels");
/// assert!(found[0].to_string().starts_with("`tag` at `labels`: an open map"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incompatibility {
    /// The tool's name.
    pub tool: String,
    /// The target that cannot take it.
    pub target: Target,
    /// Where in the tool (see above).
    pub path: String,
    /// What the target cannot take, and what to do.
    pub rule: String,
}

impl fmt::Display for Incompatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "`{}`: {}", self.tool, self.rule)
        } else {
            write!(f, "`{}` at `{}`: {}", self.tool, self.path, self.rule)
        }
    }
}

impl std::error::Error for Incompatibility {}

/// What `target` cannot take of `spec`; empty when it takes everything.
///
/// Every target: the name must match `^[a-zA-Z0-9_-]{1,64}$` and the input schema must
/// have an object root. OpenAI strict mode (always for
/// [`Target::OpenAiChatStrict`], for the other OpenAI targets when the tool is
/// strict): open maps, untyped values, tuples, `allOf`, conditionals, and the size
/// limits. When the tool is strict but its schema is not, the other OpenAI targets
/// export it without `strict` (and say so here). Anthropic: parameter names outside
/// `^[a-zA-Z0-9_.-]{1,64}$`, and for a strict tool what its strict tool use cannot
/// take (a recursive type, an open map, an enum of objects: the tool is then exported
/// without `strict`). Gemini: parameter or tool names it
/// rejects, untyped values, `allOf` of several schemas, and the rules its chosen form
/// drops (see [`ToolSpec::export`]: the OpenAPI subset keeps `pattern` and lengths but
/// not `not` or conditionals; the JSON Schema form, used for recursive types, maps and
/// tuples, keeps those shapes but not `pattern` or lengths). Anthropic and OpenAI Responses,
/// for a tool programs may call ([`ToolSpec::callers`]): an output a program cannot read
/// (no output schema, a root other than an object, for OpenAI one strict mode cannot
/// take); such a tool is offered to the model directly. Only what the provider would refuse
/// or get wrong is here; what is merely worth knowing is in [`notes`].
///
/// ```
/// use serde_json::json;
/// use toolkit::ToolSpec;
/// use toolkit::schema::{Target, check};
///
/// let spec = ToolSpec::new("get weather", "Weather now.", json!({"type": "object", "properties": {}}));
/// let found = check(&spec, Target::Anthropic);
/// assert_eq!(found.len(), 1);
/// assert!(found[0].rule.contains("^[a-zA-Z0-9_-]{1,64}$"));
/// ```
pub fn check(spec: &ToolSpec, target: Target) -> Vec<Incompatibility> {
    let mut found = Vec::new();
    if !is_valid_name(&spec.name) {
        found.push(tool_level(NAME));
    } else if target == Target::Gemini && !spec.name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        found.push(tool_level(GEMINI_NAME));
    }
    if !has_object_root(&spec.input_schema) {
        found.push(tool_level(INPUT_NOT_OBJECT));
    }
    found.extend(target_problems(spec, target));
    found
        .into_iter()
        .map(|Problem { path, rule }| Incompatibility { tool: spec.name.clone(), target, path, rule })
        .collect()
}

fn target_problems(spec: &ToolSpec, target: Target) -> Vec<Problem> {
    let mut found = schema_problems(spec, target);
    if spec.callers.program() {
        found.extend(program_output_problems(spec, target));
    }
    found
}

/// Why a program cannot read `spec`'s output on `target` (Anthropic and OpenAI
/// Responses run programs; the other targets have no programmatic calling): it needs an
/// output schema with an object root, strict-mode ready for OpenAI.
pub(crate) fn program_output_problems(spec: &ToolSpec, target: Target) -> Vec<Problem> {
    if !matches!(target, Target::Anthropic | Target::OpenAiResponses) {
        return Vec::new();
    }
    let output = |rule: &str| Problem { path: "(output)".into(), rule: format!("{rule}; {PROGRAM_FALLBACK}") };
    let Some(schema) = &spec.output_schema else {
        return vec![output(PROGRAM_NO_OUTPUT)];
    };
    if !has_object_root(schema) {
        return vec![output(PROGRAM_NOT_OBJECT)];
    }
    if target == Target::OpenAiResponses {
        return openai::problems(schema)
            .into_iter()
            .map(|p| Problem {
                path: if p.path.is_empty() { "(output)".into() } else { format!("(output).{}", p.path) },
                rule: format!("{}; {PROGRAM_FALLBACK}", p.rule),
            })
            .collect();
    }
    Vec::new()
}

fn schema_problems(spec: &ToolSpec, target: Target) -> Vec<Problem> {
    match target {
        Target::OpenAiChatStrict => openai::problems(&spec.input_schema),
        Target::OpenAiChat | Target::OpenAiResponses if spec.strict => openai::problems(&spec.input_schema)
            .into_iter()
            .map(|p| Problem { rule: format!("{}; the tool is exported without `strict`", p.rule), ..p })
            .collect(),
        Target::Gemini => gemini::problems(&spec.input_schema),
        Target::Anthropic => {
            let mut found = anthropic_problems(&spec.input_schema);
            if spec.strict {
                found.extend(super::anthropic::problems(&spec.input_schema));
            }
            found
        }
        _ => Vec::new(),
    }
}

/// Anthropic refuses the whole request (400, "Property keys should match pattern") when
/// a top-level property name does not match `^[a-zA-Z0-9_.-]{1,64}$`.
fn anthropic_problems(schema: &Value) -> Vec<Problem> {
    let valid = |name: &str| {
        (1..=64).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    properties
        .into_iter()
        .flat_map(|p| p.keys())
        .filter(|name| !valid(name))
        .map(|name| Problem { path: name.clone(), rule: ANTHROPIC_PROPERTY.to_string() })
        .collect()
}

/// What is worth knowing about `spec` on `target` but is no fault: nothing is refused
/// or lost. MCP: a scalar output (`-> i64`) publishes no `outputSchema` (its result is
/// sent as text).
///
/// ```
/// use serde_json::json;
/// use toolkit::ToolSpec;
/// use toolkit::schema::{Target, check, notes};
///
/// let spec = ToolSpec::new("count", "Count.", json!({"type": "object", "properties": {}}))
///     .with_output_schema(json!({"type": "integer"}));
/// assert!(check(&spec, Target::Mcp).is_empty(), "a scalar output is no fault");
/// assert_eq!(notes(&spec, Target::Mcp).len(), 1);
/// ```
pub fn notes(spec: &ToolSpec, target: Target) -> Vec<Incompatibility> {
    let found = match (target, &spec.output_schema) {
        (Target::Mcp, Some(output)) if !has_object_root(output) => {
            vec![Problem { path: "(output)".into(), rule: OUTPUT_NOT_OBJECT.into() }]
        }
        _ => Vec::new(),
    };
    found
        .into_iter()
        .map(|Problem { path, rule }| Incompatibility { tool: spec.name.clone(), target, path, rule })
        .collect()
}

const NAME: &str =
    "a tool name must match `^[a-zA-Z0-9_-]{1,64}$` (letters, digits, `_`, `-`; at most 64): rename the tool";
const ANTHROPIC_PROPERTY: &str = "Anthropic takes a parameter name only when it matches `^[a-zA-Z0-9_.-]{1,64}$` \
    (letters, digits, `_`, `.`, `-`; at most 64): rename the parameter (`#[arg(rename = \"...\")]`)";
const GEMINI_NAME: &str = "Gemini takes a function name only when it starts with a letter or `_`: rename the tool";
const PROGRAM_NO_OUTPUT: &str = "a tool programs call returns JSON the program reads, and this one publishes no \
    output schema: return a struct that derives `Serialize` and `JsonSchema`";
const PROGRAM_NOT_OBJECT: &str = "a tool programs call returns a JSON object, and this one's output schema has \
    another root: return a struct";
const PROGRAM_FALLBACK: &str = "until then it is offered to the model directly, not to programs";
const INPUT_NOT_OBJECT: &str =
    "the input schema must have an object root (`\"type\": \"object\"`): take named parameters";
const OUTPUT_NOT_OBJECT: &str = "MCP takes an `outputSchema` only with an object root, so it is not published \
    (results are sent as text): return a struct to publish it";

fn tool_level(rule: &str) -> Problem {
    Problem { path: String::new(), rule: rule.to_string() }
}

/// Whether a schema's root is an object (`"type": "object"`), as MCP requires of an
/// `outputSchema`.
pub(crate) fn has_object_root(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// Whether every target takes `name` as a tool name: `^[a-zA-Z0-9_-]{1,64}$` (the
/// strictest of the providers' rules; Gemini also wants a letter or `_` first, which
/// [`check`] reports for it).
///
/// ```
/// assert!(toolkit::schema::is_valid_name("get_weather"));
/// assert!(!toolkit::schema::is_valid_name("get weather"));
/// assert!(!toolkit::schema::is_valid_name(""));
/// ```
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map_tool(strict: bool) -> ToolSpec {
        ToolSpec::new(
            "tag",
            "Tag things.",
            json!({
                "type": "object",
                "properties": {"filters": {"$ref": "#/$defs/Filters"}},
                "required": ["filters"],
                "additionalProperties": false,
                "$defs": {"Filters": {"type": "object", "properties": {
                    "tags": {"type": "object", "additionalProperties": {"type": "integer"}}
                }, "required": ["tags"]}}
            }),
        )
        .with_strict(strict)
    }

    #[test]
    fn anthropic_reports_what_strict_tool_use_cannot_take_only_for_strict_tools() {
        let found = check(&map_tool(true), Target::Anthropic);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, "filters.tags");
        assert!(found[0].rule.contains("Anthropic strict mode needs every object closed"), "{}", found[0].rule);
        assert!(check(&map_tool(false), Target::Anthropic).is_empty());
        // Exported without `strict`, with its schema as it is.
        let out = map_tool(true).export(Target::Anthropic);
        assert!(out.get("strict").is_none());
        assert_eq!(out["input_schema"], map_tool(true).input_schema);
    }

    #[test]
    fn strict_reports_an_open_map_with_its_path() {
        let found = check(&map_tool(false), Target::OpenAiChatStrict);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].tool, "tag");
        assert_eq!(found[0].target, Target::OpenAiChatStrict);
        assert_eq!(found[0].path, "filters.tags");
        assert!(found[0].rule.contains("additionalProperties: false"));
    }

    #[test]
    fn plain_openai_and_anthropic_take_open_maps() {
        for target in [Target::OpenAiChat, Target::OpenAiResponses, Target::Anthropic, Target::Mcp] {
            assert_eq!(check(&map_tool(false), target), [], "{target}");
        }
    }

    #[test]
    fn a_strict_tool_is_checked_for_the_openai_targets_and_told_of_the_fallback() {
        let found = check(&map_tool(true), Target::OpenAiResponses);
        assert_eq!(found.len(), 1);
        assert!(found[0].rule.ends_with("exported without `strict`"));
    }

    #[test]
    fn gemini_takes_a_map_in_its_json_schema_form() {
        assert_eq!(check(&map_tool(false), Target::Gemini), []);
    }

    #[test]
    fn names_are_checked_for_every_target() {
        let spec = ToolSpec::new("x".repeat(65), "Too long.", json!({"type": "object", "properties": {}}));
        for target in Target::ALL {
            let found = check(&spec, target);
            assert_eq!(found.len(), 1, "{target}");
            assert_eq!(found[0].path, "");
        }
        let digit_first = ToolSpec::new("3d_render", "Render.", json!({"type": "object", "properties": {}}));
        assert_eq!(check(&digit_first, Target::OpenAiChat), []);
        assert_eq!(check(&digit_first, Target::Gemini).len(), 1);
    }

    #[test]
    fn a_non_object_root_is_reported() {
        let spec = ToolSpec::new("f", "F.", json!({"type": "string"}));
        let found = check(&spec, Target::Anthropic);
        assert_eq!(found.len(), 1);
        assert!(found[0].rule.contains("object root"));
    }

    #[test]
    fn mcp_notes_an_output_schema_it_cannot_publish() {
        let spec = ToolSpec::new("count", "Count.", json!({"type": "object", "properties": {}}))
            .with_output_schema(json!({"type": "integer"}));
        assert_eq!(check(&spec, Target::Mcp), [], "not a rejection");
        let found = notes(&spec, Target::Mcp);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "(output)");
        assert_eq!(
            notes(&spec.clone().with_output_schema(json!({"type": "object", "properties": {}})), Target::Mcp),
            []
        );
    }

    #[test]
    fn displays_tool_path_and_rule() {
        let found = check(&map_tool(false), Target::OpenAiChatStrict);
        assert!(found[0].to_string().starts_with("`tag` at `filters.tags`: an open map"));
        let unnamed = Incompatibility { tool: "t".into(), target: Target::Mcp, path: String::new(), rule: "r".into() };
        assert_eq!(unnamed.to_string(), "`t`: r");
    }
}
