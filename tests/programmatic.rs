//! Programmatic tool calling: a tool marked `#[tool(programmatic)]` is exported with
//! `allowed_callers` (and its output's shape) for Anthropic and OpenAI Responses, each
//! request carries the provider's program runner, and a program's calls round-trip
//! through the agent loop against local servers speaking each API, plain and
//! streamed: the parts of a reply only the provider reads (code-execution blocks, the
//! container, program items, a call's `caller`) go back exactly as they came, and each
//! call the program makes runs through the toolbox as an ordinary call.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::provider::{Canned, Provider, ok};
use toolkit::agent::{Agent, RunEvent};
use toolkit::model::StreamExt;
use toolkit::model::{Anthropic, OpenAiCompatible, OpenAiResponses};
use toolkit::prelude::*;
use toolkit::schema::check;
use toolkit::{Callers, Target, ToolSpec};

/// Sales of one region last quarter.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sales {
    /// The region.
    region: String,
    /// Revenue in euros.
    revenue: u64,
}

/// The sales of a region last quarter.
#[tool(read_only, programmatic)]
fn sales(
    /// `west`, `east` or `central`.
    region: String,
) -> Sales {
    let revenue = match region.as_str() {
        "west" => 120,
        "east" => 95,
        _ => 60,
    };
    Sales { region, revenue }
}

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[test]
fn anthropic_gets_allowed_callers_and_the_shape_of_the_output() {
    let tool = sales::spec().export(Target::Anthropic);
    assert_eq!(tool["allowed_callers"], json!(["direct", "code_execution_20260120"]));
    assert_eq!(
        tool["description"],
        "The sales of a region last quarter.\n\nReturns (JSON): {region: string, revenue: integer}"
    );
    assert!(add::spec().export(Target::Anthropic).get("allowed_callers").is_none());
    assert_eq!(sales::spec().callers, Callers::Both);
}

#[test]
fn openai_responses_gets_allowed_callers_and_a_strict_output_schema() {
    let tool = sales::spec().export(Target::OpenAiResponses);
    assert_eq!(tool["allowed_callers"], json!(["direct", "programmatic"]));
    assert_eq!(tool["output_schema"]["additionalProperties"], false);
    assert_eq!(tool["output_schema"]["required"], json!(["region", "revenue"]));
    assert_eq!(tool["output_schema"]["properties"]["revenue"]["type"], "integer");
    assert_eq!(tool["description"], "The sales of a region last quarter.");
    // Chat Completions, Gemini and MCP have no programs: the tool is an ordinary one.
    for target in [Target::OpenAiChat, Target::Gemini, Target::Mcp] {
        assert!(!sales::spec().export(target).to_string().contains("allowed_callers"), "{target}");
    }
}

fn program_only(output: Option<Value>) -> ToolSpec {
    let input = json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"], "additionalProperties": false});
    let spec = ToolSpec::new("lookup", "Look a record up.", input).with_callers(Callers::Program);
    match output {
        Some(schema) => spec.with_output_schema(schema),
        None => spec,
    }
}

#[test]
fn check_says_when_a_program_cannot_read_the_output_and_the_tool_falls_back_to_direct() {
    let none = program_only(None);
    for target in [Target::Anthropic, Target::OpenAiResponses] {
        let found = check(&none, target);
        assert_eq!(found.len(), 1, "{target}: {found:?}");
        assert_eq!(found[0].path, "(output)");
        assert!(found[0].rule.starts_with("a tool programs call returns JSON the program reads"), "{}", found[0]);
        assert!(found[0].rule.ends_with("until then it is offered to the model directly, not to programs"));
        assert!(none.export(target).get("allowed_callers").is_none(), "{target}");
    }
    assert!(check(&none, Target::Gemini).is_empty(), "no programs there, nothing to say");

    let scalar = program_only(Some(json!({"type": "integer"})));
    assert!(check(&scalar, Target::Anthropic)[0].rule.starts_with("a tool programs call returns a JSON object"));

    // An open map: Anthropic takes it, OpenAI strict mode cannot.
    let map = program_only(Some(json!({"type": "object", "additionalProperties": {"type": "integer"}})));
    assert!(check(&map, Target::Anthropic).is_empty());
    assert_eq!(map.export(Target::Anthropic)["allowed_callers"], json!(["code_execution_20260120"]));
    let found = check(&map, Target::OpenAiResponses);
    assert_eq!(found.len(), 1);
    assert!(found[0].rule.contains("an open map"), "{}", found[0]);
    assert!(map.export(Target::OpenAiResponses).get("allowed_callers").is_none());
}

