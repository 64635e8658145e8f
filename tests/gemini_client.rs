//! `Gemini` against a real HTTP server on 127.0.0.1 that speaks the Gemini API (the
//! shapes of its reference): what Gemini 3 checks that other providers do not (thought
//! signatures sent back on the parts they came on), the wait it asks for in the body of
//! a 429, and the error form of a function response.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::provider::{Canned, Provider, ok, status};
use toolkit::agent::{Agent, AgentError};
use toolkit::model::{Gemini, GeminiBuilder, Message, ModelError, StreamExt};
use toolkit::prelude::*;

const PATH: &str = "/v1beta/models/gemini-3-test:generateContent";
const STREAM_PATH: &str = "/v1beta/models/gemini-3-test:streamGenerateContent";

fn client(server: &Provider) -> GeminiBuilder {
    Gemini::builder()
        .base_url(format!("{}/v1beta", server.base_url))
        .api_key("g-test")
        .model("gemini-3-test")
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
}

/// Add two integers.
#[tool]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> i64 {
    a + b
}

/// Divide two integers.
#[tool]
fn divide(
    /// The dividend.
    a: i64,
    /// The divisor.
    b: i64,
) -> Result<i64, String> {
    a.checked_div(b).ok_or_else(|| "cannot divide by zero".to_string())
}

fn agent(model: Gemini) -> Agent {
    Agent::builder(model, toolbox![add, divide]).build().unwrap()
}

fn usage() -> Value {
    json!({"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12})
}

fn text_reply(text: &str) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
           "usageMetadata": usage()})
}

/// What Gemini 3 checks: each `functionCall` part of the history carries the signature
/// it came with (here `sig-add` on the first call, none on its parallel sibling, as
/// Gemini sends them), and the text part carries the text's (`sig-text`). Anything
/// else is refused, as Gemini refuses it.
fn signatures_echoed(body: &Value) -> Result<(), String> {
    for content in body["contents"].as_array().into_iter().flatten().filter(|c| c["role"] == "model") {
        for part in content["parts"].as_array().into_iter().flatten() {
            let signature = part.get("thoughtSignature").and_then(Value::as_str);
            let expected = match (&part["functionCall"]["name"], &part["text"]) {
                (Value::String(name), _) if name == "add" => Some("sig-add"),
                (Value::String(_), _) => None,
                (_, Value::String(_)) => Some("sig-text"),
                _ => return Err(format!("a part this test does not send: {part}")),
            };
            if signature != expected {
                return Err(format!(
                    "Function call is missing a thought_signature in functionCall parts (expected {expected:?} on {part})"
                ));
            }
        }
    }
    Ok(())
}

/// The calls Gemini 3 sends at turn 1: the first with a signature, its sibling without;
/// text before them, whose signature comes on an empty text part at the end.
fn turn_one_parts() -> Vec<Value> {
    vec![
        json!({"text": "Let me add and divide."}),
        json!({"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "sig-add"}),
        json!({"functionCall": {"name": "divide", "args": {"a": 6, "b": 3}}}),
        json!({"text": "", "thoughtSignature": "sig-text"}),
    ]
}

/// Before, `thoughtSignature` was dropped when the reply was read: turn 2 went without
/// it and Gemini 3 refused it (400 "Function call is missing a thought_signature").
#[tokio::test]
async fn a_thought_signature_goes_back_on_the_part_it_came_on() {
    let turn_one = json!({"candidates": [{"content": {"role": "model", "parts": turn_one_parts()},
                                          "finishReason": "STOP"}], "usageMetadata": usage()});
    let server = Provider::start_checked(PATH, [ok(turn_one), ok(text_reply("5 and 2."))], signatures_echoed).await;
    let run = agent(client(&server).build().unwrap()).run("2 + 3, 6 / 3?").await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.text, "5 and 2.");
    let received = server.received();
    assert_eq!(received.len(), 2);
    let model_turn = &received[1].body["contents"][1];
    assert_eq!(model_turn["parts"][1]["thoughtSignature"], "sig-add", "{model_turn}");

    // The transcript keeps them (in the shape of Gemini's OpenAI-compatible API), and
    // reads back with them: a stored run can go on.
    let transcript = serde_json::to_value(&run.messages).unwrap();
    let assistant = &transcript[1];
    assert_eq!(assistant["extra_content"], json!({"google": {"thought_signature": "sig-text"}}));
    assert_eq!(assistant["tool_calls"][0]["extra_content"], json!({"google": {"thought_signature": "sig-add"}}));
    assert!(assistant["tool_calls"][1].get("extra_content").is_none(), "{assistant}");
    let back: Vec<Message> = serde_json::from_value(transcript).unwrap();
    assert_eq!(back, run.messages);
}

fn sse(events: &[Value]) -> Canned {
    let body = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    Canned { status: 200, headers: vec![("content-type", "text/event-stream".into())], body, delay: Duration::ZERO }
}

/// The same, streamed: each chunk is a reply of its own; the signatures come on the
/// call's chunk and on an empty text part of the last chunk.
#[tokio::test]
async fn a_streamed_thought_signature_goes_back_on_the_part_it_came_on() {
    let parts = turn_one_parts();
    let chunk = |parts: &[Value]| json!({"candidates": [{"content": {"role": "model", "parts": parts}}]});
    let turn_one = sse(&[
        chunk(&parts[..1]),
        chunk(&parts[1..3]),
        json!({"candidates": [{"content": {"role": "model", "parts": [parts[3]]}, "finishReason": "STOP"}],
               "usageMetadata": usage()}),
    ]);
    let turn_two = sse(&[text_reply("5 and 2.")]);
    let server = Provider::start_checked(STREAM_PATH, [turn_one, turn_two], signatures_echoed).await;
    let agent = agent(client(&server).build().unwrap());
    let events: Vec<_> = agent.run_stream("2 + 3, 6 / 3?").collect().await;
    let Some(toolkit::agent::RunEvent::Finished(outcome)) = events.last() else { panic!("{events:?}") };
    let run = outcome.as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.text, "5 and 2.");
    assert_eq!(server.received().len(), 2);
    let Message::Assistant(first) = &run.messages[1] else { panic!("{:?}", run.messages) };
    assert_eq!(first.thought_signature.as_deref(), Some("sig-text"));
    assert_eq!(first.tool_calls[0].thought_signature.as_deref(), Some("sig-add"));
    assert_eq!(first.tool_calls[1].thought_signature, None);
}

