//! `OpenAiCompatible` against a real HTTP server on 127.0.0.1 that speaks the Chat
//! Completions API: the exact JSON the client sends, what it makes of each reply, and
//! its retries and errors.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use support::provider::{Canned, Provider, ok, status};
use toolkit::agent::{Agent, AgentError};
use toolkit::model::{FinishReason, Message, ModelError, ModelRequest, OpenAiCompatible, ToolChoice};
use toolkit::prelude::*;

// ---- the server -----------------------------------------------------------------------

/// The Chat Completions stand-in (`support::provider`), and a client pointed at it.
struct Server(Provider);

impl Server {
    async fn start(replies: impl IntoIterator<Item = Canned>) -> Server {
        Server(Provider::start("/v1/chat/completions", replies).await)
    }

    fn received(&self) -> Vec<support::provider::Received> {
        self.0.received()
    }

    fn client(&self) -> toolkit::model::OpenAiCompatibleBuilder {
        OpenAiCompatible::builder()
            .base_url(format!("{}/v1", self.0.base_url))
            .api_key("sk-test-secret-0123456789")
            .model("test-model")
            .backoff(Duration::from_millis(5), Duration::from_millis(20))
    }
}

fn reply_calls(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
        .collect();
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls},
                     "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}
    })
}

fn reply_text(text: &str) -> Value {
    json!({
        "id": "chatcmpl-2", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 80, "completion_tokens": 12, "total_tokens": 92}
    })
}

// ---- the tools ------------------------------------------------------------------------

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

