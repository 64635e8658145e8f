//! `McpTools` imports the tools of an MCP server (here our own example server, over
//! stdio) into a toolbox, where the toolbox's hooks govern them like local tools.

mod support;

use std::sync::{Arc, Mutex};

use support::{example, scratch};
use toolkit::mcp::McpTools;
use toolkit::prelude::*;
use toolkit::{CallRecord, ErrorKind, Outcome, Target, Toolbox, hook};

/// Remote reads are not allowed in this toolbox, whatever the server permits.
#[hook(before, matching = "ex_read_*")]
fn no_remote_reads(_call: &mut BeforeCall<'_>) -> Decision {
    Decision::Block("reading remote files is disabled in this agent".into())
}

async fn connect(name: &str) -> McpTools {
    let dir = scratch(name);
    let mut command = tokio::process::Command::new(example("mcp_server"));
    command.arg("--data").arg(dir.join("data")).arg("--audit").arg(dir.join("audit.jsonl"));
    command.env("RUST_LOG", "error");
    McpTools::connect_stdio(command).await.expect("connects to the example server")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imported_tools_run_remotely_under_local_hooks() {
    let remote = connect("mcp-client").await.with_prefix("ex_");
    let records = Arc::new(Mutex::new(Vec::<(String, Outcome)>::new()));
    let seen = Arc::clone(&records);
    let mut tools = Toolbox::new()
        .with_hook(no_remote_reads::hook())
        .with_sink(move |r: &CallRecord| seen.lock().unwrap().push((r.tool.clone(), r.outcome)));
    assert_eq!(remote.add_to(&mut tools).expect("names are free"), 5);
    assert_eq!(tools.names(), ["ex_read_file", "ex_list_files", "ex_current_time", "ex_get_weather", "ex_write_file"]);

    // Schemas and annotations pass through unchanged.
    let weather = tools.spec("ex_get_weather").unwrap();
    assert_eq!(weather.input_schema, serde_json::Value::Object((*remote.tools()[3].input_schema).clone()));
    assert!(weather.output_schema.is_some());
    assert!(weather.annotations.read_only && weather.annotations.open_world && !weather.annotations.destructive);
    tools.validate(Target::Anthropic).expect("Anthropic takes the imported schemas");

    // A remote call that works, with the server's hooks (its sandbox) on its side...
    let ok = tools.call(ToolCall::new("1", "ex_get_weather", r#"{"location":"Paris"}"#)).await;
    assert!(!ok.is_error(), "{ok:?}");
    assert!(ok.content.contains(r#""conditions":"overcast""#), "{}", ok.content);
    let listed = tools.call(ToolCall::new("2", "ex_list_files", r#"{"path":"."}"#)).await;
    assert!(listed.content.contains("report.md"), "{}", listed.content);
    let outside = tools.call(ToolCall::new("3", "ex_list_files", r#"{"path":"/etc"}"#)).await;
    assert_eq!(outside.kind(), Some(ErrorKind::ToolFailed), "{outside:?}");
    assert!(outside.content.contains("outside the allowed directories"), "{}", outside.content);

    // ...and a local hook blocking an imported tool before anything is sent.
    let blocked = tools.call(ToolCall::new("4", "ex_read_file", r#"{"path":"report.md"}"#)).await;
    assert_eq!(blocked.kind(), Some(ErrorKind::Blocked));
    assert_eq!(blocked.content, "blocked: reading remote files is disabled in this agent");

    // A remote tool error is a failed call with the server's text.
    let unknown_city = tools.call(ToolCall::new("5", "ex_get_weather", r#"{"location":"Atlantis"}"#)).await;
    assert_eq!(unknown_city.kind(), Some(ErrorKind::ToolFailed));
    assert!(unknown_city.content.contains("no weather data for `Atlantis`"), "{}", unknown_city.content);

    let outcomes = records.lock().unwrap().clone();
    assert_eq!(
        outcomes,
        [
            ("ex_get_weather".into(), Outcome::Ok),
            ("ex_list_files".into(), Outcome::Ok),
            ("ex_list_files".into(), Outcome::Failed(ErrorKind::ToolFailed)),
            ("ex_read_file".into(), Outcome::Blocked),
            ("ex_get_weather".into(), Outcome::Failed(ErrorKind::ToolFailed)),
        ]
    );
    remote.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_connection_makes_imported_tools_unavailable_not_panicking() {
    let remote = connect("mcp-client-closed").await;
    let mut tools = Toolbox::new();
    remote.add_to(&mut tools).unwrap();
    let again = connect("mcp-client-dup").await;
    let taken = again.add_to(&mut tools).unwrap_err();
    assert!(taken.to_string().contains("`read_file` is already in this toolbox"), "{taken}");
    again.close().await;
    remote.close().await;
    let r = tools.call(ToolCall::new("1", "current_time", "{}")).await;
    assert_eq!(r.kind(), Some(ErrorKind::Unavailable), "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_import_over_streamable_http_too() {
    let dir = scratch("mcp-client-http");
    let server = support::HttpServer::start(&dir.join("data"), &dir.join("audit.jsonl"));
    let remote = McpTools::connect_http(&server.url).await.expect("connects over HTTP");
    let mut tools = Toolbox::new();
    assert_eq!(remote.add_to(&mut tools).unwrap(), 5);
    let weather = tools.call(ToolCall::new("1", "get_weather", r#"{"location":"Beijing","unit":"fahrenheit"}"#)).await;
    assert!(weather.content.contains(r#""temperature":71.6"#), "{weather:?}");
    remote.close().await;
    assert!(server.stop().success());
}

/// Every client's first `tools/call` has JSON-RPC id 0 or 1: the records must still tell
/// the calls apart (a call id unique to the server) and say whose they were (the MCP
/// session over HTTP).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_of_different_clients_have_their_own_call_ids_and_sessions() {
    let dir = scratch("mcp-client-ids");
    let audit = dir.join("audit.jsonl");
    let server = support::HttpServer::start(&dir.join("data"), &audit);
    for _ in 0..2 {
        let remote = McpTools::connect_http(&server.url).await.expect("connects over HTTP");
        let mut tools = Toolbox::new();
        remote.add_to(&mut tools).unwrap();
        let r = tools.call(ToolCall::new("1", "get_weather", r#"{"location":"Beijing"}"#)).await;
        assert!(!r.is_error(), "{r:?}");
        remote.close().await;
    }
    assert!(server.stop().success());
    let text = std::fs::read_to_string(&audit).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_ne!(lines[0]["call_id"], lines[1]["call_id"], "{text}");
    for line in &lines {
        assert!(line["call_id"].as_str().unwrap().starts_with("mcp-"), "{text}");
        assert!(line["session"].is_string(), "a session label: {text}");
    }
    assert_ne!(lines[0]["session"], lines[1]["session"], "each client its own session: {text}");
}

/// `tests/mcp/odd_server.py` in one of its modes (needs `python3`, which CI has).
async fn odd_server(mode: &str) -> Result<McpTools, toolkit::mcp::McpError> {
    let mut command = tokio::process::Command::new("python3");
    command.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/odd_server.py")).arg(mode);
    McpTools::connect_stdio(command).await
}

/// A server whose tool list pages without end is refused with the reason, rather than
/// followed for ever while the list grows (before, connecting never returned).
#[tokio::test]
async fn a_tool_list_that_pages_without_end_is_refused() {
    let same = odd_server("same-cursor").await.unwrap_err().to_string();
    assert!(same.contains("the server gave the cursor `x` twice"), "{same}");
    let endless = odd_server("endless").await.unwrap_err().to_string();
    assert!(endless.contains("went on past 100 pages"), "{endless}");
}

/// Remote names that come out the same once made acceptable (`a.b`, `a_b`, `a b`) are
/// told apart, and an empty one gets a name: every tool is added and calls the right
/// remote tool (before, the second was refused after the first was added).
#[tokio::test]
async fn remote_names_that_clash_once_cleaned_are_told_apart_and_all_added() {
    let remote = odd_server("clashing").await.expect("connects");
    let mut tools = Toolbox::new();
    assert_eq!(remote.add_to(&mut tools).expect("every tool is added"), 4);
    assert_eq!(tools.names(), ["a_b", "a_b_2", "a_b_3", "tool"]);
    let answer = tools.call(ToolCall::new("1", "a_b_3", "{}")).await;
    assert_eq!(answer.content, "called 'a b'");
}

/// A server's tools imported deferred: the toolbox gains `search_tools`, which finds
/// them by what they do; they still run remotely when called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_imported_deferred_are_found_by_search() {
    let remote = connect("mcp-client-deferred")
        .await
        .with_prefix("ex_")
        .with_deferred(true)
        .with_namespace("example", "The example server: files, weather and notes.");
    let mut tools = Toolbox::new();
    let imported = remote.add_to(&mut tools).expect("names are free");
    assert!(tools.has_deferred() && tools.is_deferred("ex_get_weather"));
    assert_eq!(tools.namespaces()[0].tools().len(), imported, "every imported tool is in the namespace");
    assert_eq!(tools.namespace_of("ex_get_weather").map(|ns| ns.name()), Some("example"));
    assert!(tools.spec("search_tools").unwrap().description.contains("\n- example: The example server"));
    // A second import into the same namespace is refused whole.
    let again = connect("mcp-client-deferred-2").await.with_prefix("ex2_").with_namespace("example", "again");
    let before = tools.len();
    assert_eq!(
        again.add_to(&mut tools).unwrap_err().to_string(),
        "a namespace named `example` is already in this toolbox"
    );
    assert_eq!(tools.len(), before, "no tool was added");
    assert_eq!(tools.names()[1], toolkit::search::SEARCH_TOOLS, "with the first deferred tool");
    let found = tools.call(ToolCall::new("1", "search_tools", r#"{"query": "weather forecast", "limit": 1}"#)).await;
    let found: serde_json::Value = serde_json::from_str(&found.content).unwrap();
    assert_eq!(found["tools"][0]["name"], "ex_get_weather", "{found}");
    assert_eq!(found["tools"][0]["namespace"], "example", "{found}");
    let ok = tools.call(ToolCall::new("2", "ex_get_weather", r#"{"location":"Paris"}"#)).await;
    assert!(ok.content.contains(r#""conditions":"overcast""#), "{}", ok.content);
}
