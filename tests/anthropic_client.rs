//! `Anthropic` against a real HTTP server on 127.0.0.1 that speaks the Messages API
//! (the shapes of Anthropic's API reference): the exact JSON the client sends, what it
//! makes of each reply, and its retries and errors, through the same `Agent` as the
//! other clients.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::provider::{Provider, ok, status};
use toolkit::agent::{Agent, AgentError};
use toolkit::model::{Anthropic, AnthropicBuilder, FinishReason, Message, Model, ModelError, ModelRequest, ToolChoice};
use toolkit::prelude::*;

const KEY: &str = "sk-ant-test-secret-0123456789";

fn client(server: &Provider) -> AnthropicBuilder {
    Anthropic::builder()
        .base_url(&server.base_url)
        .api_key(KEY)
        .model("claude-test")
        .max_tokens(512)
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
}

async fn serve(replies: impl IntoIterator<Item = support::provider::Canned>) -> Provider {
    Provider::start("/v1/messages", replies).await
}

fn message(content: Value, stop_reason: &str, input_tokens: u64, output_tokens: u64) -> Value {
    json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}
    })
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// Add two integers.
#[tool(read_only)]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> i64 {
    a + b
}

/// The local time in a city.
#[tool]
fn city_time(
    /// The city.
    city: String,
) -> String {
    format!("12:00 in {city}")
}

fn agent(model: Anthropic) -> Agent {
    Agent::builder(model, toolbox![add, city_time]).system_prompt("Be brief.").build().unwrap()
}

#[tokio::test]
async fn a_text_answer() {
    let server = serve([ok(message(json!([{"type": "text", "text": "Hello."}]), "end_turn", 12, 3))]).await;
    let run = agent(client(&server).build().unwrap()).run("Hi").await.unwrap();
    assert_eq!(run.text, "Hello.");
    assert_eq!(run.usage.total_tokens, 15);
    let received = server.received();
    assert_eq!(received[0].headers["x-api-key"], KEY);
    assert_eq!(received[0].headers["anthropic-version"], "2023-06-01");
    assert!(received[0].headers.get("authorization").is_none());
    assert_eq!(received[0].body["max_tokens"], json!(512));
    assert_eq!(received[0].body["system"], json!("Be brief."));
    assert_eq!(received[0].body["messages"], json!([{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]));
}

#[tokio::test]
async fn parallel_tool_calls_then_an_answer_send_exactly_this_json() {
    let server = serve([
        ok(message(
            json!([
                {"type": "text", "text": "Checking."},
                tool_use("toolu_a", "add", json!({"a": 2, "b": 3})),
                tool_use("toolu_b", "city_time", json!({"city": "Paris"}))
            ]),
            "tool_use",
            50,
            10,
        )),
        ok(message(json!([tool_use("toolu_c", "add", json!({"a": 5, "b": 10}))]), "tool_use", 60, 10)),
        ok(message(json!([{"type": "text", "text": "5, then 15; noon in Paris."}]), "end_turn", 80, 12)),
    ])
    .await;
    let run = agent(client(&server).build().unwrap()).run("Add 2 and 3, then 10; time in Paris?").await.unwrap();
    assert_eq!(run.text, "5, then 15; noon in Paris.");
    assert_eq!(run.records.len(), 3);
    assert_eq!(run.usage.total_tokens, 60 + 70 + 92);

    let received = server.received();
    assert_eq!(received.len(), 3);
    let tools = toolbox![add, city_time];
    assert_eq!(
        received[0].body,
        json!({
            "model": "claude-test",
            "max_tokens": 512,
            "system": "Be brief.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Add 2 and 3, then 10; time in Paris?"}]}],
            "tools": tools.export(Target::Anthropic),
            "tool_choice": {"type": "auto"}
        })
    );
    // Both results of the first turn in one user message, in the order of the calls.
    let second = &received[1].body["messages"];
    assert_eq!(
        second[1],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_a", "name": "add", "input": {"a": 2, "b": 3}},
            {"type": "tool_use", "id": "toolu_b", "name": "city_time", "input": {"city": "Paris"}}
        ]})
    );
    assert_eq!(
        second[2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "5"},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "12:00 in Paris"}
        ]})
    );
    assert_eq!(received[2].body["messages"][4]["content"][0]["content"], json!("15"));
}

