//! The example MCP server (`examples/mcp_server.rs`) driven by the official Python client
//! (`mcp` on PyPI, pinned in `tests/mcp/requirements.txt`), in both protocol eras, over
//! stdio and over streamable HTTP: what any MCP host would see.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{HttpServer, audit_lines, python_client, scratch, stdio_target};

/// The calls every test makes, in order; `check` knows what each must give.
fn calls() -> Value {
    json!([
        ["get_weather", {"location": "Paris"}],
        ["read_file", {"path": "/etc/passwd"}],
        ["get_weather", {}],
        ["get_wether", {"location": "Paris"}],
        ["read_file", {"path": "report.md"}],
        ["get_weather", {"location": "Atlantis"}],
        ["get_weather", {"location": "Paris", "unit": "kelvin"}],
    ])
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content: {result}"))
}

/// What a user of any MCP host would notice, checked on the Python client's report.
fn check(report: &Value, protocol_version: &str) {
    assert_eq!(report["protocol_version"], protocol_version, "negotiated era");
    assert_eq!(report["server"]["name"], "toolkit-example");

    // tools/list: every tool, in the toolbox's order, with the MCP export's shape.
    let tools = report["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read_file", "list_files", "current_time", "get_weather"]);
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()), "{tool}");
    }
    // Progress: the first call (get_weather on Paris) reported twice, and the client that
    // asked for it heard both, in order, before the result.
    let progress = &report["calls"][0]["progress"];
    eprintln!("progress heard by the Python client ({protocol_version}): {progress}");
    let heard: Vec<(f64, &str)> = progress
        .as_array()
        .expect("progress")
        .iter()
        .map(|p| (p["progress"].as_f64().unwrap(), p["message"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(heard, [(0.0, "looking up Paris"), (1.0, "found Paris")], "{progress}");
    let weather = &tools[3];
    assert_eq!(weather["annotations"]["readOnlyHint"], true);
    assert_eq!(weather["annotations"]["openWorldHint"], true);
    assert_eq!(weather["outputSchema"]["type"], "object", "typed output publishes its schema");
    assert!(tools[0].get("outputSchema").is_none(), "a text tool has no output schema");
    let modern = protocol_version >= "2026-07-28";
    assert_eq!(report["list"].get("ttlMs").is_some(), modern, "caching hints only in 2026-07-28: {}", report["list"]);
    if modern {
        assert_eq!(report["list"]["cacheScope"], "public");
    }

    let calls = report["calls"].as_array().expect("calls");
    // A typed output: structuredContent conforming to outputSchema, plus its JSON text.
    let ok = &calls[0]["result"];
    assert_eq!(ok["isError"], false, "{ok}");
    assert_eq!(ok["structuredContent"]["location"], "Paris");
    assert_eq!(ok["structuredContent"]["unit"], "celsius");
    assert_eq!(ok["structured_valid"], true, "validated by the Python client: {ok}");
    let schema = jsonschema::validator_for(&weather["outputSchema"]).expect("outputSchema is a valid JSON Schema");
    assert!(schema.is_valid(&ok["structuredContent"]), "validated here too: {ok}");
    let copy: Value = serde_json::from_str(text(ok)).expect("the text is the JSON copy");
    assert_eq!(copy, ok["structuredContent"]);

    // A call the sandbox hook blocks: an error result with the reason, nothing structured.
    let blocked = &calls[1]["result"];
    assert_eq!(blocked["isError"], true, "{blocked}");
    assert!(text(blocked).contains("`/etc/passwd` is outside the allowed directories"), "{blocked}");
    assert!(blocked.get("structuredContent").is_none(), "{blocked}");

    // Invalid arguments: an error result telling the model what to send.
    let invalid = &calls[2]["result"];
    assert_eq!(invalid["isError"], true, "{invalid}");
    assert!(text(invalid).contains("missing required field `location`"), "{invalid}");
    assert!(invalid.get("structuredContent").is_none(), "{invalid}");

    // An unknown tool: a protocol error (invalid params), with a suggestion.
    let unknown = &calls[3]["error"];
    assert_eq!(unknown["code"], -32602, "{}", calls[3]);
    assert!(unknown["message"].as_str().unwrap().contains("did you mean `get_weather`?"), "{unknown}");

    // A relative path resolved inside the data directory by the normalizing hook.
    let read = &calls[4]["result"];
    assert_eq!(read["isError"], false, "{read}");
    assert!(text(read).starts_with("# Quarterly report"), "{read}");

    // The tool's own error.
    let failed = &calls[5]["result"];
    assert_eq!(failed["isError"], true, "{failed}");
    assert!(text(failed).contains("no weather data for `Atlantis`"), "{failed}");
    let variant = &calls[6]["result"];
    assert_eq!(variant["isError"], true, "{variant}");
    assert!(text(variant).contains(r#"got "kelvin", expected one of "celsius", "fahrenheit""#), "{variant}");
}

/// Every call, the unknown tool's too, is in the audit log once the server has exited.
fn check_audit(audit: &Path) {
    // The stdio server exits once the client has closed its stdin; give it the time.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut lines = audit_lines(audit);
    while lines.len() < 7 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        lines = audit_lines(audit);
    }
    let outcomes: Vec<(&str, &str)> =
        lines.iter().map(|l| (l["tool"].as_str().unwrap(), l["outcome"].as_str().unwrap())).collect();
    assert_eq!(
        outcomes,
        [
            ("get_weather", "ok"),
            ("read_file", "blocked"),
            ("get_weather", "failed"),
            ("get_wether", "failed"),
            ("read_file", "ok"),
            ("get_weather", "failed"),
            ("get_weather", "failed"),
        ]
    );
}

#[test]
fn stdio_legacy_client_initializes_lists_and_calls_through_the_hooks() {
    let dir = scratch("mcp-stdio-legacy");
    let audit = dir.join("audit.jsonl");
    let Some(report) = python_client("legacy", &calls(), &stdio_target(&dir.join("data"), &audit)) else { return };
    check(&report, "2025-11-25");
    check_audit(&audit);
}

#[test]
fn stdio_modern_client_discovers_and_speaks_the_stateless_revision() {
    let dir = scratch("mcp-stdio-modern");
    let audit = dir.join("audit.jsonl");
    let Some(report) = python_client("modern", &calls(), &stdio_target(&dir.join("data"), &audit)) else { return };
    check(&report, "2026-07-28");
    check_audit(&audit);
}

#[test]
fn http_legacy_client_gets_a_session_and_the_same_answers() {
    let dir = scratch("mcp-http-legacy");
    let audit = dir.join("audit.jsonl");
    let server = HttpServer::start(&dir.join("data"), &audit);
    let Some(report) = python_client("legacy", &calls(), &["--url".into(), server.url.clone()]) else { return };
    check(&report, "2025-11-25");
    assert!(server.stop().success(), "Ctrl-C stops the HTTP server cleanly");
    check_audit(&audit);
}

#[test]
fn http_modern_client_is_served_statelessly_with_the_same_answers() {
    let dir = scratch("mcp-http-modern");
    let audit = dir.join("audit.jsonl");
    let server = HttpServer::start(&dir.join("data"), &audit);
    let Some(report) = python_client("modern", &calls(), &["--url".into(), server.url.clone()]) else { return };
    check(&report, "2026-07-28");
    assert!(server.stop().success(), "Ctrl-C stops the HTTP server cleanly");
    check_audit(&audit);
}
