//! MCP tasks (`io.modelcontextprotocol/tasks`, 2026-07-28) kept in a store, by raw
//! stateless HTTP requests and a raw stdio session (the official Python client has no
//! call for tasks): a task tool's call answers with a task whose result `tasks/get`
//! returns; `tasks/cancel` stops the tool; a deferred call waits as `input_required` and
//! `tasks/update` answers it; replicas sharing a store (memory, and a real Redis) answer
//! each other's tasks, a restarted server still does, and a task whose server died reads
//! as failed; a stdio client hears `notifications/tasks`.

#[path = "../examples/support/redis_server.rs"]
mod redis_server;
mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolkit::hooks::store::Store;
use toolkit::hooks::{ApprovalGate, MemoryStore, RedisStore};
use toolkit::mcp::McpServer;
use toolkit::prelude::*;
use toolkit::{CallRecord, Toolbox};

/// Write a report; takes `millis` milliseconds.
#[tool]
async fn report(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("report ready after {millis} ms")
}

/// Delete a file.
#[tool(destructive)]
fn delete(path: String) -> String {
    format!("deleted {path}")
}

/// The outcomes of the toolbox's records.
type Outcomes = Arc<Mutex<Vec<String>>>;

fn server(store: &Arc<dyn Store>) -> (McpServer, Outcomes) {
    let outcomes = Outcomes::default();
    let seen = Arc::clone(&outcomes);
    let tools: Toolbox = toolbox![report, delete]
        .with_hook(ApprovalGate::deferring().destructive())
        .with_sink(move |r: &CallRecord| seen.lock().unwrap().push(r.outcome.label().to_owned()));
    (McpServer::new(tools).with_tasks(Arc::clone(store), ["report", "delete"]), outcomes)
}

async fn serve(server: McpServer) -> (String, impl FnOnce()) {
    let http = server.bind_http("127.0.0.1:0").await.unwrap();
    let (url, stop) = (http.url(), http.shutdown_token());
    tokio::spawn(http.run());
    (url, move || stop.cancel())
}

/// One stateless request from a client that declared the tasks extension (or not): the
/// JSON-RPC response.
async fn request(url: &str, method: &str, params: Value, tasks: bool) -> Value {
    let capabilities = if tasks { json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}) } else { json!({}) };
    support::modern_request(url, 1, method, params, capabilities, &[]).await.1
}

async fn call(url: &str, tool: &str, arguments: Value) -> Value {
    request(url, "tools/call", json!({"name": tool, "arguments": arguments}), true).await
}

async fn get(url: &str, task: &str) -> Value {
    request(url, "tasks/get", json!({"taskId": task}), true).await
}

