//! `Gemini` against a real HTTP server on 127.0.0.1 that speaks the Gemini API (the
//! shapes of its reference): the wait it asks for in the body of a 429, and the error
//! form of a function response.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::provider::{Canned, Provider, ok, status};
use toolkit::agent::{Agent, AgentError};
use toolkit::model::{Gemini, GeminiBuilder, ModelError};
use toolkit::prelude::*;

const PATH: &str = "/v1beta/models/gemini-3-test:generateContent";

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
