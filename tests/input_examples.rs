//! `#[tool(example = {...})]`: example arguments checked when the crate builds, parsed
//! as a call by a generated test, exported as Anthropic's `input_examples` and in the
//! description elsewhere, and shown in the Markdown docs.

use std::future::Future;
use std::sync::LazyLock;

use serde_json::json;
use toolkit::prelude::*;
use toolkit::{CallContext, Output, Target, Tool, ToolError, ToolSpec};

/// Get the weather forecast for a city.
#[tool(
    read_only,
    example = {"city": "Paris"},
    example = {"city": "Oslo", "days": 3, "unit": "fahrenheit", "hourly": true, "note": null}
)]
fn forecast(
    /// The city.
    city: String,
    /// How many days.
    #[arg(minimum = 1, maximum = 14)]
    days: Option<u32>,
    /// `celsius` or `fahrenheit`.
    #[arg(default = "celsius".to_string())]
    unit: String,
    /// Hour by hour.
    #[arg(default)]
    hourly: bool,
    /// A note.
    note: Option<String>,
) -> String {
    format!("{city} {days:?} {unit} {hourly} {note:?}")
}

#[test]
fn the_examples_are_in_the_spec_and_every_export() {
    let spec = forecast::spec();
    let examples = [
        json!({"city": "Paris"}),
        json!({"city": "Oslo", "days": 3, "unit": "fahrenheit", "hourly": true, "note": null}),
    ];
    assert_eq!(spec.examples, examples);
    assert_eq!(spec.export(Target::Anthropic)["input_examples"], json!(examples));
    assert_eq!(spec.export(Target::Anthropic)["description"], "Get the weather forecast for a city.");
    let described = r#"Get the weather forecast for a city.

Examples: {"city": "Paris"}; {"city": "Oslo", "days": 3, "unit": "fahrenheit", "hourly": true, "note": null}"#;
    assert_eq!(spec.export(Target::OpenAiChat)["function"]["description"], described);
    assert_eq!(spec.export(Target::OpenAiResponses)["description"], described);
    assert_eq!(spec.export(Target::Gemini)["description"], described);
    assert_eq!(spec.export(Target::Mcp)["description"], described);
    for target in [Target::OpenAiChat, Target::OpenAiResponses, Target::Gemini, Target::Mcp] {
        let exported = spec.export(target).to_string();
        assert!(!exported.contains("input_examples"), "{target:?}: {exported}");
    }
}

#[tokio::test]
async fn each_example_is_a_call_the_tool_accepts() {
    let tools = toolbox![forecast];
    for (i, example) in forecast::spec().examples.iter().enumerate() {
        let result = tools.call(ToolCall::new(i.to_string(), "forecast", example.to_string())).await;
        assert!(!result.is_error(), "{example}: {}", result.content);
    }
}

#[test]
fn the_docs_show_the_examples_instead_of_a_made_up_call() {
    let page = toolbox![forecast].markdown("Tools");
    assert!(
        page.contains("**Example calls:**\n\n```json\n{\"city\": \"Paris\"}\n{\"city\": \"Oslo\", \"days\": 3"),
        "{page}"
    );
}

/// A hand-written tool whose example breaks a rule only a parse can see (the macro
/// checks names, presence and plain types; the generated test checks the rest).
struct Bad;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BadArgs {
    #[allow(dead_code)]
    days: u32,
}

impl toolkit::Validate for BadArgs {
    fn validate(&self) -> Result<(), toolkit::Violation> {
        if self.days == 0 {
            return Err(toolkit::Violation { field: "days", rule: "must be at least 1".into() });
        }
        Ok(())
    }
}

impl Tool for Bad {
    type Args = BadArgs;
    type Output = String;
    const NAME: &'static str = "bad";

    fn spec() -> &'static ToolSpec {
        static SPEC: LazyLock<ToolSpec> = LazyLock::new(|| {
            ToolSpec::new("bad", "Bad.", json!({"type": "object", "properties": {"days": {"type": "integer"}}}))
                .with_example(json!({"days": 2}))
                .with_example(json!({"days": 0}))
        });
        &SPEC
    }

    #[allow(clippy::manual_async_fn)]
    fn invoke<'a>(
        &'a self,
        _args: BadArgs,
        _cx: CallContext<'a>,
    ) -> impl Future<Output = Result<Output, ToolError>> + Send + 'a {
        async { Ok(Output::text("ok")) }
    }
}

#[test]
#[should_panic(expected = "example 2 of `bad` is not arguments the tool accepts")]
fn the_generated_check_fails_on_an_example_the_tool_refuses() {
    toolkit::__private::check_examples::<Bad>();
}
