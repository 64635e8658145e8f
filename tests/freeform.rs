//! Free-form tools (`#[tool(freeform)]`, `lark = "..."`, `regex = "..."`): sent to OpenAI
//! as custom tools with their grammar, the model's raw text taken back as the one
//! parameter's value (against local servers speaking the Responses and Chat Completions
//! APIs, plain and streamed), and sent to every other provider as a function with one
//! string parameter and the grammar in its description. A regex grammar is checked on
//! every call.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::provider::{Canned, Provider, ok};
use toolkit::agent::Agent;
use toolkit::model::{
    Message, Model, ModelEvent, ModelRequest, OpenAiCompatible, OpenAiResponses, StreamExt, ToolChoice,
};
use toolkit::prelude::*;
use toolkit::spec::Grammar;
use toolkit::{Target, ToolSpec};

const SQL: &str = r#"start: "SELECT " columns " FROM " TABLE
columns: "*" | COLUMN (", " COLUMN)*
COLUMN: /[a-z_]+/
TABLE: "sales" | "customers"
"#;

/// Run a read-only SQL query on the sales database.
#[tool(
    read_only,
    lark = r#"start: "SELECT " columns " FROM " TABLE
columns: "*" | COLUMN (", " COLUMN)*
COLUMN: /[a-z_]+/
TABLE: "sales" | "customers"
"#
)]
fn query(
    /// The query.
    sql: String,
) -> String {
    format!("3 rows for {sql}")
}

/// Set an alarm.
#[tool(regex = r"\d{1,2}:\d{2}", example = {"at": "7:30"})]
fn alarm(at: String) -> String {
    format!("alarm at {at}")
}

/// Write a note.
#[tool(freeform)]
fn note(text: String) -> String {
    format!("noted {} bytes", text.len())
}

#[test]
fn the_spec_says_which_parameter_takes_the_text_and_its_grammar() {
    let spec = query::spec();
    let freeform = spec.freeform.as_ref().expect("a free-form tool");
    assert_eq!(freeform.param, "sql");
    assert_eq!(freeform.grammar, Some(Grammar::Lark(SQL.into())));
    assert_eq!(alarm::spec().freeform.as_ref().unwrap().grammar, Some(Grammar::Regex(r"\d{1,2}:\d{2}".into())));
    assert_eq!(note::spec().freeform.as_ref().unwrap().grammar, None);
    assert!(toolbox![add_one].specs()[0].freeform.is_none());
}

/// Add one.
#[tool]
fn add_one(n: i64) -> i64 {
    n + 1
}

#[test]
fn openai_gets_custom_tools_with_their_grammar() {
    assert_eq!(
        query::spec().export(Target::OpenAiResponses),
        json!({
            "type": "custom",
            "name": "query",
            "description": "Run a read-only SQL query on the sales database.",
            "format": {"type": "grammar", "syntax": "lark", "definition": SQL}
        })
    );
    assert_eq!(
        alarm::spec().export(Target::OpenAiChat),
        json!({
            "type": "custom",
            "custom": {
                "name": "alarm",
                "description": "Set an alarm.\n\nExample input:\n7:30",
                "format": {"type": "grammar", "grammar": {"syntax": "regex", "definition": r"\d{1,2}:\d{2}"}}
            }
        })
    );
    assert_eq!(note::spec().export(Target::OpenAiChatStrict)["custom"]["format"], json!({"type": "text"}));
    assert_eq!(note::spec().export(Target::OpenAiResponses)["format"], json!({"type": "text"}));
}

