//! An MCP server facing a bad client: malformed JSON-RPC, wrong protocol versions,
//! huge or deeply nested arguments, unknown methods, cancellations and a client that
//! disconnects mid-call. Each gets a clear protocol error or a clean shutdown, never a
//! panic, and every call that reached the toolbox is in the audit trail.
//!
//! The server runs in-process (`McpServer::serve` over an in-memory pipe) and the client
//! writes raw JSON-RPC lines, as a buggy or hostile client would; the HTTP case runs the
//! example server and sends raw HTTP requests.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};
use tokio::task::JoinHandle;
use toolkit::mcp::{McpError, McpServer};
use toolkit::{CallRecord, FnTool, Outcome, Output, ToolSpec, Toolbox};

/// A tool that takes `ms` milliseconds, and tells when it was cancelled (dropped
/// before finishing).
fn slow_tool(cancelled: Arc<AtomicBool>) -> impl toolkit::DynTool {
    let spec = ToolSpec::new(
        "slow",
        "Wait, then answer.",
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"], "additionalProperties": false}),
    );
    FnTool::new(spec, move |args| {
        let guard = DropFlag { flag: Arc::clone(&cancelled), finished: false };
        async move {
            let mut guard = guard; // the whole guard, not just the field it writes
            tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(0))).await;
            guard.finished = true;
            Ok(Output::text("done"))
        }
    })
}

/// Sets its flag when dropped before the work finished.
struct DropFlag {
    flag: Arc<AtomicBool>,
    finished: bool,
}

impl Drop for DropFlag {
    fn drop(&mut self) {
        if !self.finished {
            self.flag.store(true, Ordering::SeqCst);
        }
    }
}

/// A tool that never finishes within its 50 ms timeout.
fn stuck_tool() -> impl toolkit::DynTool {
    let spec =
        ToolSpec::new("stuck", "Hang.", json!({"type": "object", "properties": {}, "additionalProperties": false}))
            .with_timeout(Duration::from_millis(50));
    FnTool::new(spec, |_| async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok(Output::text("never"))
    })
}

fn echo_tool() -> impl toolkit::DynTool {
    let spec = ToolSpec::new(
        "echo",
        "Echo the value.",
        json!({"type": "object", "properties": {"value": {}}, "required": ["value"], "additionalProperties": false}),
    );
    FnTool::new(
        spec,
        |args| async move { Ok(Output::text(args["value"].to_string().chars().take(50).collect::<String>())) },
    )
}

struct Harness {
    client: Raw,
    server: JoinHandle<Result<(), McpError>>,
    records: Arc<Mutex<Vec<(String, Outcome)>>>,
    cancelled: Arc<AtomicBool>,
}

struct Raw {
    write: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Raw {
    async fn send(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.expect("server reads");
        self.write.write_all(b"\n").await.expect("server reads");
    }

    /// The next message from the server (a test fails rather than hangs if none comes).
    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
            .await
            .expect("the server answers")
            .expect("read")
            .expect("the server is still connected");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }
}

fn start() -> Harness {
    start_with(|server| server)
}

