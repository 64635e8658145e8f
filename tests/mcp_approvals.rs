//! Approvals through the host, by raw stateless (2026-07-28) HTTP requests: a deferred
//! call answers `input_required` with a form and a sealed `requestState`; the retry with
//! the answer runs the call once, or blocks it; a forged, altered, replayed or misapplied
//! state is refused; replicas sharing a key and a store accept each other's states and
//! refuse each other's replays. (The official Python client drives the same flow in
//! `tests/mcp_python.rs`.)

mod support;

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolkit::hooks::store::Store;
use toolkit::hooks::{ApprovalGate, MemoryStore};
use toolkit::mcp::{Answer, McpError, McpServer, McpTools, Question};
use toolkit::prelude::*;
use toolkit::{CallRecord, ToolCall, Toolbox};

/// Delete a file.
#[tool(destructive)]
fn delete(path: String) -> String {
    format!("deleted {path}")
}

/// What the tool did, and one `(call id, outcome)` per record.
#[derive(Clone, Default)]
struct Seen {
    records: Arc<Mutex<Vec<(String, String)>>>,
}

impl Seen {
    fn toolbox(&self) -> Toolbox {
        let records = Arc::clone(&self.records);
        toolbox![delete].with_hook(ApprovalGate::deferring().destructive()).with_sink(move |r: &CallRecord| {
            records.lock().unwrap().push((r.call_id.clone(), r.outcome.label().to_owned()));
        })
    }

    fn outcomes(&self) -> Vec<String> {
        self.records.lock().unwrap().iter().map(|(_, o)| o.clone()).collect()
    }
}

/// A server on a free port: its URL, and what stops it.
async fn serve(server: McpServer) -> (String, impl FnOnce()) {
    let http = server.bind_http("127.0.0.1:0").await.unwrap();
    let (url, stop) = (http.url(), http.shutdown_token());
    tokio::spawn(http.run());
    (url, move || stop.cancel())
}

/// One stateless `tools/call` of `delete` by a client that declared form elicitation
/// (or not): the JSON-RPC response.
async fn call(url: &str, mut params: Value, elicitation: bool) -> Value {
    let capabilities = if elicitation { json!({"elicitation": {"form": {}}}) } else { json!({}) };
    params["name"] = json!("delete");
    support::modern_request(url, 7, "tools/call", params, capabilities, &[]).await.1
}

/// The retry of `asked` with `arguments`, the answer and the state.
async fn retry(url: &str, arguments: Value, state: &str, approve: bool) -> Value {
    let answer = json!({"action": "accept", "content": {"approve": approve, "note": "wrong file"}});
    let params = json!({"arguments": arguments, "requestState": state, "inputResponses": {"approval": answer}});
    call(url, params, true).await
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {response}"))
}

fn is_error(response: &Value) -> bool {
    response["result"]["isError"] == true
}

