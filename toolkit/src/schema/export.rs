//! A tool's spec in each provider's shape, derived from its one canonical schema.

use serde_json::{Map, Value, json};

use super::check::has_object_root;
use super::{Target, anthropic, gemini, openai};
use crate::spec::{Freeform, Grammar, ToolSpec};

impl ToolSpec {
    /// This tool in `target`'s shape: one element of a request's `tools` array.
    ///
    /// | target | shape |
    /// |---|---|
    /// | [`OpenAiChat`](Target::OpenAiChat) | `{"type": "function", "function": {name, description, parameters, strict?}}` |
    /// | [`OpenAiChatStrict`](Target::OpenAiChatStrict) | the same, strict for every tool strict mode can represent |
    /// | [`OpenAiResponses`](Target::OpenAiResponses) | `{"type": "function", name, description, parameters, strict}` |
    /// | [`Anthropic`](Target::Anthropic) | `{name, description, input_schema, strict?, input_examples?}` |
    /// | [`Gemini`](Target::Gemini) | `{name, description, parameters?}` in Gemini's OpenAPI subset, or `{name, description, parametersJsonSchema}` where the subset would cut the schema |
    /// | [`Mcp`](Target::Mcp) | `{name, title?, description, icons?, inputSchema, outputSchema?, annotations}` |
    ///
    /// Strict (OpenAI Structured Outputs) lists every property in `required`, makes the
    /// optional ones nullable (those with a default are sent always instead, the default
    /// named in the description, as `null` is no value of their type), closes every
    /// object with `additionalProperties: false`, inlines a `$ref` that has siblings,
    /// and drops keywords strict mode rejects. A tool marked strict whose schema strict
    /// mode cannot represent (an open map, an untyped value) is exported without
    /// `strict`, with its plain schema, for every target (`OpenAiChatStrict` too: a
    /// strict flag on a schema the model cannot fill would only invite wrong calls);
    /// [`check`](fn@crate::schema::check) says why. A strict tool is strict for Anthropic
    /// too (strict tool use): every object closed, the rules its grammar does not take
    /// (numeric bounds, lengths, patterns, most formats) moved into the description,
    /// `oneOf` read as `anyOf`; a recursive type, an open map or an enum of objects
    /// leaves it non-strict.
    /// Gemini gets its OpenAPI subset (`parameters`: references inlined, `nullable`
    /// instead of type arrays, no `additionalProperties`) unless the subset would cut a
    /// recursive type, a map's value type or a tuple; then its JSON Schema form
    /// (`parametersJsonSchema`, with `$ref`/`$defs`). Either is left out when the tool
    /// takes no arguments. MCP
    /// gets `outputSchema` only when the output schema has an object root (what every
    /// revision accepts; `McpServer` adds the others for 2026-07-28 clients).
    ///
    /// Example arguments ([`ToolSpec::examples`]) go to Anthropic as `input_examples`;
    /// every other target has no field for them and reads them at the end of the
    /// description (`Examples: {...}; {...}`).
    ///
    /// A free-form tool ([`ToolSpec::freeform`]) is an OpenAI custom tool for the three
    /// OpenAI targets: `{"type": "custom", name, description, format}` (Responses) and
    /// `{"type": "custom", "custom": {name, description, format}}` (Chat Completions),
    /// `format` being `{"type": "text"}` or its grammar. The other targets get the
    /// function with its one string parameter, the grammar in the description
    /// ([`description_for`](ToolSpec::description_for)).
    ///
    /// A tool programs may call ([`ToolSpec::callers`]) has `allowed_callers` for
    /// Anthropic (and its output's shape at the end of the description: Anthropic has no
    /// field for it) and for OpenAI Responses (with `output_schema`, in strict form), when
    /// a program can read its output; otherwise it is offered directly and
    /// [`check`](fn@crate::schema::check) says why.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolkit::ToolSpec;
    /// use toolkit::schema::Target;
    ///
    /// let spec = ToolSpec::new("get_weather", "Current weather for a city.", json!({
    ///     "type": "object",
    ///     "properties": {
    ///         "location": {"type": "string"},
    ///         "days": {"type": "integer", "minimum": 1}
    ///     },
    ///     "required": ["location"],
    ///     "additionalProperties": false
    /// }));
    ///
    /// let strict = spec.export(Target::OpenAiChatStrict);
    /// assert_eq!(strict["function"]["strict"], true);
    /// assert_eq!(strict["function"]["parameters"]["required"], json!(["location", "days"]));
    /// assert_eq!(strict["function"]["parameters"]["properties"]["days"]["type"], json!(["integer", "null"]));
    ///
    /// let claude = spec.export(Target::Anthropic);
    /// assert_eq!(claude["input_schema"], spec.input_schema);
    /// ```
    pub fn export(&self, target: Target) -> Value {
        match target {
            Target::OpenAiChat => self.openai_chat(self.strict && self.strict_representable()),
            Target::OpenAiChatStrict => self.openai_chat(self.strict_representable()),
            Target::OpenAiResponses => self.openai_responses(self.strict && self.strict_representable()),
            Target::Anthropic => self.anthropic(),
            Target::Gemini => self.gemini(),
            Target::Mcp => self.mcp(),
        }
    }

