//! One scenario suite, four clients: `OpenAiCompatible` (Chat Completions),
//! `OpenAiResponses`, `Anthropic` and `Gemini`, each against a local server speaking its
//! provider's wire format (the shapes of each API reference), all through the same
//! `Agent` and the same tools. A text answer, a single tool call, parallel tool calls,
//! a typed final answer (asked for natively), a rate-limit retry, and streaming: text in
//! pieces, a call whose arguments come in fragments, a cut stream, an error mid-stream
//! (after output: not retried; before any, retried when the provider calls it
//! transient); and a missing key named.

mod support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use support::provider::{Canned, Provider, ok, status};
use toolkit::agent::Agent;
use toolkit::model::{Anthropic, Gemini, Model, ModelError, OpenAiCompatible, OpenAiResponses};
use toolkit::prelude::*;

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

/// The local time in a city.
#[tool]
fn city_time(
    /// The city.
    city: String,
) -> String {
    format!("12:00 in {city}")
}

/// A provider's wire format, as far as the scenarios need it.
trait Dialect {
    /// The path the client posts to.
    const PATH: &'static str;
    /// The header that carries the key, and its value.
    const AUTH: (&'static str, &'static str);
    /// A reply with text only.
    fn text(text: &str) -> Value;
    /// A reply with these calls: `(id, name, arguments)`.
    fn calls(calls: &[(&str, &str, Value)]) -> Value;
    /// The client, pointed at `base`.
    fn model(base: &str) -> Arc<dyn Model>;
    /// The tool results a request carries back: `(call id, content)`, in order.
    fn results(body: &Value) -> Vec<(String, String)>;
    /// A reply that gives `answer` as a typed run's final answer.
    fn answer(answer: &Value) -> Value {
        Self::text(&answer.to_string())
    }
    /// Whether a request asks for an answer of the schema named `name`, the provider's
    /// native way.
    fn asks_for(body: &Value, name: &str) -> bool;
    /// Where streamed requests go.
    const STREAM_PATH: &'static str = Self::PATH;
    /// A streamed text reply, in these pieces (a whole `text/event-stream` body).
    fn sse_text(pieces: &[&str]) -> String;
    /// A streamed reply with one call whose arguments come in these fragments.
    fn sse_call(id: &str, name: &str, fragments: &[&str]) -> String;
    /// A stream that starts a text, then reports an error, the provider's way.
    fn sse_error(message: &str) -> String;
    /// The provider's type for the error of [`sse_error`](Self::sse_error).
    const ERROR_KIND: &'static str;
    /// A stream that reports an error of this type before any output.
    fn sse_error_at_start(kind: &str, message: &str) -> String;
    /// An error type the provider uses for a passing failure (overloaded, server error),
    /// and one for a request that is wrong.
    const TRANSIENT: &'static str;
    const LASTING: &'static str;
    /// The client built with no key anywhere (the key variable pointed at an unset one).
    fn without_key() -> ModelError;
    /// The body of a 429.
    fn rate_limited() -> Value {
        json!({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}})
    }
}

fn backoff() -> (Duration, Duration) {
    (Duration::from_millis(5), Duration::from_millis(20))
}

