//! The example MCP server (`examples/mcp_server.rs`) driven by the official Python client
//! (`mcp` on PyPI, pinned in `tests/mcp/requirements.txt`), in both protocol eras, over
//! stdio and over streamable HTTP: what any MCP host would see.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{HttpServer, audit_lines, python_client, python_client_with, scratch, stdio_target};

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
    assert_eq!(names, ["read_file", "list_files", "current_time", "get_weather", "write_file"]);
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
    assert_eq!(tools[4]["annotations"]["destructiveHint"], true);
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

/// A write the example's approval gate defers, then a read of the file: what the person
/// at the host answered decides whether the write ran.
fn approval_calls() -> Value {
    json!([["write_file", {"path": "notes.md", "content": "approved text"}], ["read_file", {"path": "notes.md"}]])
}

/// The client was asked once about the write (the form shows the arguments), the write
/// ran, the read sees it, and the audit log has the deferral and the call.
fn check_approved(report: &Value, audit: &Path) {
    let asked = report["asked"].as_array().expect("asked");
    assert_eq!(asked.len(), 1, "{report}");
    let message = asked[0].as_str().unwrap();
    assert!(message.starts_with("Approve `write_file` with {"), "{message}");
    assert!(message.contains("approved text"), "{message}");
    let write = &report["calls"][0]["result"];
    assert_eq!(write["isError"], false, "{write}");
    assert!(text(write).starts_with("wrote 13 bytes to"), "{write}");
    assert_eq!(text(&report["calls"][1]["result"]), "approved text");
    let lines = wait_for_audit(audit, 3);
    let outcomes: Vec<(&str, &str)> =
        lines.iter().map(|l| (l["tool"].as_str().unwrap(), l["outcome"].as_str().unwrap())).collect();
    assert_eq!(outcomes, [("write_file", "deferred"), ("write_file", "ok"), ("read_file", "ok")]);
    assert_eq!(lines[0]["call_id"], lines[1]["call_id"], "the deferral and the run are one call");
}

fn wait_for_audit(audit: &Path, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut lines = audit_lines(audit);
    while lines.len() < n && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        lines = audit_lines(audit);
    }
    lines
}

#[test]
fn stdio_modern_client_approves_a_write_through_input_required() {
    let dir = scratch("mcp-approve-stdio-modern");
    let audit = dir.join("audit.jsonl");
    let target = stdio_target(&dir.join("data"), &audit);
    let Some(report) = python_client_with("modern", &approval_calls(), &["--answer", "approve"], &target) else {
        return;
    };
    assert_eq!(report["protocol_version"], "2026-07-28");
    check_approved(&report, &audit);
}

#[test]
fn stdio_legacy_client_approves_a_write_through_elicitation_create() {
    let dir = scratch("mcp-approve-stdio-legacy");
    let audit = dir.join("audit.jsonl");
    let target = stdio_target(&dir.join("data"), &audit);
    let Some(report) = python_client_with("legacy", &approval_calls(), &["--answer", "approve"], &target) else {
        return;
    };
    assert_eq!(report["protocol_version"], "2025-11-25");
    check_approved(&report, &audit);
}

#[test]
fn http_clients_of_both_eras_approve_a_write() {
    for mode in ["modern", "legacy"] {
        let dir = scratch(&format!("mcp-approve-http-{mode}"));
        let audit = dir.join("audit.jsonl");
        let server = HttpServer::start(&dir.join("data"), &audit);
        let target = ["--url".to_owned(), server.url.clone()];
        let Some(report) = python_client_with(mode, &approval_calls(), &["--answer", "approve"], &target) else {
            return;
        };
        check_approved(&report, &audit);
        assert!(server.stop().success());
    }
}

