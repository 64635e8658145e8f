//! Each example runs offline and prints what its README promises.

use std::process::Command;

#[path = "../examples/support/redis_server.rs"]
mod redis_server;
mod support;
use support::example;

/// Runs an example offline: `--offline` makes the examples use their scripted models
/// even where the environment has `OPENAI_API_KEY`.
fn run(name: &str) -> String {
    run_with(Command::new(example(name)).arg("--offline").env_remove("BOCHA_API_KEY"), name)
}

fn run_with(command: &mut Command, name: &str) -> String {
    let out = command.output().expect("example runs");
    assert!(out.status.success(), "{name} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn weather_prints_schemas_and_one_result_per_call() {
    let all = run("weather");
    let (out, agentic) = all.split_once("== The agentic loop ==").expect("the loop section");
    assert!(out.contains(r#""type": "function""#), "OpenAI shape:\n{out}");
    assert!(out.contains(r#""input_schema""#), "Anthropic shape:\n{out}");
    assert!(out.contains("OpenAI strict mode accepts every tool."), "{out}");
    for id in 1..=7 {
        assert_eq!(out.matches(&format!(r#""tool_call_id":"call_{id}""#)).count(), 1, "call_{id}:\n{out}");
    }
    assert!(out.contains(r#"\"temperature\":71.6"#), "fahrenheit conversion:\n{out}");
    assert!(out.contains("unknown field `city`; expected {location: string"), "{out}");
    assert!(
        out.contains(r#"invalid value for `unit`: got \"kelvin\", expected one of \"celsius\", \"fahrenheit\""#),
        "{out}"
    );
    assert!(out.contains("no weather data for `Atlantis`"), "{out}");
    assert!(out.contains("unknown tool `get_forecast`"), "{out}");

    // The loop, once per tool_choice: what was sent, and the answer built from the results.
    assert!(agentic.contains(r#"tool_choice sent per request: "auto", "auto""#), "{agentic}");
    assert!(agentic.contains(r#"tool_choice sent per request: "required", "auto""#), "{agentic}");
    assert!(agentic.contains(r#"tool_choice sent per request: "none""#), "{agentic}");
    assert!(
        agentic
            .contains(r#"tool_choice sent per request: {"type":"function","function":{"name":"get_weather"}}, "auto""#),
        "{agentic}"
    );
    assert!(agentic.contains(r#""content":"Right now: Beijing: 22 °C, sunny.""#), "{agentic}");
    assert!(agentic.contains("Guangzhou: 82.4 °F, cloudy; Paris: 57.2 °F, overcast."), "{agentic}");
    assert!(agentic.contains(r#"{"role":"tool","tool_call_id":"call_2""#), "parallel calls: {agentic}");
}

#[test]
fn hooks_tour_shows_every_use_case_acting() {
    let out = run("hooks_tour");
    let expect = [
        // safety guardrails
        "blocked: `delete_file` is destructive and disabled here",
        // approval gate, both ways
        "→ Approve",
        "blocked: the user rejected this call: rival@elsewhere.net is outside the company",
        // validation and sanitization (typed), and context-aware rewriting
        r#"3 results for "tokio runtime market""#,
        "blocked: policy check `clean_query` failed",
        r#"3 results for "competitor pricing market""#,
        // rate limiting
        "blocked: rate limit: at most 3 calls to `web_search` per 60s",
        // redaction
        "[REDACTED:email], card [REDACTED:card], phone [REDACTED:phone], api_key=[REDACTED:secret]",
        // caching that returns the cached result
        "[cached] hooks acted: cache:Returned",
        "two calls, get_weather ran 1 time(s)",
        // conditional by agent
        "blocked: interns may only use read-only tools",
        // loop detection
        "with the same arguments 3 times in a row",
        // sandbox, normalization, truncation
        "normalize_paths:Rewrote, truncate:Rewrote",
        "`/etc/passwd` is outside the allowed directories",
        "…[truncated: ",
        // friendly error, then the breaker
        "the quote service is down (tool_failed)",
        "is failing repeatedly (2 failures in a row)",
        "the quote service was called 2 times",
        // analytics through the extension map, debug logging, raw typed output
        "stock_quote      calls  2  failures 2",
        "[debug] raw result: Lisbon at 21.5 °C",
    ];
    for line in expect {
        assert!(out.contains(line), "missing `{line}` in:\n{out}");
    }
    // The audit log has one line per call, and says so.
    let calls = out.matches("  → ").count();
    assert!(out.contains(&format!("audit log: {calls} lines in")), "{calls} calls:\n{out}");
    assert!(!out.contains("sk-live-0123456789abcdef0123"), "the API key leaked:\n{out}");
}

#[test]
fn file_agent_shows_every_hook_acting_and_writes_the_audit_log() {
    let out = run("file_agent");
    let expect = [
        "model: scripted, offline",
        // relative paths are resolved against the data directory
        "hook normalize_paths (Before): Rewrote",
        // the sandbox blocks /etc/passwd, and the model hears why
        "← read_file [blocked] blocked: `/etc/passwd` is outside the allowed directories",
        // long results are truncated
        "hook truncate (After): Rewrote",
        // friendly messages for a missing file and one no model can read
        "there is no file named `notes.txt` in the data directory; call list_files",
        "`backup.bin` is a binary file, neither text nor an image or a PDF; it cannot be read",
        // an image comes back as an image, named in the text
        "← read_file [ok] logo.png: [image/png image, 98 B]",
        "hook friendly_file_errors (Error): Recovered",
        // the answer uses the current_time result
        "(UTC).",
        "/etc/passwd is outside the data directory, so I was not allowed to read it.",
        // the summary table
        "call_4    read_file     blocked",
        "call_8    read_file     recovered(tool_failed)",
        "4 model turns, 8 tool calls, 4435 tokens; 8 audit lines written to ",
    ];
    for line in expect {
        assert!(out.contains(line), "missing `{line}` in:\n{out}");
    }
    // The truncated result is the limit plus the marker, not the whole 17 KB log.
    let truncated = out.lines().find(|l| l.starts_with("call_5")).expect("call_5 row");
    assert!(truncated.contains("truncate:rewrote"), "{truncated}");
    let chars: usize = truncated.split_whitespace().rev().nth(1).unwrap().parse().unwrap();
    assert!((4000..4100).contains(&chars), "{truncated}");
    // The audit log has one JSON line per call, blocked ones included.
    let path = out.lines().last().unwrap().rsplit(" written to ").next().unwrap();
    let audit = std::fs::read_to_string(path).unwrap();
    let lines: Vec<serde_json::Value> = audit.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 8);
    // The image's line has its summary (type, size, SHA-256), never its bytes.
    let logo = lines.iter().find(|l| l["arguments"]["path"].as_str().is_some_and(|p| p.ends_with("logo.png"))).unwrap();
    assert_eq!(logo["parts"][0]["mime_type"], "image/png", "{logo}");
    assert_eq!(logo["parts"][0]["bytes"], 98, "{logo}");
    assert_eq!(logo["parts"][0]["sha256"].as_str().map(str::len), Some(64), "{logo}");
    assert!(lines.iter().any(|l| l["outcome"] == "blocked" && l["arguments"]["path"] == "/etc/passwd"), "{audit}");
    assert!(lines.iter().all(|l| l["agent"] == "file-assistant"), "{audit}");
}

#[test]
fn search_agent_picks_the_tool_per_question_and_labels_the_mock() {
    let out = run("search_agent");
    assert!(out.contains("search: MOCK (set BOCHA_API_KEY for real results)"), "{out}");
    assert!(out.contains(r#"→ web_search {"query":"What are the latest trends in AI agents?"}"#), "{out}");
    assert!(out.contains("[MOCK SEARCH: sample data, not real results; set BOCHA_API_KEY for real results]"), "{out}");
    assert!(out.contains("1. AI agent trends: multi-agent systems in finance and healthcare"), "{out}");
    assert!(out.contains(r#"→ calculate {"expression":"(17.5 * 4 + 3) / 2"}"#), "{out}");
    assert!(out.contains("← calculate [ok] 36.5"), "{out}");
}

/// With a key, the search calls the Bocha API: here a stand-in on 127.0.0.1 that checks
/// the request and answers in Bocha's shape.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_agent_calls_the_bocha_api_with_the_key_and_formats_its_results() {
    use axum::http::HeaderMap;
    use axum::routing::post;
    use std::sync::{Arc, Mutex};

    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let app = axum::Router::new().route(
        "/v1/web-search",
        post(move |headers: HeaderMap, body: String| {
            let log = Arc::clone(&log);
            async move {
                let auth = headers.get("authorization").map(|v| v.to_str().unwrap().to_string());
                log.lock().unwrap().push((auth, body));
                axum::Json(serde_json::json!({"code": 200, "data": {"webPages": {"value": [
                    {"name": "Rust 2026 survey", "url": "https://blog.example/rust-2026", "snippet": "Rust adoption keeps growing."},
                    {"name": "Agents in production", "url": "https://news.example/agents", "snippet": "Hooks make agents safe."}
                ]}}}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let exe = example("search_agent");
    let out = tokio::task::spawn_blocking(move || {
        run_with(
            Command::new(exe)
                .args(["--offline", "What is new in Rust?"])
                .env("BOCHA_API_KEY", "bocha-test-key")
                .env("BOCHA_BASE_URL", format!("http://{addr}")),
            "search_agent",
        )
    })
    .await
    .unwrap();
    assert!(out.contains(&format!("search: Bocha at http://{addr}/v1/web-search")), "{out}");
    assert!(
        out.contains("1. Rust 2026 survey\n   Rust adoption keeps growing.\n   Source: https://blog.example/rust-2026"),
        "{out}"
    );
    assert!(out.contains("2. Agents in production"), "{out}");
    assert!(!out.contains("MOCK"), "{out}");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0.as_deref(), Some("Bearer bocha-test-key"));
    let body: serde_json::Value = serde_json::from_str(&seen[0].1).unwrap();
    assert_eq!(body, serde_json::json!({"query": "What is new in Rust?", "count": 5}));
}

/// A run that fails ends the example with its readable message and exit code 1, not a
/// `Debug` dump of the whole run (here the model server refuses every request).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_run_prints_a_readable_message_and_exits_1() {
    use axum::http::StatusCode;
    use axum::routing::post;

    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(|| async {
            (
                StatusCode::BAD_REQUEST,
                axum::Json(serde_json::json!({"error": {"message": "this model is not available"}})),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let work = support::scratch("failed-run");
    for name in ["file_agent", "search_agent"] {
        let exe = example(name);
        let work = work.clone();
        let out = tokio::task::spawn_blocking(move || {
            Command::new(exe)
                .env("TOOLKIT_FILE_AGENT_DIR", work)
                .env("OPENAI_API_KEY", "test-key")
                .env("OPENAI_BASE_URL", format!("http://{addr}/v1"))
                .env_remove("BOCHA_API_KEY")
                .output()
                .expect("example runs")
        })
        .await
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        let last = stderr.lines().last().unwrap_or_default();
        assert!(last.starts_with("error: "), "{name}: {stderr}");
        assert!(last.contains("this model is not available"), "{name}: {stderr}");
        assert!(!stderr.contains("AgentRun") && !stderr.contains("messages: ["), "{name} dumped the run: {stderr}");
        assert!(last.len() < 400, "{name}: {} characters: {last}", last.len());
    }
}

/// `file_agent` shows a refusal and an answer cut by the token limit, rather than an
/// empty or seemingly finished answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_agent_shows_a_refusal_and_a_cut_answer() {
    use axum::routing::post;
    use std::sync::{Arc, Mutex};

    let replies = Arc::new(Mutex::new(vec![
        serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "The report says", },
                                        "finish_reason": "length"}]}),
        serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                                        "refusal": "I can't help with reading those files."}, "finish_reason": "stop"}]}),
    ]));
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move || {
            let replies = Arc::clone(&replies);
            async move { axum::Json(replies.lock().unwrap().pop().expect("a canned reply")) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let work = support::scratch("refusal-and-cut");
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let exe = example("file_agent");
        let work = work.clone();
        let out = tokio::task::spawn_blocking(move || {
            run_with(
                Command::new(exe)
                    .env("TOOLKIT_FILE_AGENT_DIR", work)
                    .env("OPENAI_API_KEY", "test-key")
                    .env("OPENAI_BASE_URL", format!("http://{addr}/v1")),
                "file_agent",
            )
        })
        .await
        .unwrap();
        outputs.push(out);
    }
    assert!(outputs[0].contains("── the model refused\nI can't help with reading those files."), "{}", outputs[0]);
    assert!(outputs[1].contains("The report says\n(cut: the token limit was reached)"), "{}", outputs[1]);
}

/// Three processes: the first pauses on the refund and exits; the second approves and
/// finishes; the third finds nothing left to approve. One refund in all.
#[test]
fn durable_agent_pauses_in_one_process_and_finishes_in_another() {
    let dir = support::scratch("durable-agent");
    let invoke = |args: &[&str]| {
        let mut command = Command::new(example("durable_agent"));
        run_with(command.args(args).env("TOOLKIT_DURABLE_DIR", &dir), "durable_agent")
    };
    let first = invoke(&[]);
    assert!(first.contains("← lookup_order [ok] order 42"), "{first}");
    assert!(first.contains("← refund [deferred] deferred: it needs a person's approval"), "{first}");
    assert!(first.contains(r#"refund {"order":42,"cents":1250} — it needs a person's approval"#), "{first}");
    assert!(first.contains("this process now exits"), "{first}");
    assert!(!dir.join("refunds.txt").exists(), "nothing refunded yet");

    let second = invoke(&["approve"]);
    assert!(second.contains("← refund [ok] refunded 1250 cents on order 42"), "{second}");
    assert!(second.contains("Done: refunded 1250 cents on order 42."), "{second}");
    assert!(second.contains("refunds made so far (1)"), "{second}");

    let third = invoke(&["approve"]);
    assert!(third.contains("no paused run"), "{third}");
    let refunds = std::fs::read_to_string(dir.join("refunds.txt")).unwrap();
    assert_eq!(refunds.lines().count(), 1, "{refunds}");
    assert!(refunds.contains("idempotency key tk1-"), "{refunds}");

    // Denied, the model hears why and nothing is refunded.
    let dir = support::scratch("durable-agent-deny");
    let invoke = |args: &[&str]| {
        let mut command = Command::new(example("durable_agent"));
        run_with(command.args(args).env("TOOLKIT_DURABLE_DIR", &dir), "durable_agent")
    };
    invoke(&[]);
    let denied = invoke(&["deny", "the kettle was not returned"]);
    assert!(denied.contains("blocked: the user rejected this call: the kettle was not returned"), "{denied}");
    assert!(!dir.join("refunds.txt").exists());
}

#[test]
fn fleet_holds_one_rate_limit_across_three_replicas() {
    // Starts a redis-server of its own (installed by .ci/run); skips without one.
    if !redis_server::available("the fleet example") {
        return;
    }
    let out = run_with(&mut Command::new(example("fleet")), "fleet");
    for replica in 1..=3 {
        assert!(out.contains(&format!("replica {replica}: ")), "{out}");
    }
    assert!(
        out.contains("30 calls round-robin: 10 allowed in all (limit 10) — the limit held across the fleet"),
        "{out}"
    );
}

/// `--provider` picks the client: `file_agent --provider anthropic` talks to a Messages
/// API server (here a local one) with the Anthropic key, and prints its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_agent_runs_on_another_provider_when_asked() {
    let reply = serde_json::json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "The report is short."}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 5}});
    let server = support::provider::Provider::start("/v1/messages", [support::provider::ok(reply)]).await;
    let base = server.base_url.clone();
    let work = support::scratch("provider-anthropic");
    let exe = example("file_agent");
    let out = tokio::task::spawn_blocking(move || {
        run_with(
            Command::new(exe)
                .args(["--provider", "anthropic", "What is in report.md?"])
                .env("TOOLKIT_FILE_AGENT_DIR", work)
                .env("ANTHROPIC_API_KEY", "test-key")
                .env("ANTHROPIC_BASE_URL", base)
                .env_remove("OPENAI_API_KEY"),
            "file_agent",
        )
    })
    .await
    .unwrap();
    assert!(out.contains("/v1/messages (from ANTHROPIC_API_KEY"), "{out}");
    assert!(out.contains("The report is short."), "{out}");
    let sent = &server.received()[0];
    assert_eq!(sent.headers["x-api-key"], "test-key");
    let question = &sent.body["messages"][0]["content"][0]["text"];
    assert_eq!(question, "What is in report.md?", "the flag and its value are not part of the question");
}

/// `streaming` prints the answer as it arrives, offline, from the scripted model.
#[test]
fn streaming_prints_the_answer_in_pieces() {
    let out = run_with(Command::new(example("streaming")).env_remove("OPENAI_API_KEY"), "streaming");
    assert!(out.contains("   → add {\"a\": 1234, \"b\": 5678}"), "{out}");
    assert!(out.contains("   ← add [ok] 6912"), "{out}");
    assert!(out.contains("1234 plus 5678 is 6912."), "{out}");
    let deltas: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("── done: ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(deltas > 10, "the answer came a word at a time: {out}");
}

#[test]
fn tool_search_finds_a_deferred_tool_and_sends_it_from_the_next_turn() {
    let out = run_with(Command::new(example("tool_search")).env_remove("OPENAI_API_KEY"), "tool_search");
    assert!(out.contains("13 tools, 12 deferred: the first request sends the other 1 and `search_tools`"), "{out}");
    // The search found the reservation tool, which then ran.
    let search = out.lines().find(|l| l.starts_with("← search_tools")).expect("the search's record");
    assert!(search.contains("make_restaurant_reservation"), "{search}");
    assert!(out.contains("table for 4 at Chez Panisse, 20:00: confirmed"), "{out}");
    // Each turn sends what the one before did, and then what a search found.
    assert!(out.contains("turn 1: add, search_tools\n"), "{out}");
    assert!(out.contains("turn 2: add, search_tools, make_restaurant_reservation"), "{out}");
    assert!(out.contains("turn 3: add, search_tools, make_restaurant_reservation"), "{out}");
}