fn start_with(configure: impl FnOnce(McpServer) -> McpServer) -> Harness {
    let records = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&records);
    let cancelled = Arc::new(AtomicBool::new(false));
    let mut tools =
        Toolbox::new().with_sink(move |r: &CallRecord| seen.lock().unwrap().push((r.tool.clone(), r.outcome)));
    tools.add_dynamic(slow_tool(Arc::clone(&cancelled))).unwrap();
    tools.add_dynamic(echo_tool()).unwrap();
    tools.add_dynamic(stuck_tool()).unwrap();
    let (client_side, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let server = tokio::spawn(configure(McpServer::new(tools)).serve(server_read, server_write));
    let (read, write) = tokio::io::split(client_side);
    Harness { client: Raw { write, lines: BufReader::new(read).lines() }, server, records, cancelled }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

async fn initialized() -> Harness {
    let mut h = start();
    h.client.send(INITIALIZE).await;
    assert_eq!(h.client.recv().await["result"]["protocolVersion"], "2025-11-25");
    h.client.send(INITIALIZED).await;
    h
}

fn call(id: u64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        .to_string()
}

/// Closes the client's side and checks the server shut down cleanly.
async fn disconnect(h: Harness) -> Vec<(String, Outcome)> {
    drop(h.client);
    let ended =
        tokio::time::timeout(Duration::from_secs(20), h.server).await.expect("the server stops").expect("no panic");
    ended.expect("a clean shutdown");
    h.records.lock().unwrap().clone()
}

#[tokio::test]
async fn malformed_json_rpc_is_skipped_or_refused_and_the_session_goes_on() {
    let mut h = initialized().await;
    // Not JSON at all: no id to answer to, so the SDK skips the line (as every official
    // MCP SDK does, to avoid error storms)...
    h.client.send("{this is not json").await;
    // ...JSON that is not a JSON-RPC message is refused with Invalid Request...
    h.client.send("[1, 2, 3]").await;
    let refused = h.client.recv().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    h.client.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"not an object"}"#).await;
    let refused = h.client.recv().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    // ...and so is an id that is a fraction (no answer could carry it back as sent).
    h.client.send(r#"{"jsonrpc":"2.0","id":7.5,"method":"ping"}"#).await;
    let refused = h.client.recv().await;
    assert_eq!(refused["error"]["message"], "Invalid Request: `id` must be a string or an integer", "{refused}");
    // ...an unknown method is Method not found, promptly...
    h.client.send(r#"{"jsonrpc":"2.0","id":8,"method":"tools/frobnicate","params":{}}"#).await;
    let unknown = h.client.recv().await;
    assert_eq!((unknown["id"].clone(), unknown["error"]["code"].clone()), (json!(8), json!(-32601)), "{unknown}");
    // ...and the session still serves calls.
    h.client.send(&call(9, "echo", json!({"value": "still here"}))).await;
    let ok = h.client.recv().await;
    assert_eq!(ok["id"], 9);
    assert_eq!(ok["result"]["content"][0]["text"], "\"still here\"");
    assert_eq!(disconnect(h).await, [("echo".to_string(), Outcome::Ok)]);
}

/// What careless peers send on stdio: an error response without an id is never answered
/// (answering it starts an endless exchange), a line that is not UTF-8 is refused rather
/// than served with replacement characters, 20 MiB of spaces is a blank line, and JSON
/// nested 100,000 deep is answered, saying why; the session goes on after each.
#[tokio::test]
async fn responses_bad_utf8_blank_and_deep_lines_get_what_the_protocol_says() {
    let mut h = initialized().await;
    h.client.send(r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"you sent me garbage"}}"#).await;
    h.client.send(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#).await;
    h.client.write.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"value\":\"\xff\xfe\"}}}\n").await.unwrap();
    let refused = h.client.recv().await;
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("not valid UTF-8"), "{refused}");
    h.client.send(&" ".repeat(20 << 20)).await;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    h.client.send(&deep).await;
    let too_deep = h.client.recv().await;
    assert_eq!(too_deep["error"]["code"], -32700, "{too_deep}");
    assert!(too_deep["error"]["message"].as_str().unwrap().contains("nested too deeply"), "{too_deep}");
    // Nothing else was answered: the next message is the call's.
    h.client.send(&call(4, "echo", json!({"value": "still here"}))).await;
    let ok = h.client.recv().await;
    assert_eq!(ok["id"], 4, "{ok}");
    assert_eq!(disconnect(h).await, [("echo".to_string(), Outcome::Ok)], "the bad UTF-8 call never ran");
}