// ---- Anthropic ------------------------------------------------------------------------

fn claude(server: &Provider) -> Anthropic {
    Anthropic::builder()
        .base_url(&server.base_url)
        .api_key("sk-ant-test")
        .model("claude-opus-4-7")
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap()
}

/// The first reply: the model writes a program, which calls `sales` twice.
fn claude_program() -> Vec<Value> {
    let caller = json!({"type": "code_execution_20260120", "tool_id": "srvtoolu_1"});
    vec![
        json!({"type": "text", "text": "Let me compare the regions."}),
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution",
               "input": {"code": "w = await sales(region='west')\ne = await sales(region='east')\nprint(max(w, e))"}}),
        json!({"type": "tool_use", "id": "toolu_1", "name": "sales", "input": {"region": "west"}, "caller": caller}),
        json!({"type": "tool_use", "id": "toolu_2", "name": "sales", "input": {"region": "east"}, "caller": caller}),
    ]
}

/// The second reply: the program's result, and the answer.
fn claude_answer() -> Vec<Value> {
    vec![
        json!({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_1",
               "content": {"type": "code_execution_result", "stdout": "west 120", "stderr": "", "return_code": 0, "content": []}}),
        json!({"type": "text", "text": "West sold the most."}),
    ]
}

fn claude_message(content: Vec<Value>, stop: &str) -> Value {
    json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-7",
           "content": content, "stop_reason": stop, "container": {"id": "container_7", "expires_at": "2026-12-03T10:00:00Z"},
           "usage": {"input_tokens": 50, "output_tokens": 20}})
}

/// What the second request must hold: the first reply's blocks exactly, the results of
/// the program's calls alone in the next user message, and the container.
fn assert_claude_second_request(received: &[support::provider::Received]) {
    let first = &received[0].body;
    assert_eq!(first["tools"][0], json!({"type": "code_execution_20260120", "name": "code_execution"}));
    assert_eq!(first["tools"][1]["allowed_callers"], json!(["direct", "code_execution_20260120"]));
    assert!(first.get("container").is_none());
    let second = &received[1].body;
    assert_eq!(second["container"], "container_7");
    assert_eq!(second["messages"][1], json!({"role": "assistant", "content": claude_program()}));
    assert_eq!(
        second["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": r#"{"region":"west","revenue":120}"#},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": r#"{"region":"east","revenue":95}"#}
        ]})
    );
}

#[tokio::test]
async fn an_anthropic_program_calls_the_tools_and_its_blocks_go_back_exactly() {
    let server = Provider::start(
        "/v1/messages",
        [
            ok(claude_message(claude_program(), "tool_use")),
            ok(claude_message(claude_answer(), "end_turn")),
            ok(claude_message(vec![json!({"type": "text", "text": "Yes."})], "end_turn")),
        ],
    )
    .await;
    let agent = Agent::builder(claude(&server), toolbox![sales, add]).build().unwrap();
    let run = agent.run("Which region sold the most?").await.unwrap();
    assert_eq!(run.text, "West sold the most.");
    toolkit::testing::assert_exact(
        &run.records,
        &[toolkit::testing::call("sales").arg("region", "west"), toolkit::testing::call("sales").arg("region", "east")],
    );
    assert_claude_second_request(&server.received());

    // The conversation goes on: the answer's code-execution result goes back too.
    let more = agent.run("Sure?").history(run.messages.clone()).await.unwrap();
    assert_eq!(more.text, "Yes.");
    let third = &server.received()[2].body;
    assert_eq!(third["messages"][3], json!({"role": "assistant", "content": claude_answer()}));
}