struct Chat;
impl Dialect for Chat {
    const PATH: &'static str = "/v1/chat/completions";
    const AUTH: (&'static str, &'static str) = ("authorization", "Bearer sk-test");
    fn text(text: &str) -> Value {
        json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})
    }
    fn calls(calls: &[(&str, &str, Value)]) -> Value {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
            .collect();
        json!({"id": "chatcmpl-2", "object": "chat.completion", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})
    }
    fn model(base: &str) -> Arc<dyn Model> {
        let (first, max) = backoff();
        let client = OpenAiCompatible::builder().base_url(format!("{base}/v1")).api_key("sk-test").model("m");
        Arc::new(client.backoff(first, max).build().unwrap())
    }
    fn sse_text(pieces: &[&str]) -> String {
        let mut events: Vec<Value> = pieces
            .iter()
            .map(|p| json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": p}}]}))
            .collect();
        events.push(
            json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        );
        events.push(json!({"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}));
        data_lines(&events) + "data: [DONE]\n\n"
    }
    fn sse_error(message: &str) -> String {
        data_lines(&[
            json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "par"}}]}),
            json!({"error": {"message": message, "type": "server_error"}}),
        ])
    }
    const ERROR_KIND: &'static str = "server_error";
    fn sse_error_at_start(kind: &str, message: &str) -> String {
        data_lines(&[
            json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
            json!({"error": {"message": message, "type": kind, "code": null}}),
        ])
    }
    const TRANSIENT: &'static str = "server_error";
    const LASTING: &'static str = "invalid_request_error";
    fn without_key() -> ModelError {
        OpenAiCompatible::builder().key_variable("TOOLKIT_TEST_UNSET_KEY").build().unwrap_err()
    }
    fn sse_call(id: &str, name: &str, fragments: &[&str]) -> String {
        let mut events =
            vec![json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}}]})];
        for f in fragments {
            events.push(json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": f}}]}}]}));
        }
        events.push(json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
        data_lines(&events) + "data: [DONE]\n\n"
    }
    fn asks_for(body: &Value, name: &str) -> bool {
        body["response_format"]["type"] == "json_schema" && body["response_format"]["json_schema"]["name"] == name
    }
    fn results(body: &Value) -> Vec<(String, String)> {
        let messages = body["messages"].as_array().unwrap();
        messages
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| (m["tool_call_id"].as_str().unwrap().into(), m["content"].as_str().unwrap().into()))
            .collect()
    }
}

struct Responses;
impl Dialect for Responses {
    const PATH: &'static str = "/v1/responses";
    const AUTH: (&'static str, &'static str) = ("authorization", "Bearer sk-test");
    fn text(text: &str) -> Value {
        json!({"id": "resp_1", "object": "response", "status": "completed", "output": [
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}})
    }
    fn calls(calls: &[(&str, &str, Value)]) -> Value {
        let output: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (id, name, args))| {
                json!({"type": "function_call", "id": format!("fc_{i}"), "call_id": id, "name": name,
                       "arguments": args.to_string(), "status": "completed"})
            })
            .collect();
        json!({"id": "resp_2", "object": "response", "status": "completed", "output": output,
               "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}})
    }
    fn model(base: &str) -> Arc<dyn Model> {
        let (first, max) = backoff();
        let client = OpenAiResponses::builder().base_url(format!("{base}/v1")).api_key("sk-test").model("m");
        Arc::new(client.backoff(first, max).build().unwrap())
    }
    fn sse_text(pieces: &[&str]) -> String {
        let mut events: Vec<(&str, Value)> = pieces
            .iter()
            .map(|p| ("response.output_text.delta", json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": p})))
            .collect();
        let whole = Self::text(&pieces.concat());
        events.push(("response.completed", json!({"type": "response.completed", "response": whole})));
        named_events(&events)
    }
    fn sse_error(message: &str) -> String {
        named_events(&[
            (
                "response.output_text.delta",
                json!({"type": "response.output_text.delta", "output_index": 0, "delta": "par"}),
            ),
            ("error", json!({"type": "error", "code": "server_error", "message": message})),
        ])
    }
    const ERROR_KIND: &'static str = "server_error";
    fn sse_error_at_start(kind: &str, message: &str) -> String {
        named_events(&[
            (
                "response.created",
                json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
            ),
            ("error", json!({"type": "error", "code": kind, "message": message, "param": null})),
        ])
    }
    const TRANSIENT: &'static str = "server_error";
    const LASTING: &'static str = "invalid_prompt";
    fn without_key() -> ModelError {
        OpenAiResponses::builder().key_variable("TOOLKIT_TEST_UNSET_KEY").build().unwrap_err()
    }
    fn sse_call(id: &str, name: &str, fragments: &[&str]) -> String {
        let mut events = vec![(
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"type": "function_call", "id": "fc_0", "call_id": id, "name": name, "arguments": ""}}),
        )];
        for f in fragments {
            events.push((
                "response.function_call_arguments.delta",
                json!({"type": "response.function_call_arguments.delta", "item_id": "fc_0", "output_index": 0, "delta": f}),
            ));
        }
        let args: Value = serde_json::from_str(&fragments.concat()).unwrap();
        events.push((
            "response.completed",
            json!({"type": "response.completed", "response": Self::calls(&[(id, name, args)])}),
        ));
        named_events(&events)
    }
    fn asks_for(body: &Value, name: &str) -> bool {
        body["text"]["format"]["type"] == "json_schema" && body["text"]["format"]["name"] == name
    }
    fn results(body: &Value) -> Vec<(String, String)> {
        let input = body["input"].as_array().unwrap();
        input
            .iter()
            .filter(|i| i["type"] == "function_call_output")
            .map(|i| (i["call_id"].as_str().unwrap().into(), i["output"].as_str().unwrap().into()))
            .collect()
    }
}