#[tokio::test]
async fn messages_before_initialize_are_ignored_and_the_session_still_starts() {
    for early in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}"#,
        INITIALIZED,
        r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
        r#"{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
    ] {
        let mut h = start();
        h.client.send(early).await;
        h.client.send(INITIALIZE).await;
        let init = h.client.recv().await;
        assert_eq!(init["id"], 0, "after {early}: {init}");
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "after {early}: {init}");
        h.client.send(INITIALIZED).await;
        h.client.send(&call(1, "echo", json!({"value": 1}))).await;
        assert_eq!(h.client.recv().await["id"], 1, "after {early}");
        disconnect(h).await;
    }
}

#[tokio::test]
async fn bad_params_of_known_methods_are_invalid_params_with_a_short_message() {
    let mut h = initialized().await;
    let call_with = |id: u64, params: Option<Value>| {
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"});
        if let Some(params) = params {
            message["params"] = params;
        }
        message.to_string()
    };
    let cases = [
        None,
        Some(json!({})),
        Some(json!({"name": 123})),
        Some(json!({"name": null})),
        Some(json!({"name": "echo", "arguments": "value=1"})),
        Some(json!({"name": "echo", "arguments": [1]})),
        Some(json!({"name": "echo", "arguments": 7})),
    ];
    for (id, params) in (1..).zip(cases) {
        h.client.send(&call_with(id, params.clone())).await;
        let refused = h.client.recv().await;
        assert_eq!(
            (refused["id"].clone(), refused["error"]["code"].clone()),
            (json!(id), json!(-32602)),
            "{params:?}: {refused}"
        );
    }
    // Other methods' params, and `_meta` that is not an object (answered with the id).
    for (id, message) in [
        (20, json!({"jsonrpc": "2.0", "id": 20, "method": "tools/list", "params": {"cursor": 5}})),
        (21, json!({"jsonrpc": "2.0", "id": 21, "method": "tools/list", "params": {"_meta": "x"}})),
        (22, json!({"jsonrpc": "2.0", "id": 22, "method": "initialize", "params": {"capabilities": {}}})),
        (23, json!({"jsonrpc": "2.0", "id": 23, "method": "initialize", "params": {"protocolVersion": 20251125}})),
    ] {
        h.client.send(&message.to_string()).await;
        let refused = h.client.recv().await;
        assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (json!(id), json!(-32602)), "{refused}");
    }
    // A megabyte method name is not echoed back whole.
    h.client.send(&json!({"jsonrpc": "2.0", "id": 30, "method": "x".repeat(1 << 20)}).to_string()).await;
    let unknown = h.client.recv().await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert!(unknown.to_string().len() < 300, "{} bytes", unknown.to_string().len());
    // A request pretty-printed over several lines is one request.
    let pretty = serde_json::to_string_pretty(&json!({"jsonrpc": "2.0", "id": 31, "method": "tools/call", "params": {"name": "echo", "arguments": {"value": "pretty"}}})).unwrap();
    h.client.send(&pretty).await;
    let answered = h.client.recv().await;
    assert_eq!(
        (answered["id"].clone(), answered["result"]["content"][0]["text"].clone()),
        (json!(31), json!("\"pretty\"")),
        "{answered}"
    );
    assert_eq!(disconnect(h).await, [("echo".to_string(), Outcome::Ok)]);
}