static MULTIPLY_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Multiply two integers (only the malformed-arguments test uses it, so it counts runs).
#[tool(read_only)]
fn multiply(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> i64 {
    MULTIPLY_RUNS.fetch_add(1, Ordering::SeqCst);
    a * b
}

/// Tell the time in a city.
#[tool(read_only)]
fn city_time(
    /// The city.
    city: String,
) -> String {
    format!("12:00 in {city}")
}

fn agent(model: OpenAiCompatible) -> Agent {
    Agent::builder(model, toolbox![add, city_time]).system_prompt("Be brief.").build().unwrap()
}

// ---- the conversation -----------------------------------------------------------------

#[tokio::test]
async fn a_multi_round_conversation_with_parallel_calls_sends_exactly_this_json() {
    let server = Server::start([
        ok(reply_calls(&[("call_a", "add", r#"{"a":2,"b":3}"#), ("call_b", "city_time", r#"{"city":"Paris"}"#)])),
        ok(reply_calls(&[("call_c", "add", r#"{"a":5,"b":10}"#)])),
        ok(reply_text("5, then 15; it is noon in Paris.")),
    ])
    .await;
    let tools = toolbox![add, city_time];
    let expected_tools = tools.export(Target::OpenAiChat);
    let run = agent(server.client().build().unwrap()).run("Add 2 and 3, then 10; and the time in Paris?").await;
    let run = run.expect("the run ends with an answer");
    assert_eq!(run.text, "5, then 15; it is noon in Paris.");
    assert_eq!(run.usage.total_tokens, 60 + 60 + 92);
    assert_eq!(run.records.len(), 3);

    let received = server.received();
    assert_eq!(received.len(), 3);
    for r in &received {
        assert_eq!(r.headers["authorization"], "Bearer sk-test-secret-0123456789");
    }
    let system = json!({"role": "system", "content": "Be brief."});
    let user = json!({"role": "user", "content": "Add 2 and 3, then 10; and the time in Paris?"});
    assert_eq!(
        received[0].body,
        json!({
            "model": "test-model",
            "messages": [system, user],
            "tools": expected_tools,
            "tool_choice": "auto",
            "parallel_tool_calls": true
        })
    );
    let first_turn = json!([
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"}},
            {"id": "call_b", "type": "function", "function": {"name": "city_time", "arguments": "{\"city\":\"Paris\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_a", "content": "5"},
        {"role": "tool", "tool_call_id": "call_b", "content": "12:00 in Paris"}
    ]);
    let mut messages = vec![system.clone(), user.clone()];
    messages.extend(first_turn.as_array().unwrap().iter().cloned());
    assert_eq!(received[1].body["messages"], Value::Array(messages.clone()));
    messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_c", "type": "function", "function": {"name": "add", "arguments": "{\"a\":5,\"b\":10}"}}]}));
    messages.push(json!({"role": "tool", "tool_call_id": "call_c", "content": "15"}));
    assert_eq!(received[2].body["messages"], Value::Array(messages.clone()));

    // The transcript is the wire format: the next request would send exactly it.
    messages.push(json!({"role": "assistant", "content": "5, then 15; it is noon in Paris."}));
    assert_eq!(serde_json::to_value(&run.messages).unwrap(), Value::Array(messages));
}

#[tokio::test]
async fn strict_mode_a_named_tool_and_no_parallel_calls_are_sent_as_asked() {
    let server = Server::start([ok(reply_text("ok"))]).await;
    let client = server.client().build().unwrap();
    let tools = toolbox![add, city_time];
    let specs = tools.specs();
    let messages = [Message::user("hi")];
    let choice = ToolChoice::Tool("add".into());
    let request = ModelRequest::new(&messages, &specs).tool_choice(&choice).parallel_tool_calls(false).strict(true);
    use toolkit::model::Model;
    client.complete(request).await.unwrap();
    let body = &server.received()[0].body;
    assert_eq!(body["tool_choice"], json!({"type": "function", "function": {"name": "add"}}));
    assert_eq!(body["parallel_tool_calls"], json!(false));
    assert_eq!(body["tools"], tools.export(Target::OpenAiChatStrict));
    assert_eq!(body["tools"][0]["function"]["strict"], json!(true));
}

#[tokio::test]
async fn a_reply_with_malformed_arguments_gets_an_error_message_and_the_tool_never_runs() {
    let server = Server::start([
        ok(reply_calls(&[("call_bad", "multiply", r#"{"a": 2, "b": "#)])),
        ok(reply_text("Sorry, I sent broken arguments.")),
    ])
    .await;
    let agent = Agent::builder(server.client().build().unwrap(), toolbox![multiply]).build().unwrap();
    let run = agent.run("2 × ?").await.unwrap();
    assert_eq!(MULTIPLY_RUNS.load(Ordering::SeqCst), 0, "malformed arguments must never be dispatched");
    let received = server.received();
    let tool_message = &received[1].body["messages"][2];
    assert_eq!(tool_message["tool_call_id"], "call_bad");
    let content = tool_message["content"].as_str().unwrap();
    assert!(content.starts_with("the arguments are not valid JSON"), "{content}");
    assert!(content.contains("expected {a: integer, b: integer}"), "{content}");
    assert_eq!(run.records[0].outcome, toolkit::Outcome::Failed(ErrorKind::MalformedJson));
}

// ---- retries --------------------------------------------------------------------------

#[tokio::test]
async fn a_429_is_retried_after_the_wait_the_server_asks_for() {
    let mut limited = status(429, json!({"error": {"message": "Rate limit reached", "type": "requests"}}));
    limited.headers.push(("retry-after-ms", "30".into()));
    let server = Server::start([limited, ok(reply_text("hello"))]).await;
    let run = agent(server.client().build().unwrap()).run("hi").await.unwrap();
    assert_eq!(run.text, "hello");
    let received = server.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body, received[1].body, "the retry sends the same request");
}

#[tokio::test]
async fn retry_after_in_seconds_is_honoured_and_a_wait_over_a_minute_is_not_waited_for() {
    let mut busy = status(503, json!({"error": {"message": "busy"}}));
    busy.headers.push(("retry-after", "0".into()));
    let mut limited = status(429, json!({"error": {"message": "come back in two minutes"}}));
    limited.headers.push(("retry-after", "120".into()));
    let server = Server::start([busy, ok(reply_text("after a pause")), limited]).await;
    let agent = agent(server.client().build().unwrap());
    assert_eq!(agent.run("hi").await.unwrap().text, "after a pause");
    assert_eq!(server.received().len(), 2);
    // Two minutes is longer than the client waits: the error comes back at once,
    // after one attempt, not after the three retries it would otherwise make.
    let err = agent.run("hi").await.unwrap_err();
    let AgentError::Model { source: ModelError::RateLimited { attempts, message, .. }, .. } = &err else {
        panic!("expected RateLimited, got {err:?}")
    };
    assert_eq!((*attempts, message.as_str()), (1, "come back in two minutes"));
    assert_eq!(server.received().len(), 3);
}

#[tokio::test]
async fn a_500_is_retried_with_backoff_then_succeeds() {
    let server =
        Server::start([status(500, json!({"error": {"message": "internal error"}})), ok(reply_text("recovered"))])
            .await;
    let run = agent(server.client().build().unwrap()).run("hi").await.unwrap();
    assert_eq!(run.text, "recovered");
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn persistent_5xx_gives_up_after_the_retries_with_the_count() {
    let failing = status(503, json!({"error": {"message": "overloaded"}}));
    let server = Server::start(vec![failing; 3]).await;
    let err = agent(server.client().max_retries(2).build().unwrap()).run("hi").await.unwrap_err();
    assert_eq!(server.received().len(), 3);
    let AgentError::Model { source: ModelError::Server { status, attempts, .. }, run, .. } = &err else {
        panic!("expected a server error, got {err:?}")
    };
    assert_eq!((*status, *attempts), (503, 3));
    assert_eq!(run.messages.len(), 2, "the run so far (system, user) is kept");
    assert!(err.to_string().contains("overloaded"), "{err}");
}

// ---- errors ---------------------------------------------------------------------------

#[tokio::test]
async fn a_401_names_the_variable_and_never_shows_the_key() {
    // Providers echo the key back; the client scrubs it.
    let server = Server::start([status(
        401,
        json!({"error": {"message": "Incorrect API key provided: sk-test-secret-0123456789", "code": "invalid_api_key"}}),
    )])
    .await;
    let client = server.client().build().unwrap();
    assert!(!format!("{client:?}").contains("sk-test-secret"), "Debug hides the key");
    let err = agent(client).run("hi").await.unwrap_err();
    assert_eq!(server.received().len(), 1, "a rejected key is not retried");
    let AgentError::Model { source: source @ ModelError::Unauthorized { status: 401, .. }, .. } = &err else {
        panic!("expected Unauthorized, got {err:?}")
    };
    let shown = format!("{source} {source:?} {err} {err:?}");
    assert!(!shown.contains("sk-test-secret"), "the key leaked: {shown}");
    assert!(source.to_string().contains("check OPENAI_API_KEY"), "{source}");
    assert!(source.to_string().contains("Incorrect API key provided: [redacted]"), "{source}");
}

#[tokio::test]
async fn a_404_says_the_model_was_not_found() {
    let server = Server::start([status(
        404,
        json!({"error": {"message": "The model `test-model` does not exist", "code": "model_not_found"}}),
    )])
    .await;
    let err = agent(server.client().build().unwrap()).run("hi").await.unwrap_err();
    let AgentError::Model { source: source @ ModelError::ModelNotFound { .. }, .. } = &err else {
        panic!("expected ModelNotFound, got {err:?}")
    };
    let text = source.to_string();
    assert!(text.contains("model `test-model` was not found") && text.contains("TOOLKIT_MODEL"), "{text}");
}

#[tokio::test]
async fn a_slow_server_is_a_timeout_error() {
    let mut slow = ok(reply_text("too late"));
    slow.delay = Duration::from_secs(5);
    let server = Server::start([slow]).await;
    let client = server.client().timeout(Duration::from_millis(200)).build().unwrap();
    let err = agent(client).run("hi").await.unwrap_err();
    let AgentError::Model { source: ModelError::Timeout { url, timeout }, .. } = &err else {
        panic!("expected Timeout, got {err:?}")
    };
    assert_eq!(*timeout, Duration::from_millis(200));
    assert!(url.ends_with("/v1/chat/completions"), "{url}");
    assert_eq!(server.received().len(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn an_unreachable_base_url_fails_with_the_url() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let client =
        OpenAiCompatible::builder().base_url(format!("http://127.0.0.1:{port}/v1")).api_key("k").build().unwrap();
    let err = agent(client).run("hi").await.unwrap_err();
    let AgentError::Model { source: source @ ModelError::Unreachable { .. }, .. } = &err else {
        panic!("expected Unreachable, got {err:?}")
    };
    let text = source.to_string();
    assert!(text.contains(&format!("cannot reach http://127.0.0.1:{port}/v1/chat/completions")), "{text}");
    assert!(text.contains("OPENAI_BASE_URL"), "{text}");
}

#[test]
fn a_missing_key_names_the_variable_to_set() {
    let err = OpenAiCompatible::builder().key_variable("TOOLKIT_TEST_KEY_THAT_IS_NEVER_SET").build().unwrap_err();
    assert!(matches!(err, ModelError::MissingKey { variable: "TOOLKIT_TEST_KEY_THAT_IS_NEVER_SET" }));
    assert_eq!(
        err.to_string(),
        "no API key: set the TOOLKIT_TEST_KEY_THAT_IS_NEVER_SET environment variable (or run offline with a ScriptedModel)"
    );
}

/// DeepSeek documents `insufficient_system_resource`; providers add reasons. The reply is
/// kept, and the reason reaches the caller by its name.
#[tokio::test]
async fn an_unknown_finish_reason_keeps_the_reply_and_names_the_reason() {
    let odd = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "partial answer"},
                                  "finish_reason": "insufficient_system_resource"}]});
    let server = Server::start([ok(odd)]).await;
    let run = agent(server.client().build().unwrap()).run("hi").await.unwrap();
    assert_eq!(run.text, "partial answer");
    assert_eq!(run.finish_reason, Some(FinishReason::Other("insufficient_system_resource".into())));
    assert_eq!(run.finish_reason.unwrap().as_str(), "insufficient_system_resource");
}

/// A refusal (`content: null`, `refusal: "..."`) reaches the caller instead of an empty
/// answer, and stays in the transcript.
#[tokio::test]
async fn a_refusal_reaches_the_caller() {
    let refusal = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                                      "refusal": "I'm sorry, I can't help with that."},
                                      "finish_reason": "stop"}]});
    let server = Server::start([ok(refusal)]).await;
    let run = agent(server.client().build().unwrap()).run("hi").await.unwrap();
    assert_eq!(run.text, "");
    assert_eq!(run.refusal.as_deref(), Some("I'm sorry, I can't help with that."));
    let Some(Message::Assistant(last)) = run.messages.last() else { panic!("the refusal is in the transcript") };
    assert_eq!(last.refusal.as_deref(), Some("I'm sorry, I can't help with that."));
}

#[tokio::test]
async fn no_choices_or_a_malformed_reply_is_a_typed_error_not_a_panic() {
    let server = Server::start([ok(json!({"choices": []})), ok(json!("not an object"))]).await;
    let agent = agent(server.client().build().unwrap());
    for expected in ["the reply has no choices", "malformed response"] {
        let err = agent.run("hi").await.unwrap_err();
        let AgentError::Model { source: source @ ModelError::MalformedResponse { .. }, .. } = &err else {
            panic!("expected MalformedResponse, got {err:?}")
        };
        assert!(source.to_string().contains(expected), "{source}");
    }
}

fn text_reply(text: &str, finish_reason: &str) -> Value {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}]})
}