#[tokio::test]
async fn an_approved_call_runs_once_and_a_denied_one_never() {
    let seen = Seen::default();
    let (url, stop) = serve(McpServer::new(seen.toolbox())).await;
    let args = json!({"path": "a.txt"});

    // The first call: input_required, a form about these arguments, a sealed state.
    let asked = call(&url, json!({"arguments": args}), true).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let form = &result["inputRequests"]["approval"];
    assert_eq!(form["method"], "elicitation/create", "{asked}");
    assert_eq!(form["params"]["mode"], "form");
    let message = form["params"]["message"].as_str().unwrap();
    assert!(message.starts_with(r#"Approve `delete` with {"path":"a.txt"}?"#), "{message}");
    assert!(message.contains("it needs a person's approval"), "{message}");
    assert_eq!(form["params"]["requestedSchema"]["properties"]["approve"]["type"], "boolean");
    let state = result["requestState"].as_str().expect("a requestState");
    assert_eq!(seen.outcomes(), ["deferred"], "the deferral has its record");

    // Approved: the tool runs, under the deferred call's id.
    let done = retry(&url, args.clone(), state, true).await;
    assert!(!is_error(&done), "{done}");
    assert_eq!(text(&done), "deleted a.txt");
    let records = seen.records.lock().unwrap().clone();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].0, records[1].0, "one call id for the deferral and the run");
    assert_eq!(records[1].1, "ok");

    // The same answer again: refused, the tool does not run a second time.
    let replay = retry(&url, args.clone(), state, true).await;
    assert!(is_error(&replay), "{replay}");
    assert!(text(&replay).contains("this approval was already used"), "{replay}");
    assert_eq!(seen.outcomes(), ["deferred", "ok", "blocked"]);

    // Another call, denied: the model reads the person's note; the tool never runs.
    let asked = call(&url, json!({"arguments": {"path": "b.txt"}}), true).await;
    let state = asked["result"]["requestState"].as_str().unwrap();
    let denied = retry(&url, json!({"path": "b.txt"}), state, false).await;
    assert!(is_error(&denied), "{denied}");
    assert_eq!(text(&denied), "blocked: the user rejected this call: wrong file");
    assert_eq!(seen.outcomes(), ["deferred", "ok", "blocked", "deferred", "blocked"]);
    stop();
}

#[tokio::test]
async fn a_forged_altered_or_misapplied_state_is_refused_and_nothing_runs() {
    let seen = Seen::default();
    let (url, stop) = serve(McpServer::new(seen.toolbox())).await;
    let asked = call(&url, json!({"arguments": {"path": "a.txt"}}), true).await;
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();

    let mut altered = state.clone();
    let last = altered.pop().unwrap();
    altered.push(if last == 'x' { 'y' } else { 'x' });
    let refusals = [
        // The approved state with other arguments: a decision holds for what was shown.
        retry(&url, json!({"path": "/etc/passwd"}), &state, true).await,
        retry(&url, json!({"path": "a.txt"}), &altered, true).await,
        retry(&url, json!({"path": "a.txt"}), "rs1.e30.AAAA", true).await,
        // An answer with no state at all.
        call(&url, json!({"arguments": {"path": "a.txt"}, "inputResponses": {"approval": {"action": "accept"}}}), true)
            .await,
    ];
    for refused in &refusals {
        assert!(is_error(refused), "{refused}");
        assert!(text(refused).starts_with("blocked: not run: "), "{refused}");
    }
    assert!(text(&refusals[0]).contains("not one this server issued"), "{}", refusals[0]);
    assert!(text(&refusals[3]).contains("no `requestState`"), "{}", refusals[3]);
    assert_eq!(seen.outcomes(), ["deferred", "blocked", "blocked", "blocked", "blocked"], "every refusal is recorded");

    // The state itself is still good for the call it was made for.
    let done = retry(&url, json!({"path": "a.txt"}), &state, true).await;
    assert_eq!(text(&done), "deleted a.txt");
    stop();
}

#[tokio::test]
async fn a_client_that_cannot_be_asked_gets_the_deferral_and_nothing_runs() {
    let seen = Seen::default();
    let (url, stop) = serve(McpServer::new(seen.toolbox())).await;
    let response = call(&url, json!({"arguments": {"path": "a.txt"}}), false).await;
    assert!(is_error(&response), "{response}");
    assert!(response["result"].get("resultType").is_none_or(|t| t == "complete"), "{response}");
    let message = text(&response);
    assert!(message.starts_with("deferred: it needs a person's approval"), "{message}");
    assert!(message.contains("cannot ask a person"), "{message}");
    assert_eq!(seen.outcomes(), ["deferred"]);
    stop();
}