/// A fragment (a stray bracket, a cut line) does not swallow the requests after it, and
/// a message written over many lines is read in time linear in its length. Before, each
/// request after a fragment was folded into it and never answered, and every line of a
/// long message parsed the whole message again: this one's 300,000 lines took hours.
#[tokio::test]
async fn fragments_and_long_multi_line_messages_do_not_stall_the_session() {
    let mut h = initialized().await;
    h.client.send("[").await;
    h.client.send(&call(40, "echo", json!({"value": "after a stray bracket"}))).await;
    assert_eq!(h.client.recv().await["id"], 40);
    h.client.send(r#"{"jsonrpc": "2.0", "id": 41,"#).await;
    h.client.send(&call(42, "echo", json!({"value": "after a cut line"}))).await;
    assert_eq!(h.client.recv().await["id"], 42);
    // JSON over 300,000 lines, but not a JSON-RPC message: refused once, as on one line.
    let mut long = String::from("[\n");
    long.push_str(&"1,\n".repeat(300_000));
    long.push_str("1]");
    h.client.send(&long).await;
    let refused = h.client.recv().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    h.client.send(&call(43, "echo", json!({"value": "still here"}))).await;
    assert_eq!(h.client.recv().await["id"], 43);
    let echoed = ("echo".to_string(), Outcome::Ok);
    assert_eq!(disconnect(h).await, [echoed.clone(), echoed.clone(), echoed]);
}

/// Past `with_max_running_calls`, a call waits for a slot; past the queue too, it is
/// answered at once with an error result naming both limits, and never reaches the
/// toolbox (before, the third call was refused although the client was reading).
#[tokio::test]
async fn calls_past_the_running_limit_wait_then_past_the_queue_are_refused() {
    let mut h = start_with(|server| server.with_max_running_calls(2).with_max_queued_calls(1));
    h.client.send(INITIALIZE).await;
    h.client.recv().await;
    h.client.send(INITIALIZED).await;
    for id in [50, 51] {
        h.client.send(&call(id, "slow", json!({"ms": 500}))).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    h.client.send(&call(52, "echo", json!({"value": "queued"}))).await;
    h.client.send(&call(53, "echo", json!({"value": "one too many"}))).await;
    let refused = h.client.recv().await;
    assert_eq!(refused["id"], 53, "answered before the others: {refused}");
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        "The server is running 2 calls and 1 more are waiting, its limits; try again when one has finished."
    );
    let mut finished: Vec<Value> = Vec::new();
    for _ in 0..3 {
        let answer = h.client.recv().await;
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        finished.push(answer["id"].clone());
    }
    finished.sort_by_key(|id| id.as_u64());
    assert_eq!(finished, [json!(50), json!(51), json!(52)], "the queued call ran once a slot was free");
    let ran: Vec<String> = disconnect(h).await.into_iter().map(|(tool, _)| tool).collect();
    assert_eq!(ran, ["slow", "slow", "echo"], "the refused call never reached the toolbox");
}

/// Pipelined calls of a slow tool, many more than may run at once, from a client that
/// reads: every one runs (queued), none is refused.
#[tokio::test]
async fn pipelined_calls_past_the_running_limit_all_run() {
    let mut h = start_with(|server| server.with_max_running_calls(4));
    h.client.send(INITIALIZE).await;
    h.client.recv().await;
    h.client.send(INITIALIZED).await;
    for id in 100..140 {
        h.client.send(&call(id, "slow", json!({"ms": 20}))).await;
    }
    for _ in 100..140 {
        let answer = h.client.recv().await;
        assert_eq!(answer["result"]["isError"], false, "{answer}");
    }
    assert_eq!(disconnect(h).await.len(), 40);
}

/// A client that writes requests without reading the answers: once the window of
/// unanswered requests (and the pipe's buffer) is full, the server stops reading, so
/// the client's writes stop going through and the server holds a bounded number of
/// requests; when the client reads, everything is answered, once each.
#[tokio::test]
async fn a_client_that_does_not_read_is_not_read_either() {
    const SENT: u64 = 5_000;
    let mut h = start_with(|server| server.with_max_unanswered_requests(8));
    h.client.send(INITIALIZE).await;
    h.client.recv().await;
    h.client.send(INITIALIZED).await;
    let Harness { client: Raw { mut write, mut lines }, server, records, .. } = h;
    let writer = tokio::spawn(async move {
        for id in 1000..1000 + SENT {
            let line = format!("{}\n", call(id, "echo", json!({"value": id})));
            write.write_all(line.as_bytes()).await.unwrap();
        }
        write
    });
    // Wait until the server stops taking requests (the count stays put).
    let mut seen = usize::MAX;
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = records.lock().unwrap().len();
        if now == seen {
            break;
        }
        seen = now;
    }
    assert!(!writer.is_finished(), "the client could write all {SENT} requests although it read nothing");
    // The window (8) plus what the pipes between the server and the client hold (two
    // 64 KiB buffers of ~100-byte answers): far from the 5,000 sent.
    assert!(seen < 1_500, "{seen} requests were run for a client that read nothing");
    let mut ids = std::collections::HashSet::new();
    for _ in 0..SENT {
        let line = lines.next_line().await.unwrap().unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        assert!(ids.insert(answer["id"].as_u64().unwrap()), "answered twice: {answer}");
    }
    let mut write = writer.await.unwrap();
    write.shutdown().await.unwrap();
    drop(lines);
    server.await.unwrap().unwrap();
    assert_eq!(records.lock().unwrap().len() as u64, SENT);
}