fn retry_info(delay: &str) -> Canned {
    status(
        429,
        json!({"error": {"code": 429, "message": "You exceeded your current quota.", "status": "RESOURCE_EXHAUSTED",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
        ]}}),
    )
}

/// Gemini says how long to wait in the body of a 429 (`RetryInfo.retryDelay`), not in
/// a header. Before, the client retried after its own backoff (5–20 ms here).
#[tokio::test]
async fn the_wait_a_429_asks_for_in_its_body_is_waited() {
    let server = Provider::start(PATH, [retry_info("0.4s"), ok(text_reply("Done."))]).await;
    let started = Instant::now();
    let run = agent(client(&server).build().unwrap()).run("Hi").await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.text, "Done.");
    let received = server.received();
    assert_eq!(received.len(), 2);
    let waited = received[1].at - received[0].at;
    assert!(waited >= Duration::from_millis(400), "retried after {waited:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// A wait longer than the client's limit is not waited for: the error comes at once and
/// says how long Gemini asked to wait. Before, the hint was ignored and every retry was
/// spent inside the window.
#[tokio::test]
async fn a_wait_over_the_limit_fails_at_once_saying_how_long() {
    let server =
        Provider::start(PATH, [retry_info("17s"), retry_info("17s"), retry_info("17s"), retry_info("17s")]).await;
    let client = client(&server).max_retry_wait(Duration::from_secs(1)).build().unwrap();
    let err = agent(client).run("Hi").await.unwrap_err();
    let AgentError::Model { source: source @ ModelError::RateLimited { attempts, retry_after, .. }, .. } = &err else {
        panic!("expected RateLimited, got {err:?}")
    };
    assert_eq!((*attempts, *retry_after), (1, Some(Duration::from_secs(17))));
    assert_eq!(server.received().len(), 1);
    let text = source.to_string();
    assert!(text.contains("You exceeded your current quota.; the provider asked to wait 17s"), "{text}");
}

/// A failed call goes back in the form Gemini documents for errors,
/// `response: {"error": ...}`, and a result as `response: {"output": ...}`. Before,
/// both were `output`: the model could not tell a failure from a result.
#[tokio::test]
async fn a_failed_call_goes_back_as_an_error_response() {
    let calls = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"id": "c1", "name": "divide", "args": {"a": 1, "b": 0}}},
        {"functionCall": {"id": "c2", "name": "add", "args": {"a": 1, "b": 1}}}
    ]}, "finishReason": "STOP"}]});
    let server = Provider::start(PATH, [ok(calls), ok(text_reply("Cannot divide; 2."))]).await;
    let run = agent(client(&server).build().unwrap()).run("1/0, 1+1").await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.text, "Cannot divide; 2.");
    let received = server.received();
    let results = &received[1].body["contents"][2]["parts"];
    assert_eq!(
        results[0]["functionResponse"],
        json!({"name": "divide", "id": "c1", "response": {"error": "cannot divide by zero"}})
    );
    assert_eq!(results[1]["functionResponse"], json!({"name": "add", "id": "c2", "response": {"output": "2"}}));
}