    /// The description as `target` reads it. A target without a field for examples
    /// (all but Anthropic) reads them after it: `Examples: {"location": "Paris"}; {...}`,
    /// or, for an OpenAI custom tool, each example's text. A free-form tool sent as a
    /// function (to all but OpenAI) says what its parameter takes: the grammar.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolkit::{Target, ToolSpec};
    ///
    /// let spec = ToolSpec::new("get_weather", "Current weather.", json!({"type": "object"}))
    ///     .with_example(json!({"location": "Paris"}));
    /// assert_eq!(spec.description_for(Target::Anthropic), "Current weather.");
    /// assert_eq!(spec.description_for(Target::Gemini), "Current weather.\n\nExamples: {\"location\": \"Paris\"}");
    /// ```
    pub fn description_for(&self, target: Target) -> std::borrow::Cow<'_, str> {
        let openai = matches!(target, Target::OpenAiChat | Target::OpenAiChatStrict | Target::OpenAiResponses);
        let custom = self.freeform.as_ref().filter(|_| openai);
        let mut after: Vec<String> = Vec::new();
        if !self.examples.is_empty() && target != Target::Anthropic {
            match custom {
                Some(freeform) => after
                    .extend(self.examples.iter().map(|e| format!("Example input:\n{}", example_input(freeform, e)))),
                None => {
                    let list: Vec<String> = self.examples.iter().map(super::example::one_line).collect();
                    after.push(format!("Examples: {}", list.join("; ")));
                }
            }
        }
        // A program reads the result: Anthropic has no field for its shape.
        if target == Target::Anthropic
            && self.programmable(target)
            && let Some(output) = &self.output_schema
        {
            after.push(format!("Returns (JSON): {}", crate::json_schema::render::Render::new(output).value(output, 0)));
        }
        if let (Some(freeform), None) = (&self.freeform, custom)
            && let Some(grammar) = &freeform.grammar
        {
            after.push(grammar_note(&freeform.param, grammar));
        }
        if after.is_empty() {
            return std::borrow::Cow::Borrowed(&self.description);
        }
        let mut text = self.description.clone();
        for part in after {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&part);
        }
        std::borrow::Cow::Owned(text)
    }

    /// Anthropic's shape; strict (`strict: true`, the schema rewritten into the subset
    /// its grammar takes) for a strict tool whose schema can be.
    fn anthropic(&self) -> Value {
        let mut tool = if self.strict && anthropic::problems(&self.input_schema).is_empty() {
            json!({
                "name": self.name,
                "description": self.description_for(Target::Anthropic),
                "input_schema": anthropic::strict_schema(&self.input_schema),
                "strict": true,
            })
        } else {
            json!({
                "name": self.name,
                "description": self.description_for(Target::Anthropic),
                "input_schema": self.input_schema,
            })
        };
        if !self.examples.is_empty() {
            tool["input_examples"] = Value::Array(self.examples.clone());
        }
        if let Some(callers) = self.allowed_callers(Target::Anthropic) {
            tool["allowed_callers"] = callers;
        }
        tool
    }

    /// Whether programs may call the tool on `target` (Anthropic, OpenAI Responses): it
    /// asks to be, and a program can read its output ([`check`](fn@super::check) says why
    /// not). Otherwise the tool is offered to the model directly.
    pub(crate) fn programmable(&self, target: Target) -> bool {
        self.callers.program() && super::check::program_output_problems(self, target).is_empty()
    }

    /// `allowed_callers` for `target`, when programs may call the tool there.
    fn allowed_callers(&self, target: Target) -> Option<Value> {
        if !self.programmable(target) {
            return None;
        }
        let program = match target {
            Target::Anthropic => ANTHROPIC_CODE_EXECUTION,
            _ => "programmatic",
        };
        Some(if self.callers.direct() { json!(["direct", program]) } else { json!([program]) })
    }

    fn strict_representable(&self) -> bool {
        openai::problems(&self.input_schema).is_empty()
    }

    fn openai_parameters(&self, strict: bool) -> Value {
        if strict { openai::strict_schema(&self.input_schema) } else { self.input_schema.clone() }
    }

    fn openai_chat(&self, strict: bool) -> Value {
        if let Some(freeform) = &self.freeform {
            let custom = json!({
                "name": self.name,
                "description": self.description_for(Target::OpenAiChat),
                "format": match &freeform.grammar {
                    None => json!({"type": "text"}),
                    Some(g) => json!({"type": "grammar", "grammar": {"syntax": g.syntax(), "definition": g.definition()}}),
                },
            });
            return json!({"type": "custom", "custom": custom});
        }
        let mut function = Map::new();
        function.insert("name".into(), Value::from(self.name.as_str()));
        function.insert("description".into(), Value::from(self.description_for(Target::OpenAiChat)));
        function.insert("parameters".into(), self.openai_parameters(strict));
        if strict {
            function.insert("strict".into(), Value::Bool(true));
        }
        json!({ "type": "function", "function": function })
    }

    /// The Responses shape, strict when asked and the schema can be.
    #[cfg(feature = "openai")]
    pub(crate) fn openai_responses_strict(&self, strict: bool) -> Value {
        self.openai_responses((strict || self.strict) && self.strict_representable())
    }

    fn openai_responses(&self, strict: bool) -> Value {
        if let Some(freeform) = &self.freeform {
            return json!({
                "type": "custom",
                "name": self.name,
                "description": self.description_for(Target::OpenAiResponses),
                "format": match &freeform.grammar {
                    None => json!({"type": "text"}),
                    Some(g) => json!({"type": "grammar", "syntax": g.syntax(), "definition": g.definition()}),
                },
            });
        }
        let mut tool = json!({
            "type": "function",
            "name": self.name,
            "description": self.description_for(Target::OpenAiResponses),
            "parameters": self.openai_parameters(strict),
            "strict": strict,
        });
        if let Some(callers) = self.allowed_callers(Target::OpenAiResponses) {
            tool["allowed_callers"] = callers;
            if let Some(output) = &self.output_schema {
                tool["output_schema"] = openai::strict_schema(output);
            }
        }
        tool
    }

    fn gemini(&self) -> Value {
        let mut declaration = Map::new();
        declaration.insert("name".into(), Value::from(self.name.as_str()));
        declaration.insert("description".into(), Value::from(self.description_for(Target::Gemini)));
        // Gemini rejects an object schema with no properties: a tool without
        // arguments leaves `parameters` out.
        if !self.takes_no_arguments() {
            let form = gemini::form(&self.input_schema);
            declaration.insert(form.key().into(), gemini::declaration_schema(&self.input_schema, form));
        }
        Value::Object(declaration)
    }

    fn mcp(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), Value::from(self.name.as_str()));
        if let Some(title) = &self.title {
            tool.insert("title".into(), Value::from(title.as_str()));
        }
        tool.insert("description".into(), Value::from(self.description_for(Target::Mcp)));
        if !self.icons.is_empty() {
            tool.insert("icons".into(), serde_json::to_value(&self.icons).unwrap_or_default());
        }
        let mut input = self.input_schema.clone();
        for h in &self.headers {
            if let Some(Value::Object(property)) = input.get_mut("properties").and_then(|p| p.get_mut(&h.param)) {
                // A header parameter's `type` is one name (clients drop the tool
                // otherwise): an optional one's `[T, "null"]` becomes `T`, and it is left
                // out rather than sent as null.
                if let Some(Value::Array(types)) = property.get("type")
                    && let [one] = &types.iter().filter(|t| *t != "null").collect::<Vec<_>>()[..]
                {
                    let one = (*one).clone();
                    property.insert("type".into(), one);
                }
                property.insert("x-mcp-header".into(), Value::from(h.header.as_str()));
            }
        }
        tool.insert("inputSchema".into(), input);
        if let Some(output) = published_output_schema(self) {
            tool.insert("outputSchema".into(), output.clone());
        }
        let mut annotations = Map::new();
        if let Some(title) = &self.title {
            annotations.insert("title".into(), Value::from(title.as_str()));
        }
        annotations.insert("readOnlyHint".into(), Value::Bool(self.annotations.read_only));
        annotations.insert("destructiveHint".into(), Value::Bool(self.annotations.destructive));
        annotations.insert("idempotentHint".into(), Value::Bool(self.annotations.idempotent));
        annotations.insert("openWorldHint".into(), Value::Bool(self.annotations.open_world));
        tool.insert("annotations".into(), Value::Object(annotations));
        Value::Object(tool)
    }
}