#[tokio::test]
async fn a_modern_ping_says_its_result_type() {
    let mut h = start();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    h.client.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": meta}}).to_string()).await;
    let pong = h.client.recv().await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}}));
    disconnect(h).await;
}

#[tokio::test]
async fn wrong_protocol_versions_are_negotiated_or_refused_with_the_supported_list() {
    let mut h = start();
    // An unknown version at initialize: the server answers with the newest one it has
    // (the client then decides whether it can go on).
    h.client.send(&INITIALIZE.replace("2025-11-25", "1999-01-01")).await;
    let init = h.client.recv().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    h.client.send(INITIALIZED).await;
    // A per-request version the server does not speak: -32022 with what it supports.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}});
    h.client
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}).to_string())
        .await;
    let refused = h.client.recv().await;
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    let supported = refused["error"]["data"]["supported"].as_array().unwrap();
    assert!(supported.contains(&json!("2025-11-25")) && supported.contains(&json!("2026-07-28")), "{refused}");
    assert!(disconnect(h).await.is_empty());
}

#[tokio::test]
async fn a_modern_request_without_its_metadata_is_invalid_params() {
    let mut h = start();
    // 2026-07-28: no handshake, every request carries its own `_meta`. A discover
    // without it is refused, one with it is answered.
    h.client.send(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#).await;
    let refused = h.client.recv().await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    h.client
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta}}).to_string())
        .await;
    let discovered = h.client.recv().await;
    assert!(
        discovered["result"]["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")),
        "{discovered}"
    );
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta}});
    h.client.send(&list.to_string()).await;
    let listed = h.client.recv().await;
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 3, "{listed}");
    assert_eq!(listed["result"]["ttlMs"], 300_000, "{listed}");
    assert_eq!(listed["result"]["resultType"], "complete", "{listed}");
    assert!(disconnect(h).await.is_empty());
}