/// The same program, streamed: the blocks are put together from their deltas.
#[tokio::test]
async fn a_streamed_anthropic_program_goes_back_the_same() {
    let sse = |events: Vec<(&str, Value)>| Canned {
        status: 200,
        headers: vec![("content-type", "text/event-stream".into())],
        body: events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect(),
        delay: Duration::ZERO,
    };
    let program = claude_program();
    let start = |index: usize, block: Value| {
        ("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": block}))
    };
    let delta = |index: usize, delta: Value| {
        ("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": delta}))
    };
    let input = |index: usize, json: &Value| {
        let text = json.to_string();
        let (a, b) = text.split_at(text.len() / 2);
        [
            delta(index, json!({"type": "input_json_delta", "partial_json": a})),
            delta(index, json!({"type": "input_json_delta", "partial_json": b})),
        ]
    };
    let empty_input = |block: &Value| {
        let mut block = block.clone();
        block["input"] = json!({});
        block
    };
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": [],
               "container": {"id": "container_7"}, "usage": {"input_tokens": 50, "output_tokens": 1}}}),
    )];
    events.push(start(0, json!({"type": "text", "text": ""})));
    events.push(delta(0, json!({"type": "text_delta", "text": "Let me compare "})));
    events.push(delta(0, json!({"type": "text_delta", "text": "the regions."})));
    for (i, block) in program.iter().enumerate().skip(1) {
        events.push(start(i, empty_input(block)));
        events.extend(input(i, &block["input"]));
    }
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    let answer = vec![
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_2", "content": [], "usage": {"input_tokens": 60}}}),
        ),
        start(0, claude_answer()[0].clone()),
        start(1, json!({"type": "text", "text": ""})),
        delta(1, json!({"type": "text_delta", "text": "West sold the most."})),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "container": {"id": "container_7"}}, "usage": {"output_tokens": 9}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let server = Provider::start("/v1/messages", [sse(events), sse(answer)]).await;
    let agent = Agent::builder(claude(&server), toolbox![sales]).build().unwrap();
    let events: Vec<RunEvent> = agent.run("Which region sold the most?").stream().collect().await;
    let Some(RunEvent::Finished(run)) = events.last() else { panic!("{events:?}") };
    let run = run.as_ref().unwrap();
    assert_eq!(run.text, "West sold the most.");
    assert_eq!(run.records.len(), 2);
    assert_claude_second_request(&server.received());
}

// ---- OpenAI Responses -----------------------------------------------------------------

fn program_items() -> Vec<Value> {
    let caller = json!({"type": "program", "caller_id": "prog_call_1"});
    vec![
        json!({"type": "program", "id": "prog_1", "call_id": "prog_call_1",
               "code": "const w = await tools.sales({region: 'west'}); return w.revenue;", "fingerprint": "fp_opaque"}),
        json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "sales",
               "arguments": "{\"region\":\"west\"}", "caller": caller}),
    ]
}

#[tokio::test]
async fn an_openai_program_calls_the_tools_and_its_items_go_back_exactly() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": []});
    let mut first = vec![reasoning];
    first.extend(program_items());
    let done = json!({"status": "completed", "output": [
        {"type": "program_output", "id": "po_1", "call_id": "prog_call_1", "result": "120", "status": "completed"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "West: 120."}]}
    ]});
    let server =
        Provider::start("/v1/responses", [ok(json!({"status": "completed", "output": first})), ok(done)]).await;
    let model = OpenAiResponses::builder()
        .base_url(format!("{}/v1", server.base_url))
        .api_key("sk-test")
        .model("gpt-5")
        .build()
        .unwrap();
    let run = Agent::builder(model, toolbox![sales, add]).build().unwrap().run("West?").await.unwrap();
    assert_eq!(run.text, "West: 120.");
    assert_eq!(run.records.len(), 1);
    let received = server.received();
    let tools = &received[0].body["tools"];
    assert_eq!(tools[0]["allowed_callers"], json!(["direct", "programmatic"]));
    assert_eq!(tools[2], json!({"type": "programmatic_tool_calling"}));
    let mut expected = vec![json!({"role": "user", "content": "West?"})];
    expected.extend(program_items());
    expected.push(
        json!({"type": "function_call_output", "call_id": "call_1", "output": r#"{"region":"west","revenue":120}"#}),
    );
    assert_eq!(received[1].body["input"], Value::Array(expected), "the program items exactly, without the reasoning");
}

/// A conversation with another API's parts, sent to Chat Completions: left out.
#[tokio::test]
async fn chat_completions_leaves_another_apis_parts_out() {
    let reply =
        json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}]});
    let server = Provider::start("/v1/chat/completions", [ok(reply)]).await;
    let model = OpenAiCompatible::builder().base_url(format!("{}/v1", server.base_url)).api_key("k").build().unwrap();
    let mut assistant = toolkit::model::AssistantMessage::text("West.");
    assistant.echo = Some(toolkit::model::Echo::new("anthropic", claude_answer()));
    let history = vec![Message::user("West?"), Message::Assistant(assistant)];
    Agent::builder(model, toolbox![add]).build().unwrap().run("Sure?").history(history).await.unwrap();
    assert_eq!(server.received()[0].body["messages"][1], json!({"role": "assistant", "content": "West."}));
}