#[tokio::test]
async fn replicas_with_one_key_and_store_share_approvals_and_refuse_replays() {
    let key = b"a 32-byte key shared by replicas".to_vec();
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (a, b) = (Seen::default(), Seen::default());
    let replica = |seen: &Seen| {
        McpServer::new(seen.toolbox()).with_approval_key(key.clone()).unwrap().with_approval_store(Arc::clone(&store))
    };
    let (url_a, stop_a) = serve(replica(&a)).await;
    let (url_b, stop_b) = serve(replica(&b)).await;

    let asked = call(&url_a, json!({"arguments": {"path": "a.txt"}}), true).await;
    let state = asked["result"]["requestState"].as_str().unwrap();
    // Answered at the other replica: it runs there.
    assert_eq!(text(&retry(&url_b, json!({"path": "a.txt"}), state, true).await), "deleted a.txt");
    // Replayed at the first: refused.
    let replay = retry(&url_a, json!({"path": "a.txt"}), state, true).await;
    assert!(text(&replay).contains("already used"), "{replay}");
    assert_eq!(a.outcomes(), ["deferred", "blocked"]);
    assert_eq!(b.outcomes(), ["ok"]);

    // A server with a key of its own refuses the replicas' states.
    let stranger = Seen::default();
    let (url_c, stop_c) = serve(McpServer::new(stranger.toolbox())).await;
    let asked = call(&url_a, json!({"arguments": {"path": "c.txt"}}), true).await;
    let state = asked["result"]["requestState"].as_str().unwrap();
    let refused = retry(&url_c, json!({"path": "c.txt"}), state, true).await;
    assert!(text(&refused).contains("not one this server issued"), "{refused}");
    stop_a();
    stop_b();
    stop_c();
}

#[test]
fn a_short_approval_key_is_refused() {
    let refused = McpServer::new(Toolbox::new()).with_approval_key(b"too short".to_vec());
    let Err(McpError::Config(message)) = refused else { panic!("accepted a 9-byte key") };
    assert!(message.contains("at least 32 bytes"), "{message}");
}

/// `McpTools` answering the server's questions: the person at this end approves one
/// call of an imported tool and declines another; a client with nobody to ask gets the
/// server's refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_tools_approval_is_asked_of_the_client_and_its_answer_decides() {
    let seen = Seen::default();
    let (url, stop) = serve(McpServer::new(seen.toolbox())).await;
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = Arc::clone(&asked);
    let remote = McpTools::connect_http_answering(&url, move |question: Question| {
        log.lock().unwrap().push(question.message.clone());
        let keep = question.message.contains("keep.txt");
        assert_eq!(question.schema["properties"]["approve"]["type"], "boolean", "{:?}", question.schema);
        async move {
            if keep {
                Answer::Decline
            } else {
                Answer::Accept([("approve".to_owned(), json!(true))].into_iter().collect())
            }
        }
    })
    .await
    .unwrap();
    let mut tools = Toolbox::new();
    remote.add_to(&mut tools).unwrap();
    let done = tools.call(ToolCall::new("1", "delete", r#"{"path": "a.txt"}"#)).await;
    assert_eq!(done.content, "deleted a.txt", "{done:?}");
    let declined = tools.call(ToolCall::new("2", "delete", r#"{"path": "keep.txt"}"#)).await;
    assert!(declined.is_error(), "{declined:?}");
    assert!(declined.content.contains("blocked: the user rejected this call"), "{declined:?}");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked[0].starts_with(r#"Approve `delete` with {"path":"a.txt"}?"#), "{asked:?}");
    assert_eq!(seen.outcomes(), ["deferred", "ok", "deferred", "blocked"]);

    // Nobody to ask at this end: the server refuses the call, saying why.
    let plain = McpTools::connect_http(&url).await.unwrap();
    let mut tools = Toolbox::new();
    plain.add_to(&mut tools).unwrap();
    let refused = tools.call(ToolCall::new("3", "delete", r#"{"path": "a.txt"}"#)).await;
    assert!(refused.content.contains("cannot ask a person"), "{refused:?}");
    remote.close().await;
    plain.close().await;
    stop();
}