/// The forecast for a city.
#[tool(strict)]
fn forecast(
    /// The city.
    #[arg(max_length = 100)]
    city: String,
    /// How many days ahead.
    #[arg(minimum = 1, maximum = 14)]
    days: u8,
) -> String {
    format!("{city}: sunny for {days} days")
}

/// A strict tool is sent with `strict: true` and its schema in the subset strict tool use
/// takes: objects closed, the bounds moved into the descriptions (the model still reads
/// them; parsing still checks them). A non-strict tool is sent as it is.
#[tokio::test]
async fn a_strict_tool_is_sent_strict_with_its_rules_in_the_descriptions() {
    let server = serve([ok(message(json!([{"type": "text", "text": "ok"}]), "end_turn", 1, 1))]).await;
    let tools = toolbox![forecast, add];
    let specs = tools.specs();
    let messages = [Message::user("hi")];
    client(&server).build().unwrap().complete(ModelRequest::new(&messages, &specs)).await.unwrap();
    let received = server.received();
    let sent = &received[0].body["tools"];
    assert_eq!(sent[0]["strict"], true, "{sent}");
    let schema = &sent[0]["input_schema"];
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["properties"]["days"]["description"], "How many days ahead. (minimum: 1; maximum: 14)");
    assert!(schema["properties"]["days"].get("minimum").is_none(), "{schema}");
    assert_eq!(schema["properties"]["city"]["description"], "The city. (maxLength: 100)");
    assert!(sent[1].get("strict").is_none(), "a tool not marked strict: {sent}");
    assert_eq!(sent[1]["input_schema"], specs[1].input_schema);
    // The bounds still hold when the call is parsed.
    let out = tools.call(toolkit::ToolCall::new("1", "forecast", r#"{"city": "Oslo", "days": 30}"#)).await;
    assert!(out.is_error(), "{out:?}");
}

/// `cache_tools(true)`: the last tool carries the prompt-cache breakpoint (and only it);
/// off by default; a typed answer's tool comes after the breakpoint.
#[tokio::test]
async fn cache_tools_marks_the_last_tool_with_a_cache_breakpoint() {
    let reply = || ok(message(json!([{"type": "text", "text": "ok"}]), "end_turn", 1, 1));
    let answer = || ok(message(json!([tool_use("t1", "final_answer", json!({"value": 1}))]), "tool_use", 1, 1));
    let server = serve([reply(), reply(), answer()]).await;
    let tools = toolbox![add, city_time];
    let specs = tools.specs();
    let messages = [Message::user("hi")];
    let cached = client(&server).cache_tools(true).build().unwrap();
    cached.complete(ModelRequest::new(&messages, &specs)).await.unwrap();
    client(&server).build().unwrap().complete(ModelRequest::new(&messages, &specs)).await.unwrap();
    let received = server.received();
    let sent = received[0].body["tools"].as_array().unwrap();
    assert_eq!(sent.len(), 2);
    assert!(sent[0].get("cache_control").is_none(), "{sent:?}");
    assert_eq!(sent[1]["name"], "city_time");
    assert_eq!(sent[1]["cache_control"], json!({"type": "ephemeral"}));
    let plain = received[1].body["tools"].as_array().unwrap();
    assert!(plain.iter().all(|t| t.get("cache_control").is_none()), "off by default: {plain:?}");

    // A typed answer: its tool comes last, after the breakpoint on the stable tools.
    let format = toolkit::model::ResponseFormat::of::<i64>();
    cached.complete(ModelRequest::new(&messages, &specs).response_format(&format)).await.unwrap();
    let typed = server.received()[2].body["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = typed.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "city_time", "final_answer"]);
    assert_eq!(typed[1]["cache_control"], json!({"type": "ephemeral"}));
    assert!(typed[2].get("cache_control").is_none());
}

#[tokio::test]
async fn tool_choice_and_parallelism_take_the_messages_api_shapes() {
    let cases = [
        (ToolChoice::Auto, true, json!({"type": "auto"})),
        (ToolChoice::Required, true, json!({"type": "any"})),
        (
            ToolChoice::Tool("add".into()),
            false,
            json!({"type": "tool", "name": "add", "disable_parallel_tool_use": true}),
        ),
        (ToolChoice::None, false, json!({"type": "none"})),
    ];
    let server =
        serve(cases.iter().map(|_| ok(message(json!([{"type": "text", "text": "ok"}]), "end_turn", 1, 1)))).await;
    let model = client(&server).build().unwrap();
    let tools = toolbox![add, city_time];
    let specs = tools.specs();
    let messages = [Message::user("hi")];
    for (choice, parallel, _) in &cases {
        let request = ModelRequest::new(&messages, &specs).tool_choice(choice).parallel_tool_calls(*parallel);
        model.complete(request).await.unwrap();
    }
    let received = server.received();
    for (i, (_, _, wanted)) in cases.iter().enumerate() {
        assert_eq!(&received[i].body["tool_choice"], wanted, "case {i}");
    }
}

#[tokio::test]
async fn stop_reasons_map_to_finish_reasons() {
    let server = serve([
        ok(message(json!([{"type": "text", "text": "cut"}]), "max_tokens", 1, 512)),
        ok(message(json!([]), "refusal", 1, 0)),
    ])
    .await;
    let model = client(&server).build().unwrap();
    let messages = [Message::user("hi")];
    let reply = model.complete(ModelRequest::new(&messages, &[])).await.unwrap();
    assert_eq!(reply.finish_reason, FinishReason::Length);
    let reply = model.complete(ModelRequest::new(&messages, &[])).await.unwrap();
    assert_eq!(reply.finish_reason, FinishReason::ContentFilter);
}

#[tokio::test]
async fn a_429_and_a_529_are_retried_honouring_retry_after() {
    let mut limited =
        status(429, json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}));
    limited.headers.push(("retry-after", "0.05".into()));
    let overloaded =
        status(529, json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}));
    let server =
        serve([limited, overloaded, ok(message(json!([{"type": "text", "text": "ok"}]), "end_turn", 1, 1))]).await;
    let started = std::time::Instant::now();
    let run = agent(client(&server).build().unwrap()).run("hi").await.unwrap();
    assert_eq!(run.text, "ok");
    assert_eq!(server.received().len(), 3);
    assert!(started.elapsed() >= Duration::from_millis(50), "the retry-after wait is honoured");
}