/// Polls `tasks/get` until the task's status is not `working` (30 s at most).
async fn settled(url: &str, task: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = get(url, task).await;
        if got["result"]["status"] != "working" || Instant::now() > deadline {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn task_id(created: &Value) -> String {
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("no taskId: {created}")).to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_tools_call_is_a_task_whose_result_tasks_get_returns() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (server, outcomes) = server(&store);
    let (url, stop) = serve(server).await;

    let created = call(&url, "report", json!({"millis": 300})).await;
    let id = task_id(&created);
    assert_eq!(created["result"]["status"], "working");
    assert_eq!(created["result"]["pollIntervalMs"], 1000);
    assert_eq!(created["result"]["ttlMs"], 3_600_000);
    let working = get(&url, &id).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    let done = settled(&url, &id).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["content"][0]["text"], "report ready after 300 ms");
    assert_eq!(done["result"]["result"]["isError"], false);

    // A client that does not take tasks gets the result itself.
    let plain = request(&url, "tools/call", json!({"name": "report", "arguments": {"millis": 1}}), false).await;
    assert_eq!(plain["result"]["content"][0]["text"], "report ready after 1 ms", "{plain}");
    // An unknown task is an error naming it.
    let unknown = get(&url, "task-nope").await;
    assert!(unknown["error"]["message"].as_str().unwrap().contains("unknown task `task-nope`"), "{unknown}");
    assert_eq!(*outcomes.lock().unwrap(), ["ok", "ok"]);
    stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_cancel_stops_the_running_tool() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (server, outcomes) = server(&store);
    let (url, stop) = serve(server).await;
    let id = task_id(&call(&url, "report", json!({"millis": 60_000})).await);
    let ack = request(&url, "tasks/cancel", json!({"taskId": id}), true).await;
    assert!(ack.get("error").is_none(), "{ack}");
    assert_eq!(get(&url, &id).await["result"]["status"], "cancelled");
    // The tool's future was dropped: its record says so, long before its 60 s.
    let deadline = Instant::now() + Duration::from_secs(10);
    while outcomes.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(*outcomes.lock().unwrap(), ["cancelled"]);
    // Cancelling an ended task changes nothing.
    request(&url, "tasks/cancel", json!({"taskId": id}), true).await;
    assert_eq!(get(&url, &id).await["result"]["status"], "cancelled");
    stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_call_waits_as_input_required_and_tasks_update_answers_it_once() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (server, outcomes) = server(&store);
    let (url, stop) = serve(server).await;
    let id = task_id(&call(&url, "delete", json!({"path": "a.txt"})).await);
    let waiting = settled(&url, &id).await;
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");
    let form = &waiting["result"]["inputRequests"]["approval"];
    assert!(form["params"]["message"].as_str().unwrap().starts_with(r#"Approve `delete` with {"path":"a.txt"}?"#));

    let answer = json!({"approval": {"action": "accept", "content": {"approve": true}}});
    let ack = request(&url, "tasks/update", json!({"taskId": id, "inputResponses": answer}), true).await;
    assert!(ack.get("error").is_none(), "{ack}");
    let again = request(&url, "tasks/update", json!({"taskId": id, "inputResponses": answer}), true).await;
    assert!(again["error"]["message"].as_str().is_some(), "a second answer is refused: {again}");
    let done = settled(&url, &id).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["content"][0]["text"], "deleted a.txt");
    assert_eq!(*outcomes.lock().unwrap(), ["deferred", "ok"], "the tool ran once");
    stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_tasks_a_restart_keeps_them_and_a_dead_servers_task_fails() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (url_a, stop_a) = serve(server(&store).0).await;
    let (url_b, stop_b) = serve(server(&store).0).await;
    let id = task_id(&call(&url_a, "report", json!({"millis": 50})).await);
    let done = settled(&url_b, &id).await;
    assert_eq!(done["result"]["status"], "completed", "answered by the other replica: {done}");
    stop_a();
    // A server started later on the same store still answers.
    let (url_c, stop_c) = serve(server(&store).0).await;
    assert_eq!(get(&url_c, &id).await["result"]["result"]["content"][0]["text"], "report ready after 50 ms");

    // A server that dies mid-task (its runtime dropped: no code of its runs again).
    let doomed = tokio::runtime::Runtime::new().unwrap();
    let doomed_server = server(&store).0;
    let (url_d, _stop_d) = doomed.spawn(serve(doomed_server)).await.unwrap();
    let id = task_id(&call(&url_d, "report", json!({"millis": 60_000})).await);
    doomed.shutdown_background();
    let failed = settled(&url_b, &id).await;
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    let message = failed["result"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("may or may not have taken effect"), "{message}");
    stop_b();
    stop_c();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_on_one_redis_answer_each_others_tasks() {
    let Some(redis) = redis_server::RedisServer::start_or_skip("MCP tasks on Redis") else { return };
    let shared = || -> Arc<dyn Store> { Arc::new(RedisStore::open(&redis.url()).unwrap()) };
    let (server_a, outcomes_a) = server(&shared());
    let (url_a, stop_a) = serve(server_a).await;
    let (url_b, stop_b) = serve(server(&shared()).0).await;
    let id = task_id(&call(&url_a, "report", json!({"millis": 50})).await);
    let done = settled(&url_b, &id).await;
    assert_eq!(done["result"]["result"]["content"][0]["text"], "report ready after 50 ms", "{done}");
    // Cancelled at one replica while it runs at the other: the record says so at once,
    // and the running replica drops the tool at its next lease renewal (2 s), long
    // before its 60 s.
    let id = task_id(&call(&url_a, "report", json!({"millis": 60_000})).await);
    request(&url_b, "tasks/cancel", json!({"taskId": id}), true).await;
    assert_eq!(get(&url_a, &id).await["result"]["status"], "cancelled");
    let deadline = Instant::now() + Duration::from_secs(20);
    while outcomes_a.lock().unwrap().len() < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(*outcomes_a.lock().unwrap(), ["ok", "cancelled"], "the other replica stopped the tool");
    stop_a();
    stop_b();
}

#[tokio::test]
async fn a_stdio_client_hears_the_task_end() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(server(&store).0.serve(server_read, server_write));
    let (read, mut write) = tokio::io::split(client_end);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "report", "arguments": {"millis": 20}, "_meta": meta}});
    write.write_all(format!("{call}\n").as_bytes()).await.unwrap();
    let mut lines = BufReader::new(read).lines();
    let mut heard = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while let Ok(Ok(Some(line))) = tokio::time::timeout_at(deadline, lines.next_line()).await {
        let message: Value = serde_json::from_str(&line).unwrap();
        let done = message["method"] == "notifications/tasks" && message["params"]["status"] == "completed";
        heard.push(message);
        if done {
            break;
        }
    }
    assert_eq!(heard[0]["result"]["resultType"], "task", "{heard:?}");
    let last = heard.last().unwrap();
    assert_eq!(last["method"], "notifications/tasks", "{heard:?}");
    assert_eq!(last["params"]["taskId"], heard[0]["result"]["taskId"]);
    assert_eq!(last["params"]["result"]["content"][0]["text"], "report ready after 20 ms");
}