#[tokio::test]
async fn huge_and_deeply_nested_arguments_are_results_the_model_can_read() {
    let mut h = initialized().await;
    // Over the toolbox's argument limit (1 MiB): an error result, not a crash.
    h.client.send(&call(1, "echo", json!({"value": "x".repeat(2 << 20)}))).await;
    let huge = h.client.recv().await;
    assert_eq!(huge["result"]["isError"], true, "{huge}");
    assert!(huge["result"]["content"][0]["text"].as_str().unwrap().contains("the arguments are too large"), "{huge}");
    // Nested 100 deep: parsed and passed on like any value.
    let mut deep = json!(1);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    h.client.send(&call(2, "echo", json!({"value": deep}))).await;
    let nested = h.client.recv().await;
    assert_eq!(nested["result"]["isError"], false, "{nested}");
    // Nested 100 000 deep: past the JSON parser's recursion limit (no stack overflow),
    // answered with a parse error saying why (its id cannot be read); the next request
    // is served.
    let abyss = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"echo","arguments":{{"value":{}1{}}}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    h.client.send(&abyss).await;
    h.client.send(&call(4, "echo", json!({"value": "after"}))).await;
    let refused = h.client.recv().await;
    assert_eq!(refused["error"]["code"], -32700, "the abyss is answered: {refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("nested too deeply"), "{refused}");
    let after = h.client.recv().await;
    assert_eq!(after["id"], 4, "then the next call: {after}");
    let records = disconnect(h).await;
    let outcomes: Vec<&str> = records.iter().map(|(_, o)| o.label()).collect();
    assert_eq!(outcomes, ["failed", "ok", "ok"]);
}

#[tokio::test]
async fn a_timeout_is_an_error_result_the_model_can_read() {
    let mut h = initialized().await;
    h.client.send(&call(1, "stuck", json!({}))).await;
    let timed_out = h.client.recv().await;
    assert_eq!(timed_out["result"]["isError"], true, "{timed_out}");
    let text = timed_out["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("`stuck` did not finish within 50ms and was stopped"), "{text}");
    let records = disconnect(h).await;
    assert_eq!(records, [("stuck".to_string(), Outcome::Failed(toolkit::ErrorKind::TimedOut))]);
}

#[tokio::test]
async fn a_client_cancellation_cancels_the_running_tool() {
    let mut h = initialized().await;
    h.client.send(&call(1, "slow", json!({"ms": 60_000}))).await;
    // Wait until the call is running (the echo after it is answered first: calls run
    // concurrently).
    h.client.send(&call(2, "echo", json!({"value": 1}))).await;
    assert_eq!(h.client.recv().await["id"], 2);
    h.client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user pressed stop"}}"#)
        .await;
    // No answer is due for a cancelled request; the session goes on.
    h.client.send(&call(3, "echo", json!({"value": 3}))).await;
    assert_eq!(h.client.recv().await["id"], 3);
    let cancelled = Arc::clone(&h.cancelled);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !cancelled.load(Ordering::SeqCst) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(cancelled.load(Ordering::SeqCst), "the slow tool was dropped mid-sleep");
    // The cancelled call still has its one record, as `cancelled` (the toolbox's guard
    // delivers it when the call's future is dropped).
    let mut records = disconnect(h).await;
    records.sort_by_key(|(tool, outcome)| (tool.clone(), outcome.label()));
    assert_eq!(
        records,
        [
            ("echo".to_string(), Outcome::Ok),
            ("echo".to_string(), Outcome::Ok),
            ("slow".to_string(), Outcome::Cancelled)
        ]
    );
}

#[tokio::test]
async fn a_client_that_disconnects_mid_call_still_gets_the_call_audited() {
    let mut h = initialized().await;
    // Longer than the 5 s the SDK waits for in-flight responses after a disconnect
    // before it cancels their handlers.
    h.client.send(&call(1, "slow", json!({"ms": 6_000}))).await;
    h.client.send(&call(2, "echo", json!({"value": 1}))).await;
    assert_eq!(h.client.recv().await["id"], 2, "the slow call is running");
    // The client goes away with the slow call in flight: the server lets it finish,
    // records it, and only then returns from `serve`.
    let cancelled = Arc::clone(&h.cancelled);
    let records = disconnect(h).await;
    assert!(!cancelled.load(Ordering::SeqCst), "a disconnect is not a cancellation");
    assert_eq!(records, [("echo".to_string(), Outcome::Ok), ("slow".to_string(), Outcome::Ok)]);
}

#[tokio::test]
async fn a_client_that_leaves_before_saying_anything_is_a_clean_end() {
    let h = start();
    assert!(disconnect(h).await.is_empty());
}

/// One HTTP/1.1 POST on a fresh connection: the status code and the body.
fn http(url: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    http_method("POST", url, path, headers, body)
}

/// One HTTP/1.1 request on a fresh connection: the status code and the body.
fn http_method(method: &str, url: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let authority = url.trim_start_matches("http://").split('/').next().unwrap();
    let mut stream = std::net::TcpStream::connect(authority).expect("connect");
    // `Host` is the server's own authority unless the test gives one.
    let host = headers.iter().find(|(name, _)| *name == "Host").map_or(authority, |(_, value)| *value);
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    for (name, value) in headers.iter().filter(|(name, _)| *name != "Host") {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("receive");
    let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, response.split("\r\n\r\n").nth(1).unwrap_or_default().to_string())
}

#[test]
fn bad_http_requests_get_clear_http_errors_and_the_server_stays_up() {
    let dir = support::scratch("mcp-http-bad");
    let server = support::HttpServer::start(&dir.join("data"), &dir.join("audit.jsonl"));
    let json = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    // A body that is not one JSON-RPC message: 400 with a JSON-RPC error.
    for (bad, code) in [("{this is not json", -32700), (r#"{"jsonrpc":"2.0","id":1,"meth"#, -32700), ("[1, 2]", -32600)]
    {
        let (status, body) = http(&server.url, "/mcp", &json, bad);
        assert_eq!(status, 400, "{bad}: {body}");
        let error: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{body}"));
        assert_eq!(error["error"]["code"], code, "{bad}: {body}");
    }
    // JSON nested past the parser's limit: said so, not "not JSON".
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (status, body) = http(&server.url, "/mcp", &json, &deep);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("-32700") && body.contains("nested too deeply"), "{body}");
    // Bad params of a known method: a JSON-RPC error naming the fault.
    let (status, body) =
        http(&server.url, "/mcp", &json, r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":123}}"#);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("-32602") && body.contains("`name` must be a string"), "{body}");
    // A session that does not exist cannot be deleted.
    let mut session = json.to_vec();
    session.push(("Mcp-Session-Id", "no-such-session"));
    let (status, body) = http_method("DELETE", &server.url, "/mcp", &session, "");
    assert_eq!(status, 404, "{body}");
    // A page from another site cannot call the server from a browser: its `Origin` is
    // refused, as is `Origin: null`; a page on this machine is served.
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    for (origin, expected) in [("http://evil.example", 403), ("null", 403), ("http://localhost:3000", 200)] {
        let mut from = json.to_vec();
        from.push(("Origin", origin));
        let (status, body) = http(&server.url, "/mcp", &from, list);
        assert_eq!(status, expected, "Origin {origin}: {body}");
    }
    let mut wrong_version = json.to_vec();
    wrong_version.push(("MCP-Protocol-Version", "2099-01-01"));
    let (status, body) = http(&server.url, "/mcp", &wrong_version, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("Unsupported MCP-Protocol-Version: 2099-01-01"), "{body}");
    // A page on another site cannot reach a loopback server through DNS rebinding: a
    // request naming a host that is not loopback is refused.
    let mut rebound = json.to_vec();
    rebound.push(("Host", "attacker.example"));
    let (status, body) = http(&server.url, "/mcp", &rebound, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(status, 403, "{body}");
    let (status, body) = http(&server.url, "/elsewhere", &json, "{}");
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("the MCP endpoint is /mcp"), "{body}");
    // Still serving: a well-formed initialize is answered.
    let initialize = INITIALIZE.replace("\"id\":0", "\"id\":1");
    let (status, body) = http(&server.url, "/mcp", &json, &initialize);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"protocolVersion\":\"2025-11-25\""), "{body}");
    assert!(server.stop().success(), "a clean shutdown");
}

#[test]
fn a_host_that_terminates_the_stdio_server_still_gets_the_calls_audited() {
    use std::io::{BufRead, Write};
    let dir = support::scratch("mcp-sigterm");
    let audit = dir.join("audit.jsonl");
    let (mut server, mut stdin, mut stdout) = support::stdio_server(&dir.join("data"), &audit);
    let mut line = String::new();
    writeln!(stdin, "{}", call(1, "get_weather", json!({"location": "Paris"}))).unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("overcast"), "{line}");
    // The host quits: SIGTERM with stdin still open.
    let terminated = std::process::Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    assert!(terminated.is_ok_and(|s| s.success()));
    assert!(server.wait().unwrap().success(), "a clean exit on SIGTERM");
    drop(stdin);
    let lines = support::audit_lines(&audit);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["tool"], "get_weather");
    assert_eq!(lines[0]["outcome"], "ok");
}