#[tokio::test]
async fn a_401_names_the_variable_and_never_shows_the_key() {
    let body = json!({"type": "error", "error": {"type": "authentication_error", "message": format!("invalid x-api-key {KEY}")}});
    let server = serve([status(401, body)]).await;
    let err = agent(client(&server).build().unwrap()).run("hi").await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
    assert!(!text.contains(KEY) && !format!("{err:?}").contains(KEY), "{text}");
    assert!(matches!(err, AgentError::Model { source: ModelError::Unauthorized { status: 401, .. }, .. }), "{err:?}");
}

#[tokio::test]
async fn an_unreachable_server_names_the_url_and_the_variable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let model = Anthropic::builder().base_url(format!("http://127.0.0.1:{port}")).api_key(KEY).build().unwrap();
    let messages = [Message::user("hi")];
    let err = model.complete(ModelRequest::new(&messages, &[])).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&format!("127.0.0.1:{port}/v1/messages")) && text.contains("ANTHROPIC_BASE_URL"), "{text}");
}

#[test]
fn a_missing_key_names_the_variable_to_set() {
    let err = Anthropic::builder().key_variable("TOOLKIT_TEST_NO_SUCH_KEY").build().unwrap_err();
    assert!(err.to_string().contains("TOOLKIT_TEST_NO_SUCH_KEY"), "{err}");
}

