//! Each example runs offline and prints what its README promises.

use std::path::PathBuf;
use std::process::Command;

/// `cargo test` builds the examples next to the test binaries (`target/<profile>/examples`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>");
    let path = profile_dir.join("examples").join(name);
    assert!(path.exists(), "{} was not built; run the tests with `cargo test`", path.display());
    path
}

fn run(name: &str) -> String {
    let out = Command::new(example(name)).output().expect("example runs");
    assert!(out.status.success(), "{name} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn weather_prints_schemas_and_one_result_per_call() {
    let out = run("weather");
    assert!(out.contains(r#""type": "function""#), "OpenAI shape:\n{out}");
    assert!(out.contains(r#""input_schema""#), "Anthropic shape:\n{out}");
    assert!(out.contains("OpenAI strict mode accepts every tool."), "{out}");
    for id in 1..=7 {
        assert_eq!(out.matches(&format!(r#""tool_call_id":"call_{id}""#)).count(), 1, "call_{id}:\n{out}");
    }
    assert!(out.contains(r#"\"temperature\":71.6"#), "fahrenheit conversion:\n{out}");
    assert!(out.contains("unknown field `city`; expected {location: string"), "{out}");
    assert!(out.contains("unknown variant `kelvin`"), "{out}");
    assert!(out.contains("no weather data for `Atlantis`"), "{out}");
    assert!(out.contains("unknown tool `get_forecast`"), "{out}");
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
        "[REDACTED:email], card [REDACTED:card], phone [REDACTED:phone], api_key=[REDACTED:api_key]",
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