struct Claude;
impl Dialect for Claude {
    const PATH: &'static str = "/v1/messages";
    const AUTH: (&'static str, &'static str) = ("x-api-key", "sk-ant-test");
    fn text(text: &str) -> Value {
        json!({"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": text}],
               "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 2}})
    }
    fn calls(calls: &[(&str, &str, Value)]) -> Value {
        let content: Vec<Value> = calls
            .iter()
            .map(|(id, name, args)| json!({"type": "tool_use", "id": id, "name": name, "input": args}))
            .collect();
        json!({"id": "msg_2", "type": "message", "role": "assistant", "content": content,
               "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 2}})
    }
    fn model(base: &str) -> Arc<dyn Model> {
        let (first, max) = backoff();
        Arc::new(Anthropic::builder().base_url(base).api_key("sk-ant-test").backoff(first, max).build().unwrap())
    }
    fn answer(answer: &Value) -> Value {
        Self::calls(&[("toolu_final", "final_answer", answer.clone())])
    }
    fn sse_text(pieces: &[&str]) -> String {
        let mut events = vec![
            (
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 10, "output_tokens": 0}}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ),
            ("ping", json!({"type": "ping"})),
        ];
        for p in pieces {
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}),
            ));
        }
        events.push(("content_block_stop", json!({"type": "content_block_stop", "index": 0})));
        events.push((
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ));
        events.push(("message_stop", json!({"type": "message_stop"})));
        named_events(&events)
    }
    fn sse_error(message: &str) -> String {
        named_events(&[
            (
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 1}}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "par"}}),
            ),
            ("error", json!({"type": "error", "error": {"type": "overloaded_error", "message": message}})),
        ])
    }
    const ERROR_KIND: &'static str = "overloaded_error";
    fn sse_error_at_start(kind: &str, message: &str) -> String {
        named_events(&[
            (
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 1}}}),
            ),
            ("ping", json!({"type": "ping"})),
            ("error", json!({"type": "error", "error": {"type": kind, "message": message}})),
        ])
    }
    const TRANSIENT: &'static str = "overloaded_error";
    const LASTING: &'static str = "invalid_request_error";
    fn without_key() -> ModelError {
        Anthropic::builder().key_variable("TOOLKIT_TEST_UNSET_KEY").build().unwrap_err()
    }
    fn sse_call(id: &str, name: &str, fragments: &[&str]) -> String {
        let mut events = vec![
            (
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 10, "output_tokens": 0}}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
            ),
        ];
        for f in fragments {
            events.push(("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": f}})));
        }
        events.push(("content_block_stop", json!({"type": "content_block_stop", "index": 0})));
        events.push((
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 2}}),
        ));
        events.push(("message_stop", json!({"type": "message_stop"})));
        named_events(&events)
    }
    fn asks_for(body: &Value, _name: &str) -> bool {
        let tools = body["tools"].as_array().unwrap();
        tools.iter().any(|t| t["name"] == "final_answer") && body["tool_choice"]["type"] == "any"
    }
    fn results(body: &Value) -> Vec<(String, String)> {
        let messages = body["messages"].as_array().unwrap();
        messages
            .iter()
            .filter(|m| m["role"] == "user")
            .flat_map(|m| m["content"].as_array().unwrap().iter())
            .filter(|b| b["type"] == "tool_result")
            .map(|b| (b["tool_use_id"].as_str().unwrap().into(), b["content"].as_str().unwrap().into()))
            .collect()
    }
    fn rate_limited() -> Value {
        json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Rate limited"}})
    }
}