#[test]
fn other_providers_get_one_string_parameter_and_the_grammar_in_the_description() {
    let spec = query::spec();
    let description = format!(
        "Run a read-only SQL query on the sales database.\n\nThe `sql` argument is text in this Lark grammar (start rule `start`):\n```lark\n{SQL}```"
    );
    for target in [Target::Anthropic, Target::Gemini, Target::Mcp] {
        let tool = spec.export(target);
        assert_eq!(tool["description"], description, "{target}");
    }
    assert_eq!(spec.export(Target::Anthropic)["input_schema"]["properties"]["sql"]["type"], "string");
    let regex = alarm::spec().export(Target::Anthropic);
    assert_eq!(
        regex["description"],
        "Set an alarm.\n\nThe `at` argument is text that matches this regular expression, whole: `\\d{1,2}:\\d{2}`"
    );
    assert_eq!(regex["input_schema"]["properties"]["at"]["pattern"], r"^(?:\d{1,2}:\d{2})$");
    assert_eq!(regex["input_examples"], json!([{"at": "7:30"}]));
}

#[tokio::test]
async fn a_regex_grammar_is_checked_on_every_call() {
    let tools = toolbox![alarm];
    let fine = tools.call(ToolCall::new("1", "alarm", r#"{"at": "7:30"}"#)).await;
    assert_eq!(fine.content, "alarm at 7:30");
    let wrong = tools.call(ToolCall::new("2", "alarm", r#"{"at": "half past seven"}"#)).await;
    assert!(wrong.is_error());
    assert!(wrong.content.contains("`at`") && wrong.content.contains(r"\d{1,2}:\d{2}"), "{}", wrong.content);
}

// ---- OpenAI Responses ----------------------------------------------------------------

fn responses_client(server: &Provider) -> OpenAiResponses {
    OpenAiResponses::builder()
        .base_url(format!("{}/v1", server.base_url))
        .api_key("sk-test")
        .model("gpt-5")
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap()
}

fn responses_text(text: &str) -> Value {
    json!({"status": "completed", "output": [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
    ], "usage": {"input_tokens": 10, "output_tokens": 2}})
}

/// The agent loop over the Responses API: the model's custom call reaches the tool as
/// `{"sql": ...}`, and the next request echoes the call and its output as custom items.
#[tokio::test]
async fn responses_custom_calls_round_trip_through_the_agent_loop() {
    let input = "SELECT region, total FROM sales";
    let call = json!({"status": "completed", "output": [
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "query", "input": input}
    ], "usage": {"input_tokens": 10, "output_tokens": 5}});
    let server = Provider::start("/v1/responses", [ok(call), ok(responses_text("Three rows."))]).await;
    let agent = Agent::builder(responses_client(&server), toolbox![query, add_one]).build().unwrap();
    let run = agent.run("Totals by region?").await.unwrap();
    assert_eq!(run.text, "Three rows.");
    assert_eq!(run.records[0].tool, "query");
    assert_eq!(serde_json::from_str::<Value>(&run.records[0].arguments).unwrap(), json!({"sql": input}));
    let received = server.received();
    assert_eq!(received[0].body["tools"][0], query::spec().export(Target::OpenAiResponses));
    assert_eq!(received[0].body["tools"][1]["type"], "function");
    assert_eq!(
        received[1].body["input"],
        json!([
            {"role": "user", "content": "Totals by region?"},
            {"type": "custom_tool_call", "call_id": "call_1", "name": "query", "input": input},
            {"type": "custom_tool_call_output", "call_id": "call_1", "output": format!("3 rows for {input}")}
        ])
    );
}

#[tokio::test]
async fn a_custom_tool_is_chosen_by_its_custom_type() {
    let server = Provider::start("/v1/responses", [ok(responses_text("ok"))]).await;
    let tools = toolbox![query];
    let specs = tools.specs();
    let messages = [Message::user("hi")];
    let choice = ToolChoice::Tool("query".into());
    responses_client(&server).complete(ModelRequest::new(&messages, &specs).tool_choice(&choice)).await.unwrap();
    assert_eq!(server.received()[0].body["tool_choice"], json!({"type": "custom", "name": "query"}));
}

#[tokio::test]
async fn a_streamed_custom_call_arrives_whole() {
    let input = "SELECT * FROM customers";
    let item = json!({"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_9", "name": "query", "input": input});
    let events = [
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_9", "name": "query", "input": ""}}),
        json!({"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "SELECT * "}),
        json!({"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "FROM customers"}),
        json!({"type": "response.completed", "response": {"status": "completed", "output": [item], "usage": {"input_tokens": 3, "output_tokens": 4}}}),
    ];
    let body: String =
        events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect();
    let canned = Canned {
        status: 200,
        headers: vec![("content-type", "text/event-stream".into())],
        body,
        delay: Duration::ZERO,
    };
    let server = Provider::start("/v1/responses", [canned]).await;
    let tools = toolbox![query];
    let specs = tools.specs();
    let messages = [Message::user("hi")];
    let model = responses_client(&server);
    let events: Vec<ModelEvent> =
        model.stream(ModelRequest::new(&messages, &specs)).map(Result::unwrap).collect().await;
    let fragments: String = events
        .iter()
        .filter_map(
            |e| if let ModelEvent::ToolCallDelta { arguments, .. } = e { Some(arguments.as_str()) } else { None },
        )
        .collect();
    assert_eq!(fragments, input, "the text streams as it is written");
    let calls: Vec<&ToolCall> =
        events.iter().filter_map(|e| if let ModelEvent::ToolCall(c) = e { Some(c) } else { None }).collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "call_9");
    assert_eq!(serde_json::from_str::<Value>(&calls[0].arguments).unwrap(), json!({"sql": input}));
}

// ---- OpenAI Chat Completions ---------------------------------------------------------

#[tokio::test]
async fn chat_custom_calls_round_trip_through_the_agent_loop() {
    let call = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
        "tool_calls": [{"id": "call_1", "type": "custom", "custom": {"name": "alarm", "input": "6:45"}}]}}]});
    let text = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Set."}}]});
    let server = Provider::start("/v1/chat/completions", [ok(call), ok(text)]).await;
    let model = OpenAiCompatible::builder()
        .base_url(format!("{}/v1", server.base_url))
        .api_key("sk-test")
        .model("gpt-5")
        .build()
        .unwrap();
    let run = Agent::builder(model, toolbox![alarm]).build().unwrap().run("Wake me at 6:45").await.unwrap();
    assert_eq!(run.text, "Set.");
    assert_eq!(run.records[0].arguments, r#"{"at":"6:45"}"#);
    let received = server.received();
    assert_eq!(received[0].body["tools"][0], alarm::spec().export(Target::OpenAiChat));
    assert_eq!(
        received[1].body["messages"],
        json!([
            {"role": "user", "content": "Wake me at 6:45"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "custom", "custom": {"name": "alarm", "input": "6:45"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "alarm at 6:45"}
        ])
    );
}

/// A hand-built free-form spec: the same exports, from `ToolSpec::with_freeform`.
#[test]
fn a_spec_built_at_run_time_can_be_free_form() {
    use toolkit::spec::Freeform;
    let schema = json!({"type": "object", "properties": {"patch": {"type": "string"}}, "required": ["patch"], "additionalProperties": false});
    let spec = ToolSpec::new("apply_patch", "Apply a unified diff.", schema).with_freeform(Freeform::new("patch"));
    assert_eq!(
        spec.export(Target::OpenAiResponses),
        json!({"type": "custom", "name": "apply_patch", "description": "Apply a unified diff.", "format": {"type": "text"}})
    );
    assert_eq!(spec.export(Target::Gemini)["description"], "Apply a unified diff.");
}

#[test]
fn the_docs_say_the_tool_is_free_form_and_show_its_grammar() {
    let page = toolbox![query, alarm, note].markdown("Tools");
    assert!(
        page.contains(&format!(
            "**Free-form:** the model writes `sql` in this Lark grammar:\n\n```lark\n{}\n```",
            SQL.trim_end()
        )),
        "{page}"
    );
    assert!(page.contains(r"**Free-form:** the model writes `at` as text matching `\d{1,2}:\d{2}`"), "{page}");
    assert!(page.contains("**Free-form:** the model writes `text` as plain text"), "{page}");
}