#[test]
fn a_denied_write_or_a_client_that_cannot_ask_leaves_the_file_unwritten() {
    for (mode, options) in
        [("modern", &["--answer", "deny"][..]), ("legacy", &["--answer", "deny"][..]), ("modern", &[][..])]
    {
        let dir = scratch(&format!("mcp-deny-{mode}-{}", options.len()));
        let audit = dir.join("audit.jsonl");
        let target = stdio_target(&dir.join("data"), &audit);
        let Some(report) = python_client_with(mode, &approval_calls(), options, &target) else { return };
        let write = &report["calls"][0]["result"];
        assert_eq!(write["isError"], true, "{write}");
        if options.is_empty() {
            assert!(text(write).contains("cannot ask a person"), "{write}");
            assert_eq!(report["asked"], json!([]));
        } else {
            assert_eq!(text(write), "blocked: the user rejected this call: not now", "{write}");
        }
        let read = &report["calls"][1]["result"];
        assert!(text(read).contains("there is no file named `notes.md`"), "{read}");
        let lines = wait_for_audit(&audit, 2);
        let outcome = if options.is_empty() { vec!["deferred"] } else { vec!["deferred", "blocked"] };
        let writes: Vec<&str> =
            lines.iter().filter(|l| l["tool"] == "write_file").map(|l| l["outcome"].as_str().unwrap()).collect();
        assert_eq!(writes, outcome, "{mode} {options:?}");
    }
}

/// The first ten primes up to `n`.
#[toolkit::tool(read_only, icon = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnLz4=")]
fn primes(
    /// Up to which number.
    n: u32,
) -> Vec<u32> {
    (2..=n).filter(|k| (2..*k).all(|d| k % d != 0)).take(10).collect()
}

/// Add two integers.
#[toolkit::tool(read_only, icon = "https://example.com/icons/add.png")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Array and scalar outputs publish `outputSchema` and return `structuredContent` to a
/// 2026-07-28 client (the official client validates it against the schema); a
/// 2025-11-25 client, whose revision allows object roots only, gets the text alone.
/// Icons reach both, with their MIME types.
#[test]
fn array_and_scalar_outputs_are_structured_for_the_stateless_revision_and_icons_are_listed() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let http = runtime.block_on(toolkit::mcp::McpServer::new(toolkit::toolbox![primes, add]).bind_http("127.0.0.1:0"));
    let http = http.unwrap();
    let target = ["--url".to_owned(), http.url()];
    runtime.spawn(http.run());
    let calls = json!([["primes", {"n": 20}], ["add", {"a": 2, "b": 3}]]);
    for mode in ["modern", "legacy"] {
        let Some(report) = python_client(mode, &calls, &target) else { return };
        let modern = mode == "modern";
        let tools = report["tools"].as_array().unwrap();
        assert_eq!(
            tools[0]["icons"],
            json!([{"src": "data:image/svg+xml;base64,PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnLz4=", "mimeType": "image/svg+xml"}])
        );
        assert_eq!(tools[1]["icons"], json!([{"src": "https://example.com/icons/add.png", "mimeType": "image/png"}]));
        let primes = &report["calls"][0]["result"];
        let sum = &report["calls"][1]["result"];
        assert_eq!(text(primes), "[2,3,5,7,11,13,17,19]");
        assert_eq!(text(sum), "5");
        if modern {
            assert_eq!(tools[0]["outputSchema"]["type"], "array", "{}", tools[0]);
            assert_eq!(tools[1]["outputSchema"]["type"], "integer", "{}", tools[1]);
            assert_eq!(primes["structuredContent"], json!([2, 3, 5, 7, 11, 13, 17, 19]));
            assert_eq!(primes["structured_valid"], true, "{primes}");
            assert_eq!(sum["structuredContent"], 5);
            assert_eq!(sum["structured_valid"], true, "{sum}");
        } else {
            assert!(tools.iter().all(|t| t.get("outputSchema").is_none()), "{tools:?}");
            assert!(primes.get("structuredContent").is_none(), "{primes}");
            assert!(sum.get("structuredContent").is_none(), "{sum}");
        }
    }
}
