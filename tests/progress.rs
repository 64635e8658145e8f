//! Progress from inside a running tool: to an MCP client that asked for it
//! (`notifications/progress`, rate-limited, the last always sent, before the result), to
//! an agent's events, and nowhere otherwise.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolkit::agent::{Agent, AgentEvent};
use toolkit::mcp::McpServer;
use toolkit::prelude::*;

/// Count to `n`, one step every `ms` milliseconds, reporting each step.
#[tool]
async fn count(#[context] cx: &CallContext<'_>, n: u32, ms: u64) -> String {
    for i in 1..=n {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        cx.progress(f64::from(i), Some(f64::from(n)), &format!("step {i}"));
    }
    format!("counted to {n}")
}

#[tokio::test]
async fn an_mcp_client_that_asks_gets_progress_before_the_result_at_most_ten_a_second() {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server);
    let serving = tokio::spawn(McpServer::new(toolbox![count]).serve(read, write));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let mut send = async |message: Value| {
        client_write.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})).await;
    lines.next_line().await.unwrap();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;

    // 30 steps 10 ms apart (about 300 ms), with a progress token.
    let params = json!({"name": "count", "arguments": {"n": 30, "ms": 10}, "_meta": {"progressToken": "p1"}});
    let started = std::time::Instant::now();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})).await;
    let mut notes = Vec::new();
    let result = loop {
        let message: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        if message["method"] == "notifications/progress" {
            notes.push(message["params"].clone());
        } else {
            break message;
        }
    };
    assert_eq!(result["id"], 1);
    assert_eq!(result["result"]["content"][0]["text"], "counted to 30");
    assert!(notes.iter().all(|n| n["progressToken"] == "p1" && n["total"] == 30.0), "{notes:?}");
    // Rate-limited: at most one per 100 ms (and the last), however slow the machine;
    // and the last one is the last step.
    let allowed = started.elapsed().as_millis() as usize / 100 + 2;
    assert!((2..=allowed).contains(&notes.len()), "{} notifications, {allowed} allowed: {notes:?}", notes.len());
    assert_eq!(notes.last().unwrap()["progress"], 30.0);
    assert_eq!(notes.last().unwrap()["message"], "step 30");
    let done: Vec<f64> = notes.iter().map(|n| n["progress"].as_f64().unwrap()).collect();
    assert!(done.windows(2).all(|w| w[0] < w[1]), "progress only grows: {done:?}");

    // Without a token: no notification, the result alone.
    let params = json!({"name": "count", "arguments": {"n": 3, "ms": 1}});
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})).await;
    let message: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(message["id"], 2, "{message}");
    drop(client_write);
    drop(lines);
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn an_agent_reports_every_step_to_its_events_and_its_stream() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let events = Arc::clone(&seen);
    let model = ScriptedModel::new([Turn::call("count", r#"{"n": 5, "ms": 1}"#), Turn::text("done")]);
    let agent = Agent::builder(model, toolbox![count])
        .on_event(move |event| {
            if let AgentEvent::ToolProgress { report } = event {
                events.lock().unwrap().push((
                    report.tool.to_owned(),
                    report.done,
                    report.total,
                    report.message.to_owned(),
                ));
            }
        })
        .build()
        .unwrap();
    agent.run("count to five").await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 5);
    assert_eq!(seen[4], ("count".to_owned(), 5.0, Some(5.0), "step 5".to_owned()));

    // A run without a watcher pays nothing and sees nothing; a streamed run gets them.
    use futures_util::StreamExt;
    let model = ScriptedModel::new([Turn::call("count", r#"{"n": 3, "ms": 1}"#), Turn::text("done")]);
    let agent = Agent::builder(model, toolbox![count]).build().unwrap();
    let steps: Vec<f64> = agent
        .run_stream("count to three")
        .filter_map(|event| async move {
            match event {
                toolkit::agent::RunEvent::ToolProgress { done, .. } => Some(done),
                _ => None,
            }
        })
        .collect()
        .await;
    assert_eq!(steps, [1.0, 2.0, 3.0]);
}

/// A step driven by an engine (`Agent::call_step`, as `toolkit-temporal` does) gets the
/// scope a run gives its calls: progress to `on_event`, a record, and a block with its
/// reason when the step says so.
#[tokio::test]
async fn a_step_an_engine_drives_reports_progress_and_blocks_like_a_run() {
    let seen = Arc::new(Mutex::new(0));
    let events = Arc::clone(&seen);
    let agent = Agent::builder(ScriptedModel::new([]), toolbox![count])
        .name("counter")
        .on_event(move |event| {
            if let AgentEvent::ToolProgress { .. } = event {
                *events.lock().unwrap() += 1;
            }
        })
        .build()
        .unwrap();
    let call = ToolCall::new("call_1", "count", r#"{"n": 4, "ms": 1}"#);
    let step = agent.call_step(call.clone(), &toolkit::agent::Step::new("run-1", "session-1")).await;
    assert_eq!(step.result.content, "counted to 4");
    assert_eq!(*seen.lock().unwrap(), 4);
    let record = step.record.expect("a record");
    assert_eq!((record.session.as_deref(), record.agent.as_deref()), (Some("session-1"), Some("counter")));

    let blocked = agent.call_step(call, &toolkit::agent::Step::new("run-1", "session-1").block("not now")).await;
    assert_eq!(blocked.result.content, "blocked: not now");
    assert_eq!(blocked.record.expect("a record too").outcome, toolkit::Outcome::Blocked);
    assert_eq!(*seen.lock().unwrap(), 4, "the blocked call never ran");
}