#[tokio::test]
async fn a_malformed_reply_is_a_typed_error() {
    let server = serve([support::provider::Canned {
        status: 200,
        headers: vec![],
        body: "<html>bad gateway</html>".into(),
        delay: Duration::ZERO,
    }])
    .await;
    let model = client(&server).build().unwrap();
    let messages = [Message::user("hi")];
    let err = model.complete(ModelRequest::new(&messages, &[])).await.unwrap_err();
    assert!(matches!(err, ModelError::MalformedResponse { .. }), "{err:?}");
}

/// A failed call's `tool_result` says so (`is_error: true`, as the Messages API asks);
/// a result that is not an error has no flag. Before, both went without it: Claude read
/// the error text as a result.
#[tokio::test]
async fn a_failed_call_goes_back_with_is_error() {
    let server = serve([
        ok(message(
            json!([
                tool_use("toolu_bad", "add", json!({"a": 2})),
                tool_use("toolu_ok", "add", json!({"a": 2, "b": 3}))
            ]),
            "tool_use",
            10,
            5,
        )),
        ok(message(json!([{"type": "text", "text": "5; the first call was wrong."}]), "end_turn", 20, 8)),
    ])
    .await;
    let run = agent(client(&server).build().unwrap()).run("Add").await.unwrap();
    assert_eq!(run.text, "5; the first call was wrong.");
    let results = &server.received()[1].body["messages"][2]["content"];
    assert_eq!(results[0]["tool_use_id"], "toolu_bad");
    assert_eq!(results[0]["is_error"], json!(true), "{results}");
    assert!(results[0]["content"].as_str().unwrap().contains("missing required field `b`"), "{results}");
    assert_eq!(results[1], json!({"type": "tool_result", "tool_use_id": "toolu_ok", "content": "5"}));
}

/// Convert an amount between currencies.
#[tool(
    read_only,
    example = {"amount": 100, "from": "EUR", "to": "USD"},
    example = {"amount": 2.5, "from": "JPY", "to": "EUR"}
)]
fn convert(
    /// How much.
    amount: f64,
    /// The currency it is in (ISO 4217).
    from: String,
    /// The currency wanted.
    to: String,
) -> String {
    format!("{amount} {from} in {to}")
}

/// A tool with examples goes out with `input_examples` and the request with the
/// `anthropic-beta` header that feature needs; a request without examples has no beta.
#[tokio::test]
async fn input_examples_are_sent_with_their_beta_header() {
    let reply = || ok(message(json!([{"type": "text", "text": "ok"}]), "end_turn", 1, 1));
    let server = serve([reply(), reply()]).await;
    let with = toolbox![convert, add];
    let without = toolbox![add];
    let messages = [Message::user("hi")];
    let model = client(&server).build().unwrap();
    model.complete(ModelRequest::new(&messages, &with.specs())).await.unwrap();
    model.complete(ModelRequest::new(&messages, &without.specs())).await.unwrap();
    let received = server.received();
    assert_eq!(received[0].headers["anthropic-beta"], "advanced-tool-use-2025-11-20");
    assert_eq!(
        received[0].body["tools"][0]["input_examples"],
        json!([{"amount": 100, "from": "EUR", "to": "USD"}, {"amount": 2.5, "from": "JPY", "to": "EUR"}])
    );
    assert_eq!(received[0].body["tools"][0]["description"], "Convert an amount between currencies.");
    assert!(received[0].body["tools"][1].get("input_examples").is_none());
    assert!(received[1].headers.get("anthropic-beta").is_none());
}