/// An answer cut by the token limit: returned as it is by default, an error on request,
/// or continued (bounded) and joined.
#[tokio::test]
async fn an_answer_cut_by_the_token_limit_is_returned_failed_or_continued() {
    use toolkit::agent::OnLength;

    let server = Server::start([ok(text_reply("The first half", "length"))]).await;
    let run = agent(server.client().build().unwrap()).run("hi").await.unwrap();
    assert_eq!(run.text, "The first half");
    assert_eq!(run.finish_reason, Some(FinishReason::Length));

    let server = Server::start([ok(text_reply("The first half", "length"))]).await;
    let failing =
        Agent::builder(server.client().build().unwrap(), Toolbox::new()).on_length(OnLength::Fail).build().unwrap();
    let err = failing.run("hi").await.unwrap_err();
    assert!(matches!(err, AgentError::Cut { .. }), "{err:?}");
    assert_eq!(err.run().text, "The first half");

    let server = Server::start([
        ok(text_reply("The first half", "length")),
        ok(text_reply(", the second", "length")),
        ok(text_reply(" and the end.", "stop")),
    ])
    .await;
    let continuing = Agent::builder(server.client().build().unwrap(), Toolbox::new())
        .on_length(OnLength::Continue(3))
        .build()
        .unwrap();
    let run = continuing.run("hi").await.unwrap();
    assert_eq!(run.text, "The first half, the second and the end.");
    assert_eq!(run.finish_reason, Some(FinishReason::Stop));
    assert_eq!(run.iterations, 3);
    assert_eq!(server.received().len(), 3);

    // Bounded: after its continuations, a still-cut answer is returned as it is.
    let server = Server::start([ok(text_reply("a", "length")), ok(text_reply("b", "length"))]).await;
    let once = Agent::builder(server.client().build().unwrap(), Toolbox::new())
        .on_length(OnLength::Continue(1))
        .build()
        .unwrap();
    let run = once.run("hi").await.unwrap();
    assert_eq!(run.text, "ab");
    assert_eq!(run.finish_reason, Some(FinishReason::Length));
}

