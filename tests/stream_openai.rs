//! `OpenAiCompatible` streaming against a local server that sends Chat Completions
//! server-sent events: text in pieces, tool calls split across many chunks and
//! interleaved, a rate-limit retry before the stream, and the bad streams (cut, not
//! JSON) and the server's error mid-stream as errors that say what went wrong; unknown
//! event names are skipped.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::provider::{Canned, Provider, status};
use toolkit::agent::{Agent, AgentError, RunEvent};
use toolkit::model::{ModelError, OpenAiCompatible, StreamExt};
use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn sse(events: &[Value], done: bool) -> Canned {
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    Canned { status: 200, headers: vec![("content-type", "text/event-stream".into())], body, delay: Duration::ZERO }
}

fn raw(body: &str) -> Canned {
    Canned {
        status: 200,
        headers: vec![("content-type", "text/event-stream".into())],
        body: body.into(),
        delay: Duration::ZERO,
    }
}

fn text(piece: &str) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]})
}

fn finish(reason: &str) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

fn usage() -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}})
}

fn call_piece(index: usize, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
    let mut function = json!({"arguments": arguments});
    if let Some(name) = name {
        function["name"] = json!(name);
    }
    let mut call = json!({"index": index, "type": "function", "function": function});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": null}]})
}

async fn stream_run(replies: Vec<Canned>) -> (Vec<RunEvent>, Provider) {
    let server = Provider::start("/v1/chat/completions", replies).await;
    let model = OpenAiCompatible::builder()
        .base_url(format!("{}/v1", server.base_url))
        .api_key("sk-test")
        .model("m")
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap();
    let agent = Agent::builder(model, toolbox![add]).build().unwrap();
    let events = agent.run_stream("Go").collect().await;
    (events, server)
}

fn deltas(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| if let RunEvent::TextDelta { text, .. } = e { Some(text.clone()) } else { None })
        .collect()
}

fn outcome(events: &[RunEvent]) -> &Result<toolkit::agent::AgentRun, AgentError> {
    match events.last() {
        Some(RunEvent::Finished(outcome)) => outcome,
        other => panic!("the last event is not the outcome: {other:?}"),
    }
}

