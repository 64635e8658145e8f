//! Header parameters (MCP 2026-07-28, `Mcp-Param-*`): `#[arg(header = "...")]` publishes
//! `x-mcp-header`; the official Python client mirrors the arguments into headers and the
//! HTTP server serves the call; a request whose header is missing or disagrees with its
//! argument is refused before any tool runs. Other providers' schemas do not carry it.

mod support;

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use support::python_client;
use toolkit::mcp::McpServer;
use toolkit::prelude::*;
use toolkit::{CallRecord, Target};

/// The forecast for a region.
#[tool(read_only)]
fn forecast(
    /// The region, for example "eu-west".
    #[arg(header = "Region")]
    region: String,
    /// How many days ahead.
    #[arg(header = "Days")]
    days: Option<u8>,
    /// Any note (not a header).
    note: Option<String>,
) -> String {
    format!("{region}: sunny for {} days{}", days.unwrap_or(1), note.map(|n| format!(" ({n})")).unwrap_or_default())
}

/// A server on a free port, its URL, the tools' records, and the runtime it runs on.
fn serve() -> (tokio::runtime::Runtime, String, Arc<Mutex<Vec<String>>>) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let records = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&records);
    let tools = toolbox![forecast].with_sink(move |r: &CallRecord| seen.lock().unwrap().push(r.content.clone()));
    let http = runtime.block_on(McpServer::new(tools).bind_http("127.0.0.1:0")).unwrap();
    let url = http.url();
    runtime.spawn(http.run());
    (runtime, url, records)
}

#[test]
fn the_schema_names_the_headers_for_mcp_only() {
    let spec = toolbox![forecast].spec("forecast").unwrap().clone();
    let mcp = spec.export(Target::Mcp);
    assert_eq!(mcp["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region");
    assert_eq!(mcp["inputSchema"]["properties"]["days"]["x-mcp-header"], "Days");
    // One type name (clients drop a tool whose header parameter has a list of types).
    assert_eq!(mcp["inputSchema"]["properties"]["days"]["type"], "integer");
    assert!(mcp["inputSchema"]["properties"]["note"].get("x-mcp-header").is_none());
    for target in [Target::OpenAiChat, Target::OpenAiChatStrict, Target::Anthropic, Target::Gemini] {
        assert!(!spec.export(target).to_string().contains("x-mcp-header"), "{target:?}");
    }
}

#[test]
fn a_legacy_client_sends_no_headers_and_is_served() {
    let (_runtime, url, records) = serve();
    let calls = json!([["forecast", {"region": "eu-west", "days": 3}]]);
    let Some(report) = python_client("legacy", &calls, &["--url".to_owned(), url]) else { return };
    assert_eq!(report["protocol_version"], "2025-11-25");
    assert_eq!(report["calls"][0]["result"]["content"][0]["text"], "eu-west: sunny for 3 days", "{report}");
    assert_eq!(records.lock().unwrap().len(), 1);
}

#[test]
fn the_official_client_sends_the_headers_and_is_served() {
    let (_runtime, url, records) = serve();
    let calls = json!([["forecast", {"region": "eu-west", "days": 3}], ["forecast", {"region": "ap-south"}]]);
    let Some(report) = python_client("modern", &calls, &["--url".to_owned(), url]) else { return };
    assert_eq!(report["protocol_version"], "2026-07-28");
    let tool = &report["tools"][0];
    assert_eq!(tool["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region", "kept by the client: {tool}");
    let texts: Vec<&str> = report["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["result"]["content"][0]["text"].as_str().unwrap())
        .collect();
    // Served: so the headers came, and agreed (the next test shows a call without them
    // is refused).
    assert_eq!(texts, ["eu-west: sunny for 3 days", "ap-south: sunny for 1 days"]);
    assert_eq!(records.lock().unwrap().len(), 2);
}

/// One stateless `tools/call` of `forecast` with `arguments` and these extra headers.
async fn call(url: &str, arguments: Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let params = json!({"name": "forecast", "arguments": arguments});
    support::modern_request(url, 1, "tools/call", params, json!({}), headers).await
}

#[test]
fn a_header_that_is_missing_or_disagrees_is_refused_before_the_tool_runs() {
    let (runtime, url, records) = serve();
    runtime.block_on(async {
        let ok = call(
            &url,
            json!({"region": "eu-west", "days": 2}),
            &[("Mcp-Param-Region", "eu-west"), ("Mcp-Param-Days", "2")],
        )
        .await;
        assert_eq!(ok.0, 200, "{}", ok.1);
        assert_eq!(ok.1["result"]["content"][0]["text"], "eu-west: sunny for 2 days", "{}", ok.1);

        let cases = [
            (json!({"region": "eu-west"}), vec![], "missing Mcp-Param-Region"),
            (json!({"region": "eu-west"}), vec![("Mcp-Param-Region", "us-east")], "does not match"),
            (
                json!({"region": "eu-west", "days": 2}),
                vec![("Mcp-Param-Region", "eu-west"), ("Mcp-Param-Days", "20")],
                "does not match",
            ),
            (
                json!({"region": "eu-west"}),
                vec![("Mcp-Param-Region", "eu-west"), ("Mcp-Param-Days", "2")],
                "unexpected Mcp-Param-Days",
            ),
        ];
        for (arguments, headers, expected) in cases {
            let (status, body) = call(&url, arguments.clone(), &headers).await;
            assert_eq!(status, 400, "{arguments} {headers:?}: {body}");
            assert!(body.to_string().contains(expected), "{arguments} {headers:?}: {body}");
        }
    });
    assert_eq!(records.lock().unwrap().len(), 1, "only the agreeing call reached the toolbox");
}