/// Two calls with the same id get ids of their own: each result answers one call, and
/// the records stay in call order.
#[tokio::test]
async fn repeated_tool_call_ids_get_ids_of_their_own() {
    let calls = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_x", "type": "function", "function": {"name": "add", "arguments": "{\"a\":1,\"b\":2}"}},
        {"id": "call_x", "type": "function", "function": {"name": "add", "arguments": "{\"a\":3,\"b\":4}"}}
    ]}, "finish_reason": "tool_calls"}]});
    let server = Server::start([ok(calls), ok(text_reply("done", "stop"))]).await;
    let run = agent(server.client().build().unwrap()).run("hi").await.unwrap();
    let ids: Vec<&str> = run.records.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1], "{ids:?}");
    assert_eq!(ids[0], "call_x");
    let contents: Vec<&str> = run.records.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(contents, ["3", "7"], "records in call order");
    // The transcript pairs each result with its own call.
    let tool_ids: Vec<&str> = run
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { tool_call_id, .. } => Some(tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(tool_ids, ids);
}

/// Token counts a server reports add up saturating: counts that overflow `u64` (a
/// broken or hostile server) give the largest count, not a panic (debug builds) or a
/// total wrapped to almost nothing (release builds).
#[tokio::test]
async fn token_counts_that_overflow_saturate() {
    let mut first = reply_calls(&[("call_a", "add", r#"{"a":2,"b":3}"#)]);
    first["usage"] = json!({"prompt_tokens": u64::MAX, "completion_tokens": 5});
    let mut second = reply_text("5");
    second["usage"] = json!({"prompt_tokens": 1, "completion_tokens": u64::MAX, "total_tokens": u64::MAX});
    let server = Server::start([ok(first), ok(second)]).await;
    let run = agent(server.client().build().unwrap()).run("Add 2 and 3").await.unwrap();
    assert_eq!(run.text, "5");
    assert_eq!(run.usage.prompt_tokens, u64::MAX);
    assert_eq!(run.usage.completion_tokens, u64::MAX);
    assert_eq!(run.usage.total_tokens, u64::MAX);
}

/// A reply body larger than 64 MiB is refused without being read into memory, and only
/// the start of a large error body is read for its message (before, both were read
/// whole: a misconfigured base URL or a hostile server could fill the memory).
#[tokio::test]
async fn oversized_bodies_are_refused_or_cut_not_read_whole() {
    let huge = Canned { status: 200, headers: vec![], body: "x".repeat(65 << 20), delay: Duration::ZERO };
    let server = Server::start([huge]).await;
    let error = agent(server.client().build().unwrap()).run("hi").await.unwrap_err();
    assert!(error.to_string().contains("the reply is larger than 64 MiB"), "{error}");

    let failing = Canned { status: 400, headers: vec![], body: "y".repeat(8 << 20), delay: Duration::ZERO };
    let server = Server::start([failing]).await;
    let error = agent(server.client().build().unwrap()).run("hi").await.unwrap_err().to_string();
    assert!(error.len() < 2_000, "{} bytes", error.len());
}

/// A server that accepts the connection and closes it without a response was reached:
/// the request is retried (a model call is safe to send again), and when every attempt
/// is dropped the error says what happened, not "cannot reach … check OPENAI_BASE_URL"
/// (before, that was the error, after one attempt).
#[tokio::test]
async fn a_connection_closed_before_the_response_is_retried_and_named_for_what_happened() {
    let (base, requests) = support::provider::hanging_up(1, ok(reply_text("back again"))).await;
    let client = || {
        OpenAiCompatible::builder()
            .base_url(format!("{base}/v1"))
            .api_key("k")
            .backoff(Duration::from_millis(5), Duration::from_millis(20))
    };
    let run = agent(client().build().unwrap()).run("hi").await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.text, "back again");
    assert_eq!(requests.load(Ordering::SeqCst), 2, "the dropped request was sent again");

    let (base, requests) = support::provider::hanging_up(usize::MAX, ok(reply_text("never"))).await;
    let client = OpenAiCompatible::builder()
        .base_url(format!("{base}/v1"))
        .api_key("k")
        .max_retries(2)
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap();
    let err = agent(client).run("hi").await.unwrap_err();
    let AgentError::Model { source: source @ ModelError::ConnectionClosed { attempts, .. }, .. } = &err else {
        panic!("expected ConnectionClosed, got {err:?}")
    };
    assert_eq!(*attempts, 3);
    assert_eq!(requests.load(Ordering::SeqCst), 3);
    let text = source.to_string();
    assert!(
        text.contains(&format!("the connection to {base}/v1/chat/completions closed before a complete response")),
        "{text}"
    );
    assert!(!text.contains("cannot reach") && !text.contains("OPENAI_BASE_URL"), "{text}");
}

/// A gateway's HTML error page: the error keeps its text, without markup, cut to a
/// readable head; a 501 (Not Implemented) is final, not retried. Before, the page was
/// in the error whole and the 501 was sent four times.
#[tokio::test]
async fn an_html_error_page_is_cut_to_its_text_and_a_501_is_not_retried() {
    let page = format!(
        "<!DOCTYPE html>\n<html><head><title>501 Not Implemented</title>\n<style>body {{ font: 12px sans-serif; }}</style>\
         <script>var tracking = \"x\";</script></head>\n<body>\n  <h1>Not Implemented</h1>\n  <p>The method &amp; path \
         are not supported by this gateway.</p>\n<!-- build 1234 -->\n{}</body></html>",
        "<p>padding paragraph with more words</p>\n".repeat(200)
    );
    let html = |status| Canned { status, headers: vec![], body: page.clone(), delay: Duration::ZERO };
    let server = Server::start([html(501), html(501), html(501), html(501)]).await;
    let err = agent(server.client().build().unwrap()).run("hi").await.unwrap_err();
    assert_eq!(server.received().len(), 1, "a 501 is not retried");
    let AgentError::Model { source: source @ ModelError::Server { status: 501, attempts: 1, message, .. }, .. } = &err
    else {
        panic!("expected a 501 Server error, got {err:?}")
    };
    assert!(
        message.starts_with("501 Not Implemented Not Implemented The method & path are not supported"),
        "{message}"
    );
    assert!(!message.contains('<') && !message.contains("tracking") && !message.contains("font:"), "{message}");
    assert!(message.chars().count() <= 501 && message.ends_with('…'), "{} chars: {message}", message.len());
    assert!(source.to_string().len() < 700, "{source}");
}

/// 408 (request timeout) and 409 (conflict) are retried, as OpenAI's and Anthropic's
/// SDKs do; other 4xx are final.
#[tokio::test]
async fn a_408_and_a_409_are_retried_and_a_422_is_not() {
    let server = Server::start([
        status(408, json!({"error": {"message": "request timeout"}})),
        status(409, json!({"error": {"message": "conflict"}})),
        ok(reply_text("third time")),
        status(422, json!({"error": {"message": "unprocessable"}})),
        ok(reply_text("never")),
    ])
    .await;
    let agent = agent(server.client().build().unwrap());
    assert_eq!(agent.run("hi").await.unwrap().text, "third time");
    assert_eq!(server.received().len(), 3);
    let err = agent.run("hi").await.unwrap_err();
    assert!(matches!(err, AgentError::Model { source: ModelError::Rejected { status: 422, .. }, .. }), "{err:?}");
    assert_eq!(server.received().len(), 4);
}

/// Chat Completions has no error flag on a tool message: a failed call is sent as its
/// text alone (a server that checks fields would refuse `is_error`), while the
/// transcript keeps the flag for the providers that take one.
#[tokio::test]
async fn a_failed_call_goes_without_is_error_and_the_transcript_keeps_the_flag() {
    let server = Server::start([
        ok(reply_calls(&[("call_bad", "add", r#"{"a": 1}"#), ("call_ok", "add", r#"{"a": 1, "b": 2}"#)])),
        ok(reply_text("done")),
    ])
    .await;
    let run = agent(server.client().build().unwrap()).run("add").await.unwrap();
    let sent = &server.received()[1].body["messages"];
    assert_eq!(sent[3]["tool_call_id"], "call_bad");
    assert!(sent[3]["content"].as_str().unwrap().contains("missing required field `b`"), "{}", sent[3]);
    for message in sent.as_array().unwrap() {
        assert!(message.get("is_error").is_none(), "{message}");
    }
    let transcript = serde_json::to_value(&run.messages).unwrap();
    assert_eq!(transcript[3]["is_error"], json!(true));
    assert!(transcript[4].get("is_error").is_none(), "written only when true: {}", transcript[4]);
    let back: Vec<Message> = serde_json::from_value(transcript).unwrap();
    assert_eq!(back, run.messages, "the transcript reads back as it was");
}

/// Gemini's OpenAI-compatible API puts Gemini 3's thought signatures in
/// `extra_content.google.thought_signature` (on a tool call, and on the message) and
/// refuses the next request without them: they come back as they came.
#[tokio::test]
async fn thought_signatures_of_geminis_openai_compatible_api_go_back_as_they_came() {
    let mut calls = reply_calls(&[("call_a", "add", r#"{"a":2,"b":3}"#), ("call_b", "add", r#"{"a":1,"b":1}"#)]);
    calls["choices"][0]["message"]["tool_calls"][0]["extra_content"] =
        json!({"google": {"thought_signature": "sig-a"}});
    calls["choices"][0]["message"]["extra_content"] = json!({"google": {"thought_signature": "sig-text"}});
    let server = Server::start([ok(calls), ok(reply_text("5 and 2"))]).await;
    let run = agent(server.client().build().unwrap()).run("add").await.unwrap();
    assert_eq!(run.text, "5 and 2");
    let assistant = &server.received()[1].body["messages"][2];
    assert_eq!(assistant["extra_content"], json!({"google": {"thought_signature": "sig-text"}}), "{assistant}");
    assert_eq!(assistant["tool_calls"][0]["extra_content"], json!({"google": {"thought_signature": "sig-a"}}));
    assert!(assistant["tool_calls"][1].get("extra_content").is_none(), "{assistant}");
}