fn stream_error(events: &[RunEvent]) -> String {
    match outcome(events) {
        Err(AgentError::Model { source: ModelError::MalformedResponse { message }, .. }) => message.clone(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn text_arrives_in_pieces_and_the_request_asks_for_a_stream_with_usage() {
    let (events, server) =
        stream_run(vec![sse(&[text("Hel"), text("lo"), text("."), finish("stop"), usage()], true)]).await;
    assert_eq!(deltas(&events), ["Hel", "lo", "."]);
    let run = outcome(&events).as_ref().unwrap();
    assert_eq!(run.text, "Hello.");
    assert_eq!(run.usage.total_tokens, 10);
    let body = &server.received()[0].body;
    assert_eq!(body["stream"], json!(true));
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn tool_calls_split_across_chunks_and_interleaved_are_assembled() {
    let first = sse(
        &[
            call_piece(0, Some("call_a"), Some("add"), ""),
            call_piece(1, Some("call_b"), Some("add"), "{\"a\""),
            call_piece(0, None, None, "{\"a\": 2,"),
            call_piece(1, None, None, ": 10, \"b\": 20}"),
            call_piece(0, None, None, " \"b\": 3}"),
            finish("tool_calls"),
            usage(),
        ],
        true,
    );
    let second = sse(&[text("5 and 30."), finish("stop")], true);
    let (events, _server) = stream_run(vec![first, second]).await;
    let run = outcome(&events).as_ref().unwrap();
    assert_eq!(run.text, "5 and 30.");
    let results: Vec<&str> = run.records.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(results, ["5", "30"]);
    let calls: Vec<String> = events
        .iter()
        .filter_map(|e| {
            if let RunEvent::ToolCall { call } = e { Some(format!("{} {}", call.id, call.arguments)) } else { None }
        })
        .collect();
    assert_eq!(calls, [r#"call_a {"a": 2, "b": 3}"#, r#"call_b {"a": 10, "b": 20}"#]);
}

#[tokio::test]
async fn a_rate_limit_before_the_stream_is_retried() {
    let mut limited = status(429, json!({"error": {"message": "slow down"}}));
    limited.headers.push(("retry-after", "0".into()));
    let (events, server) = stream_run(vec![limited, sse(&[text("ok"), finish("stop")], true)]).await;
    assert_eq!(outcome(&events).as_ref().unwrap().text, "ok");
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn a_cut_stream_is_an_error_that_says_so() {
    // Arguments that never close: the stream stops mid-call, with no finish and no [DONE].
    let (events, _server) =
        stream_run(vec![sse(&[call_piece(0, Some("call_a"), Some("add"), "{\"a\": 2, \"b")], false)]).await;
    let message = stream_error(&events);
    assert!(message.contains("the stream ended after 1 events, before the reply was finished"), "{message}");
}

#[tokio::test]
async fn an_event_that_is_not_json_is_an_error_naming_it() {
    let (events, _server) = stream_run(vec![raw(&format!("data: {}\n\ndata: {{not json\n\n", text("a")))]).await;
    let message = stream_error(&events);
    assert!(message.starts_with("event 2 ({not json): not a Chat Completions chunk"), "{message}");
}

#[tokio::test]
async fn an_error_mid_stream_is_reported_with_the_servers_words() {
    // No type given: the error is still the server's, not a malformed reply.
    let (events, _server) =
        stream_run(vec![sse(&[text("par"), json!({"error": {"message": "the model is overloaded"}})], false)]).await;
    match outcome(&events) {
        Err(AgentError::Model {
            source: error @ ModelError::StreamError { kind, message, after_output: true, .. },
            ..
        }) => {
            assert_eq!((kind.as_str(), message.as_str()), ("error", "the model is overloaded"));
            assert!(error.to_string().contains("reported an error mid-stream (error)"), "{error}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn unknown_event_names_are_skipped() {
    let body =
        format!("event: ping\ndata: {{}}\n\ndata: {}\n\ndata: {}\n\ndata: [DONE]\n\n", text("fine"), finish("stop"));
    let (events, _server) = stream_run(vec![raw(&body)]).await;
    assert_eq!(outcome(&events).as_ref().unwrap().text, "fine");
}

/// Servers that give every call index 0 (Ollama), or no index at all, start each call
/// with its own id: the calls stay apart (before, the second call's id and name
/// overwrote the first's and their arguments were joined: one call ran, with arguments
/// that were not JSON).
#[tokio::test]
async fn calls_that_share_an_index_are_told_apart_by_their_ids() {
    let mut no_index = call_piece(0, Some("call_c"), Some("add"), r#"{"a": 100, "b": 1}"#);
    no_index["choices"][0]["delta"]["tool_calls"][0].as_object_mut().unwrap().remove("index");
    let first = sse(
        &[
            call_piece(0, Some("call_a"), Some("add"), r#"{"a": 2,"#),
            call_piece(0, None, None, r#" "b": 3}"#),
            call_piece(0, Some("call_b"), Some("add"), r#"{"a": 10, "b": 20}"#),
            no_index,
            finish("tool_calls"),
        ],
        true,
    );
    let second = sse(&[text("5, 30 and 101."), finish("stop")], true);
    let (events, _server) = stream_run(vec![first, second]).await;
    let run = outcome(&events).as_ref().unwrap();
    let results: Vec<(&str, &str)> = run.records.iter().map(|r| (r.call_id.as_str(), r.content.as_str())).collect();
    assert_eq!(results, [("call_a", "5"), ("call_b", "30"), ("call_c", "101")]);
}

/// A stream whose body starts with a UTF-8 byte-order mark reads as without one (the
/// SSE parser underneath sliced the mark's first byte off and panicked: the run, and
/// under `#[tokio::main]` the process, died).
#[tokio::test]
async fn a_body_that_starts_with_a_byte_order_mark_is_read() {
    let body = format!("\u{feff}data: {}\n\ndata: {}\n\ndata: [DONE]\n\n", text("fine"), finish("stop"));
    let (events, _server) = stream_run(vec![raw(&body)]).await;
    assert_eq!(outcome(&events).as_ref().unwrap().text, "fine");
}

/// A refusal streamed in pieces (`delta.refusal`) reaches the run's `refusal`, as it does
/// without streaming (before, a streamed run ended `Ok` with empty text and no refusal).
#[tokio::test]
async fn a_streamed_refusal_reaches_the_run() {
    let piece = |text: &str| json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"refusal": text}, "finish_reason": null}]});
    let (events, _server) =
        stream_run(vec![sse(&[piece("I can't "), piece("help with that."), finish("stop")], true)]).await;
    let run = outcome(&events).as_ref().unwrap();
    assert_eq!(run.refusal.as_deref(), Some("I can't help with that."));
    assert_eq!(run.text, "");
}

/// The same through a model's own stream of a whole reply (the scripted model here;
/// any model that does not stream replays its reply the same way).
#[tokio::test]
async fn a_refusal_of_a_model_that_does_not_stream_reaches_the_streamed_run() {
    use toolkit::model::{AssistantMessage, ScriptedModel, Turn};
    let model = ScriptedModel::new([Turn::message(AssistantMessage::refused("Not today."))]);
    let agent = Agent::builder(model, toolbox![add]).build().unwrap();
    let events: Vec<RunEvent> = agent.run_stream("Go").collect().await;
    assert_eq!(outcome(&events).as_ref().unwrap().refusal.as_deref(), Some("Not today."));
}

/// A server that streams `events`, each after `pause`, on `/v1/chat/completions`.
async fn paced(events: Vec<String>, pause: Duration) -> String {
    use axum::body::Body;
    use futures_util::StreamExt as _;
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move || {
            let events = events.clone();
            async move {
                let body = futures_util::stream::iter(events).then(move |event| async move {
                    tokio::time::sleep(pause).await;
                    Ok::<_, std::convert::Infallible>(event)
                });
                ([("content-type", "text/event-stream")], Body::from_stream(body))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/v1")
}

fn paced_agent(base_url: String) -> Agent {
    let model = OpenAiCompatible::builder()
        .base_url(base_url)
        .api_key("sk-test")
        .model("m")
        .timeout(Duration::from_millis(400))
        .max_retries(0)
        .build()
        .unwrap();
    Agent::builder(model, toolbox![add]).build().unwrap()
}

/// A stream longer than the timeout, its events coming steadily, is read to its end:
/// for a stream the timeout is the wait for the headers, then for each event (before,
/// it was the whole reply's, so a long answer was cut and reported as malformed).
#[tokio::test]
async fn a_stream_longer_than_the_timeout_is_read_to_its_end_and_a_stalled_one_times_out() {
    let mut events: Vec<String> = (0..8).map(|i| format!("data: {}\n\n", text(&format!("w{i} ")))).collect();
    events.push(format!("data: {}\n\ndata: [DONE]\n\n", finish("stop")));
    // 9 events 100 ms apart: 900 ms in all, over the 400 ms timeout.
    let steady = paced_agent(paced(events.clone(), Duration::from_millis(100)).await);
    let events_of = |agent: Agent| async move { agent.run_stream("Go").collect::<Vec<RunEvent>>().await };
    let run = events_of(steady).await;
    assert_eq!(outcome(&run).as_ref().unwrap().text, "w0 w1 w2 w3 w4 w5 w6 w7 ");
    // Headers, then nothing for a minute: a timeout error, after the timeout.
    let silent = paced_agent(paced(vec!["data: {}\n\n".into()], Duration::from_secs(60)).await);
    assert!(
        matches!(outcome(&events_of(silent).await), Err(AgentError::Model { source: ModelError::Timeout { .. }, .. })),
        "a silent stream times out"
    );
    // One wait of 1 s between two events: a timeout error naming it.
    let stalled = paced_agent(paced(events, Duration::from_millis(1_000)).await);
    match outcome(&events_of(stalled).await) {
        Err(AgentError::Model { source: ModelError::Timeout { timeout, .. }, .. }) => {
            assert_eq!(*timeout, Duration::from_millis(400));
        }
        other => panic!("{other:?}"),
    }
}

/// An event past 4 MiB is an error saying so, read in linear time (before, the parser
/// buffered an event that never ended for as long as bytes kept coming, and read it
/// again with each piece: this 5 MiB event took minutes in a debug build).
#[tokio::test]
async fn an_event_past_4_mib_is_an_error_that_says_so() {
    let (events, _server) = stream_run(vec![raw(&format!("data: {}", "x".repeat(5 << 20)))]).await;
    let message = stream_error(&events);
    assert!(message.contains("an event of the stream is larger than 4 MiB"), "{message}");
}

/// Gemini's OpenAI-compatible API streams thought signatures in `extra_content` (on a
/// call's first piece, and on a text delta): the reply keeps them, and the next request
/// sends them back.
#[tokio::test]
async fn streamed_thought_signatures_are_kept_and_sent_back() {
    let mut first = call_piece(0, Some("call_1"), Some("add"), "{\"a\": 2, ");
    first["choices"][0]["delta"]["tool_calls"][0]["extra_content"] = json!({"google": {"thought_signature": "sig-1"}});
    let mut said = text("Adding.");
    said["choices"][0]["delta"]["extra_content"] = json!({"google": {"thought_signature": "sig-text"}});
    let turn_one = sse(&[said, first, call_piece(0, None, None, "\"b\": 3}"), finish("tool_calls")], true);
    let (events, server) = stream_run(vec![turn_one, sse(&[text("5"), finish("stop")], true)]).await;
    assert_eq!(outcome(&events).as_ref().unwrap().text, "5");
    let assistant = &server.received()[1].body["messages"][1];
    assert_eq!(assistant["content"], "Adding.");
    assert_eq!(assistant["extra_content"], json!({"google": {"thought_signature": "sig-text"}}), "{assistant}");
    assert_eq!(assistant["tool_calls"][0]["extra_content"], json!({"google": {"thought_signature": "sig-1"}}));
}