struct Google;
impl Dialect for Google {
    const PATH: &'static str = "/v1beta/models/gemini-test:generateContent";
    const AUTH: (&'static str, &'static str) = ("x-goog-api-key", "g-test");
    fn text(text: &str) -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
               "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12}})
    }
    fn calls(calls: &[(&str, &str, Value)]) -> Value {
        let parts: Vec<Value> = calls
            .iter()
            .map(|(id, name, args)| json!({"functionCall": {"id": id, "name": name, "args": args}}))
            .collect();
        json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
               "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12}})
    }
    fn model(base: &str) -> Arc<dyn Model> {
        let (first, max) = backoff();
        let client = Gemini::builder().base_url(format!("{base}/v1beta")).api_key("g-test").model("gemini-test");
        Arc::new(client.backoff(first, max).build().unwrap())
    }
    const STREAM_PATH: &'static str = "/v1beta/models/gemini-test:streamGenerateContent";
    fn sse_text(pieces: &[&str]) -> String {
        let mut events: Vec<Value> = pieces
            .iter()
            .map(|p| json!({"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}}]}))
            .collect();
        events.push(
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}],
                           "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2}}),
        );
        data_lines(&events)
    }
    fn sse_error(message: &str) -> String {
        data_lines(&[
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "par"}]}}]}),
            json!({"error": {"code": 503, "message": message, "status": "UNAVAILABLE"}}),
        ])
    }
    const ERROR_KIND: &'static str = "UNAVAILABLE";
    fn sse_error_at_start(kind: &str, message: &str) -> String {
        let code = if kind == "UNAVAILABLE" { 503 } else { 400 };
        data_lines(&[json!({"error": {"code": code, "message": message, "status": kind}})])
    }
    const TRANSIENT: &'static str = "UNAVAILABLE";
    const LASTING: &'static str = "INVALID_ARGUMENT";
    fn without_key() -> ModelError {
        Gemini::builder().key_variable("TOOLKIT_TEST_UNSET_KEY").build().unwrap_err()
    }
    fn sse_call(id: &str, name: &str, fragments: &[&str]) -> String {
        let args: Value = serde_json::from_str(&fragments.concat()).unwrap();
        data_lines(&[
            json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": id, "name": name, "args": args}}]},
                            "finishReason": "STOP"}]}),
        ])
    }
    fn asks_for(body: &Value, _name: &str) -> bool {
        let config = &body["generationConfig"];
        config["responseMimeType"] == "application/json" && config["responseJsonSchema"]["type"] == "object"
    }
    fn results(body: &Value) -> Vec<(String, String)> {
        let contents = body["contents"].as_array().unwrap();
        contents
            .iter()
            .flat_map(|c| c["parts"].as_array().unwrap().iter())
            .filter_map(|p| p.get("functionResponse"))
            .map(|r| (r["id"].as_str().unwrap().into(), r["response"]["output"].as_str().unwrap().into()))
            .collect()
    }
    fn rate_limited() -> Value {
        json!({"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}})
    }
}

fn data_lines(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

fn named_events(events: &[(&str, Value)]) -> String {
    events.iter().map(|(name, e)| format!("event: {name}\ndata: {e}\n\n")).collect()
}

fn sse(body: String) -> Canned {
    Canned { status: 200, headers: vec![("content-type", "text/event-stream".into())], body, delay: Duration::ZERO }
}

async fn stream_run<D: Dialect>(replies: Vec<Canned>) -> Vec<toolkit::agent::RunEvent> {
    use toolkit::model::StreamExt;
    let server = Provider::start(D::STREAM_PATH, replies).await;
    let agent = Agent::builder(D::model(&server.base_url), toolbox![add, city_time]).build().unwrap();
    agent.run_stream("Go").collect().await
}

fn finished(events: &[toolkit::agent::RunEvent]) -> &Result<toolkit::agent::AgentRun, toolkit::agent::AgentError> {
    match events.last() {
        Some(toolkit::agent::RunEvent::Finished(outcome)) => outcome,
        other => panic!("the last event is not the outcome: {other:?}"),
    }
}

async fn streamed_text<D: Dialect>() {
    let events = stream_run::<D>(vec![sse(D::sse_text(&["Hel", "lo", " there."]))]).await;
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(
            |e| if let toolkit::agent::RunEvent::TextDelta { text, .. } = e { Some(text.as_str()) } else { None },
        )
        .collect();
    assert_eq!(deltas, ["Hel", "lo", " there."]);
    assert_eq!(finished(&events).as_ref().unwrap().text, "Hello there.");
}

async fn a_streamed_call_in_fragments<D: Dialect>() {
    let replies =
        vec![sse(D::sse_call("call_1", "add", &["{\"a\": ", "2, \"b", "\": 3}"])), sse(D::sse_text(&["It is ", "5."]))];
    let events = stream_run::<D>(replies).await;
    let run = finished(&events).as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.text, "It is 5.");
    assert_eq!(run.records.len(), 1);
    assert_eq!(run.records[0].content, "5");
    let arguments: Value = serde_json::from_str(&run.records[0].arguments).unwrap();
    assert_eq!(arguments, json!({"a": 2, "b": 3}), "the fragments assembled");
}

async fn a_cut_stream_is_an_error<D: Dialect>() {
    let whole = D::sse_text(&["Hel", "lo", " there."]);
    let cut: String = whole.split_inclusive("\n\n").take(2).collect();
    let events = stream_run::<D>(vec![sse(cut)]).await;
    match finished(&events) {
        Err(toolkit::agent::AgentError::Model {
            source: toolkit::model::ModelError::MalformedResponse { message },
            ..
        }) => {
            assert!(message.contains("before the reply was finished"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

async fn stream_run_on<D: Dialect>(replies: Vec<Canned>) -> (Vec<toolkit::agent::RunEvent>, Provider) {
    use toolkit::model::StreamExt;
    let server = Provider::start(D::STREAM_PATH, replies).await;
    let agent = Agent::builder(D::model(&server.base_url), toolbox![add, city_time]).build().unwrap();
    let events = agent.run_stream("Go").collect().await;
    (events, server)
}

/// The provider's error after some text reached the caller: its own variant with the
/// provider's type and words, and no retry (the caller has the text already). Before,
/// it was a `MalformedResponse`, like a garbled reply.
async fn an_error_mid_stream_ends_the_run_with_the_servers_words<D: Dialect>() {
    // A second reply the client must not ask for.
    let replies = vec![sse(D::sse_error("the model is overloaded")), sse(D::sse_text(&["never"]))];
    let (events, server) = stream_run_on::<D>(replies).await;
    match finished(&events) {
        Err(toolkit::agent::AgentError::Model {
            source: error @ ModelError::StreamError { kind, message, attempts, after_output, .. },
            ..
        }) => {
            assert_eq!((kind.as_str(), message.as_str()), (D::ERROR_KIND, "the model is overloaded"));
            assert_eq!((*attempts, *after_output), (1, true));
            let text = error.to_string();
            assert!(text.contains("mid-stream") && text.contains(D::ERROR_KIND), "{text}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.received().len(), 1, "output had reached the caller: not retried");
}

/// A transient error (overloaded, server error) before any of the reply: asked again.
async fn a_transient_error_before_any_output_is_retried<D: Dialect>() {
    let replies = vec![sse(D::sse_error_at_start(D::TRANSIENT, "busy, try again")), sse(D::sse_text(&["Hel", "lo."]))];
    let (events, server) = stream_run_on::<D>(replies).await;
    let run = finished(&events).as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.text, "Hello.");
    let received = server.received();
    assert_eq!(received.len(), 2, "retried once");
    assert_eq!(received[0].body, received[1].body, "the retry sends the same request");
}

/// An error that says the request is wrong: not retried, even before any output.
async fn a_lasting_error_before_any_output_is_not_retried<D: Dialect>() {
    let replies = vec![sse(D::sse_error_at_start(D::LASTING, "bad request")), sse(D::sse_text(&["never"]))];
    let (events, server) = stream_run_on::<D>(replies).await;
    match finished(&events) {
        Err(toolkit::agent::AgentError::Model {
            source: ModelError::StreamError { kind, message, attempts, after_output, .. },
            ..
        }) => {
            assert_eq!((kind.as_str(), message.as_str()), (D::LASTING, "bad request"));
            assert_eq!((*attempts, *after_output), (1, false));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.received().len(), 1);
}

fn a_missing_key_names_its_variable<D: Dialect>() {
    let e = D::without_key();
    assert!(matches!(e, ModelError::MissingKey { .. }), "{e:?}");
    assert!(e.to_string().contains("TOOLKIT_TEST_UNSET_KEY"), "{e}");
}

async fn run<D: Dialect>(replies: Vec<Canned>, input: &str) -> (toolkit::agent::AgentRun, Vec<Value>) {
    let server = Provider::start(D::PATH, replies).await;
    let agent = Agent::builder(D::model(&server.base_url), toolbox![add, city_time]).build().unwrap();
    let run = agent.run(input).await.unwrap_or_else(|e| panic!("{e}"));
    let received = server.received();
    let (header, value) = D::AUTH;
    for request in &received {
        assert_eq!(request.headers.get(header).and_then(|v| v.to_str().ok()), Some(value), "the key, as sent");
    }
    (run, received.into_iter().map(|r| r.body).collect())
}

async fn a_text_answer<D: Dialect>() {
    let (run, sent) = run::<D>(vec![ok(D::text("Hello."))], "Hi").await;
    assert_eq!(run.text, "Hello.");
    assert_eq!(run.usage.total_tokens, 12);
    assert_eq!(sent.len(), 1);
    assert!(run.records.is_empty());
}

async fn a_single_tool_call<D: Dialect>() {
    let replies = vec![ok(D::calls(&[("call_1", "add", json!({"a": 2, "b": 3}))])), ok(D::text("It is 5."))];
    let (run, sent) = run::<D>(replies, "2 + 3?").await;
    assert_eq!(run.text, "It is 5.");
    assert_eq!(run.records.len(), 1);
    assert_eq!(D::results(&sent[1]), [("call_1".to_string(), "5".to_string())]);
}

async fn parallel_tool_calls<D: Dialect>() {
    let replies = vec![
        ok(D::calls(&[("call_a", "add", json!({"a": 1, "b": 1})), ("call_b", "city_time", json!({"city": "Oslo"}))])),
        ok(D::text("2; noon in Oslo.")),
    ];
    let (run, sent) = run::<D>(replies, "1 + 1, and the time in Oslo?").await;
    assert_eq!(run.text, "2; noon in Oslo.");
    let tools: Vec<&str> = run.records.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(tools, ["add", "city_time"]);
    assert_eq!(
        D::results(&sent[1]),
        [("call_a".to_string(), "2".to_string()), ("call_b".to_string(), "12:00 in Oslo".to_string())]
    );
}

async fn a_rate_limit_is_retried<D: Dialect>() {
    let mut limited = status(429, D::rate_limited());
    limited.headers.push(("retry-after", "0".into()));
    let (run, sent) = run::<D>(vec![limited, ok(D::text("Done."))], "Hi").await;
    assert_eq!(run.text, "Done.");
    assert_eq!(sent.len(), 2, "the 429 was retried once");
    assert_eq!(sent[0], sent[1], "the retry sends the same request");
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq)]
struct Forecast {
    city: String,
    celsius: f64,
}

async fn a_typed_answer<D: Dialect>() {
    let replies = vec![
        ok(D::calls(&[("call_1", "city_time", json!({"city": "Oslo"}))])),
        ok(D::answer(&json!({"city": "Oslo", "celsius": -3.5}))),
    ];
    let server = Provider::start(D::PATH, replies).await;
    let agent = Agent::builder(D::model(&server.base_url), toolbox![add, city_time]).build().unwrap();
    let answer = agent.run_typed::<Forecast>("Weather in Oslo?").await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.value, Forecast { city: "Oslo".into(), celsius: -3.5 });
    assert_eq!(answer.run.records.len(), 1, "tools still run before the answer");
    for request in server.received() {
        assert!(D::asks_for(&request.body, "Forecast"), "{}", request.body);
    }
}

macro_rules! scenarios {
    ($module:ident, $dialect:ty) => {
        mod $module {
            use super::*;

            #[tokio::test]
            async fn a_text_answer() {
                super::a_text_answer::<$dialect>().await;
            }

            #[tokio::test]
            async fn a_single_tool_call() {
                super::a_single_tool_call::<$dialect>().await;
            }

            #[tokio::test]
            async fn parallel_tool_calls() {
                super::parallel_tool_calls::<$dialect>().await;
            }

            #[tokio::test]
            async fn a_typed_answer() {
                super::a_typed_answer::<$dialect>().await;
            }

            #[tokio::test]
            async fn streamed_text() {
                super::streamed_text::<$dialect>().await;
            }

            #[tokio::test]
            async fn a_streamed_call_in_fragments() {
                super::a_streamed_call_in_fragments::<$dialect>().await;
            }

            #[tokio::test]
            async fn a_cut_stream_is_an_error() {
                super::a_cut_stream_is_an_error::<$dialect>().await;
            }

            #[tokio::test]
            async fn an_error_mid_stream_ends_the_run_with_the_servers_words() {
                super::an_error_mid_stream_ends_the_run_with_the_servers_words::<$dialect>().await;
            }

            #[tokio::test]
            async fn a_transient_error_before_any_output_is_retried() {
                super::a_transient_error_before_any_output_is_retried::<$dialect>().await;
            }

            #[tokio::test]
            async fn a_lasting_error_before_any_output_is_not_retried() {
                super::a_lasting_error_before_any_output_is_not_retried::<$dialect>().await;
            }

            #[test]
            fn a_missing_key_names_its_variable() {
                super::a_missing_key_names_its_variable::<$dialect>();
            }

            #[tokio::test]
            async fn a_rate_limit_is_retried() {
                super::a_rate_limit_is_retried::<$dialect>().await;
            }
        }
    };
}

scenarios!(openai_chat, Chat);
scenarios!(openai_responses, Responses);
scenarios!(anthropic, Claude);
scenarios!(gemini, Google);

#[test]
fn a_clients_debug_shows_its_settings_and_never_its_key() {
    let key = "sk-secret-0123456789";
    let shown = [
        format!("{:?}", OpenAiCompatible::builder().api_key(key).model("m1").build().unwrap()),
        format!("{:?}", OpenAiResponses::builder().api_key(key).model("m2").build().unwrap()),
        format!("{:?}", Anthropic::builder().api_key(key).model("m3").build().unwrap()),
        format!("{:?}", Gemini::builder().api_key(key).model("m4").build().unwrap()),
    ];
    for (text, (name, model)) in
        shown.iter().zip([("OpenAiCompatible", "m1"), ("OpenAiResponses", "m2"), ("Anthropic", "m3"), ("Gemini", "m4")])
    {
        assert!(text.starts_with(name), "{text}");
        for part in [format!("model: \"{model}\""), "api_key: \"[redacted]\"".into(), "max_retries:".into()] {
            assert!(text.contains(&part), "`{part}` missing in {text}");
        }
        assert!(!text.contains(key), "the key leaked: {text}");
    }
}