/// The code-execution tool Anthropic runs programs in (programmatic tool calling).
pub(crate) const ANTHROPIC_CODE_EXECUTION: &str = "code_execution_20260120";

/// The text of an example of a free-form tool: its parameter's value (or the example as
/// JSON, if it has none).
fn example_input(freeform: &Freeform, example: &Value) -> String {
    match example.get(&freeform.param).and_then(Value::as_str) {
        Some(text) => text.to_string(),
        None => super::example::one_line(example),
    }
}

/// What a free-form tool's parameter takes, for a provider that cannot hold the model
/// to the grammar.
fn grammar_note(param: &str, grammar: &Grammar) -> String {
    match grammar {
        Grammar::Lark(text) => {
            let end = if text.ends_with('\n') { "" } else { "\n" };
            format!(
                "The `{param}` argument is text in this Lark grammar (start rule `start`):\n```lark\n{text}{end}```"
            )
        }
        Grammar::Regex(pattern) => {
            format!("The `{param}` argument is text that matches this regular expression, whole: `{pattern}`")
        }
    }
}

/// The output schema MCP publishes for `spec` (one with an object root), if any. An MCP
/// server sends `structuredContent` only for tools that have one.
fn published_output_schema(spec: &ToolSpec) -> Option<&Value> {
    spec.output_schema.as_ref().filter(|schema| has_object_root(schema))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Annotations;

    fn weather() -> ToolSpec {
        ToolSpec::new(
            "get_weather",
            "Current weather.",
            json!({
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "City."},
                    "unit": {"$ref": "#/$defs/Unit", "default": "celsius"}
                },
                "required": ["location"],
                "additionalProperties": false,
                "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}
            }),
        )
    }

    fn with_map(strict: bool) -> ToolSpec {
        ToolSpec::new(
            "tag",
            "Tag.",
            json!({"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["tags"]}),
        )
        .with_strict(strict)
    }

    #[test]
    fn openai_chat_is_plain_unless_the_tool_is_strict() {
        let plain = weather().export(Target::OpenAiChat);
        assert_eq!(plain["type"], "function");
        assert_eq!(plain["function"]["name"], "get_weather");
        assert_eq!(plain["function"]["parameters"], weather().input_schema);
        assert!(plain["function"].get("strict").is_none());

        let strict = weather().with_strict(true).export(Target::OpenAiChat);
        assert_eq!(strict["function"]["strict"], true);
        assert_eq!(strict["function"]["parameters"]["required"], json!(["location", "unit"]));
        assert_eq!(strict, weather().export(Target::OpenAiChatStrict));
    }

    #[test]
    fn responses_always_says_whether_it_is_strict() {
        let plain = weather().export(Target::OpenAiResponses);
        assert_eq!(plain["strict"], false);
        assert_eq!(plain["name"], "get_weather");
        assert!(plain.get("function").is_none());
        let strict = weather().with_strict(true).export(Target::OpenAiResponses);
        assert_eq!(strict["strict"], true);
        let unit = &strict["parameters"]["properties"]["unit"];
        assert_eq!(unit["type"], json!("string"), "a defaulted parameter is sent, never null");
        assert_eq!(unit["description"], json!("Default: \"celsius\"."));
    }

    #[test]
    fn a_tool_that_strict_mode_cannot_take_goes_out_plain_on_every_target() {
        let chat = with_map(true).export(Target::OpenAiChat);
        assert!(chat["function"].get("strict").is_none());
        assert_eq!(chat["function"]["parameters"], with_map(true).input_schema);
        assert_eq!(with_map(true).export(Target::OpenAiResponses)["strict"], false);
        // Even for the strict target: a map closed to `{}` would let the model send only
        // an empty one.
        let plain = with_map(false).export(Target::OpenAiChatStrict);
        assert!(plain["function"].get("strict").is_none(), "{plain}");
        assert_eq!(plain["function"]["parameters"], with_map(false).input_schema);
    }

    #[test]
    fn anthropic_takes_the_canonical_schema() {
        let out = weather().export(Target::Anthropic);
        assert_eq!(
            out,
            json!({"name": "get_weather", "description": "Current weather.", "input_schema": weather().input_schema})
        );
    }

    #[test]
    fn gemini_inlines_and_leaves_out_empty_parameters() {
        let out = weather().export(Target::Gemini);
        assert_eq!(out["parameters"]["properties"]["unit"]["enum"], json!(["celsius", "fahrenheit"]));
        assert!(out["parameters"].get("$defs").is_none());
        let none = ToolSpec::new(
            "now",
            "The time.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
        );
        assert_eq!(none.export(Target::Gemini), json!({"name": "now", "description": "The time."}));
    }

    #[test]
    fn gemini_takes_the_json_schema_form_where_the_subset_would_cut() {
        let out = with_map(false).export(Target::Gemini);
        assert!(out.get("parameters").is_none(), "{out}");
        assert_eq!(
            out["parametersJsonSchema"]["properties"]["tags"]["additionalProperties"],
            json!({"type": "string"})
        );
        assert!(weather().export(Target::Gemini).get("parametersJsonSchema").is_none());
    }

    #[test]
    fn mcp_has_annotations_title_and_only_object_output_schemas() {
        let annotations = Annotations { read_only: true, idempotent: true, ..Default::default() };
        let spec = weather()
            .with_title("Weather")
            .with_annotations(annotations)
            .with_output_schema(json!({"type": "object", "properties": {"temp": {"type": "number"}}}));
        let out = spec.export(Target::Mcp);
        assert_eq!(out["title"], "Weather");
        assert_eq!(out["inputSchema"], spec.input_schema);
        assert_eq!(out["outputSchema"]["properties"]["temp"]["type"], "number");
        assert_eq!(
            out["annotations"],
            json!({"title": "Weather", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
        );
        let scalar = weather().with_output_schema(json!({"type": "integer"})).export(Target::Mcp);
        assert!(scalar.get("outputSchema").is_none());
        assert!(scalar.get("title").is_none());
    }
}
