//! The audit log (`toolkit::hooks::AuditLog`): what ends up in the file.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use toolkit::hook::{Hook, Scope};
use toolkit::hooks::{AuditError, AuditLog, Redactor};
use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Log in to a service (echoes what it was given).
#[tool]
fn login(user: String, api_key: String) -> String {
    format!("logged in {user} with {api_key}; contact ana@example.com")
}

/// Say something long.
#[tool]
fn long() -> String {
    "日本語のテキスト".repeat(100)
}

fn log_path(test: &str) -> PathBuf {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    std::env::temp_dir().join(format!("toolkit-audit-{test}-{}-{nanos}.jsonl", std::process::id()))
}

/// Every line of the file, parsed (a line that is not JSON fails the test).
fn lines(path: &PathBuf) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "every line is complete");
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect()
}

#[test]
fn ten_thousand_concurrent_calls_leave_ten_thousand_lines() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let path = log_path("concurrent");
    // A queue smaller than the burst: callers wait for room, and nothing is dropped.
    let log = AuditLog::builder().capacity(256).to_file(&path).unwrap();
    let tools = Arc::new(toolbox![add].with_sink(log.clone()));
    runtime.block_on(async {
        let tasks: Vec<_> = (0..10_000)
            .map(|i| {
                let tools = Arc::clone(&tools);
                tokio::spawn(async move {
                    tools.call(ToolCall::new(format!("call-{i}"), "add", format!(r#"{{"a": {i}, "b": 1}}"#))).await
                })
            })
            .collect();
        for (i, task) in tasks.into_iter().enumerate() {
            assert_eq!(task.await.unwrap().content, (i + 1).to_string());
        }
    });
    log.flush().unwrap();

    let lines = lines(&path);
    assert_eq!(lines.len(), 10_000);
    let mut ids = HashSet::new();
    for line in &lines {
        let id = line["call_id"].as_str().unwrap();
        assert!(ids.insert(id.to_owned()), "`{id}` appears once");
        let i: i64 = id.trim_start_matches("call-").parse().unwrap();
        assert_eq!(line["arguments"], json!({"a": i, "b": 1}));
        assert_eq!(line["result_head"], (i + 1).to_string());
        assert_eq!(line["outcome"], "ok");
    }
    assert!((0..10_000).all(|i| ids.contains(&format!("call-{i}"))), "every call id is present");
    drop(tools);
    drop(log);
    std::fs::remove_file(path).ok();
}

#[tokio::test]
async fn a_line_holds_time_labels_arguments_outcome_hooks_head_and_duration() {
    let path = log_path("fields");
    let log = AuditLog::to_file(&path).unwrap();
    let tools = toolbox![add]
        .with_hook(Hook::before("no_big_numbers", |call: &mut BeforeCall<'_>| {
            if call.arguments()["a"].as_i64().unwrap_or(0) > 100 {
                Decision::Block("numbers above 100 are not allowed".into())
            } else {
                Decision::Continue
            }
        }))
        .with_sink(log.clone());
    let scope = Scope::new().with_agent("calc").with_session("s-1").with_task("sum");
    tools.call_in(ToolCall::new("ok", "add", r#"{"a": 1, "b": 2}"#), &scope).await;
    tools.call(ToolCall::new("blocked", "add", r#"{"a": 1000, "b": 2}"#)).await;
    tools.call(ToolCall::new("unknown", "subtract", "{}")).await;
    tools.call(ToolCall::new("bad", "add", "not json")).await;
    log.flush().unwrap();

    let lines = lines(&path);
    assert_eq!(lines.len(), 4);
    let ok = &lines[0];
    let started_at = ok["started_at"].as_str().unwrap();
    assert_eq!(started_at.len(), "2024-01-01T00:00:00.000Z".len(), "{started_at}");
    assert!(started_at.ends_with('Z') && started_at.as_bytes()[10] == b'T', "{started_at}");
    assert_eq!(
        (ok["agent"].as_str(), ok["session"].as_str(), ok["task"].as_str()),
        (Some("calc"), Some("s-1"), Some("sum"))
    );
    assert_eq!(ok["tool"], "add");
    assert_eq!(ok["arguments"], json!({"a": 1, "b": 2}));
    assert_eq!((ok["outcome"].as_str(), ok["kind"].as_str()), (Some("ok"), None));
    assert_eq!(ok["result_head"], "3");
    assert!(ok["duration_ms"].as_f64().unwrap() >= 0.0);

    let blocked = &lines[1];
    assert_eq!(blocked["outcome"], "blocked");
    assert_eq!(blocked["hooks"], json!([{"hook": "no_big_numbers", "event": "before", "effect": "blocked"}]));
    assert_eq!(blocked["result_head"], "blocked: numbers above 100 are not allowed");

    assert_eq!((lines[2]["outcome"].as_str(), lines[2]["kind"].as_str()), (Some("failed"), Some("unknown_tool")));
    assert_eq!(lines[2]["tool"], "subtract");
    assert_eq!(lines[3]["kind"], "malformed_json");
    assert_eq!(lines[3]["arguments"], "not json", "arguments that are not JSON are kept as text");
    std::fs::remove_file(path).ok();
}

#[tokio::test]
async fn a_redacted_secret_never_reaches_the_file() {
    let path = log_path("redacted");
    let log = AuditLog::builder().redactor(Redactor::new()).to_file(&path).unwrap();
    let tools = toolbox![login].with_sink(log.clone());
    let key = "sk-live-0123456789abcdefghij";
    let r = tools.call(ToolCall::new("1", "login", format!(r#"{{"user": "ana", "api_key": "{key}"}}"#))).await;
    assert!(r.content.contains(key), "redacting the log does not change what the model saw");
    log.shutdown().unwrap();

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(key), "{text}");
    assert!(!text.contains("ana@example.com"), "{text}");
    let line: Value = serde_json::from_str(text.trim_end()).unwrap();
    // The value of a secret-named field is a `secret`, in JSON as in text.
    assert_eq!(line["arguments"], json!({"user": "ana", "api_key": "[REDACTED:secret]"}));
    assert_eq!(line["result_head"], "logged in ana with [REDACTED:api_key]; contact [REDACTED:email]");
    std::fs::remove_file(path).ok();
}

/// Two keys: a long one first, then one that starts about 700 characters in.
#[tool]
fn two_keys() -> String {
    format!("sk-proj-{} {} sk-live-{}", "Ab3".repeat(200), "x".repeat(90), "Zz9".repeat(20))
}

/// The result's head is the redacted start of the result, never text from beyond it
/// (before, the head was redacted and then cut: the long key, replaced by a short label,
/// pulled in the start of the second key, cut where the log stops reading the result and
/// so not recognised: `sk-live-Zz9Z` reached the file).
#[tokio::test]
async fn the_result_head_never_pulls_in_a_secret_from_beyond_it() {
    let path = log_path("edge");
    let log = AuditLog::builder().redactor(Redactor::new()).to_file(&path).unwrap();
    let tools = toolbox![two_keys].with_sink(log.clone());
    tools.call(ToolCall::new("1", "two_keys", "{}")).await;
    log.shutdown().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("sk-live") && !text.contains("Zz9"), "{text}");
    assert_eq!(lines(&path)[0]["result_head"], "[REDACTED:api_key]");
    std::fs::remove_file(path).ok();
}

#[tokio::test]
async fn the_result_head_is_cut_on_a_character_boundary() {
    let path = log_path("head");
    let log = AuditLog::builder().head_chars(5).to_file(&path).unwrap();
    let tools = toolbox![long].with_sink(log.clone());
    tools.call(ToolCall::new("1", "long", "{}")).await;
    log.flush().unwrap();
    let line = &lines(&path)[0];
    assert_eq!(line["result_head"], "日本語のテ");
    assert_eq!(line["result_bytes"], "日本語のテキスト".repeat(100).len());
    std::fs::remove_file(path).ok();
}

#[tokio::test]
async fn dropping_the_last_handle_writes_everything_and_shutdown_closes_the_log() {
    let path = log_path("drop");
    let tools = toolbox![add].with_sink(AuditLog::builder().capacity(4).to_file(&path).unwrap());
    for i in 0..50 {
        tools.call(ToolCall::new(format!("{i}"), "add", r#"{"a": 1, "b": 1}"#)).await;
    }
    drop(tools);
    assert_eq!(lines(&path).len(), 50, "the toolbox held the last handle: dropping it flushed the queue");

    let log = AuditLog::to_file(&path).unwrap();
    log.shutdown().unwrap();
    assert!(matches!(log.flush(), Err(AuditError::Closed)));
    assert!(matches!(log.shutdown(), Err(AuditError::Closed)));
    std::fs::remove_file(path).ok();
}

/// A capacity of `usize::MAX` ("unbounded") is clamped to 2^20 slots: the log starts
/// and writes (before, allocating the queue's slots panicked with a capacity overflow).
#[tokio::test]
async fn an_unbounded_capacity_is_clamped_and_the_log_starts() {
    let path = log_path("capacity");
    let log = AuditLog::builder().capacity(usize::MAX).to_file(&path).unwrap();
    let tools = toolbox![add].with_sink(log.clone());
    tools.call(ToolCall::new("1", "add", r#"{"a": 1, "b": 1}"#)).await;
    log.flush().unwrap();
    assert_eq!(lines(&path).len(), 1);
    std::fs::remove_file(path).ok();
}

#[test]
fn write_errors_are_reported_by_flush() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let log = AuditLog::to_writer(Broken);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let tools = toolbox![add].with_sink(log.clone());
    let r = runtime.block_on(tools.call(ToolCall::new("1", "add", r#"{"a": 1, "b": 1}"#)));
    assert_eq!(r.content, "2", "a failing log does not fail the call");
    let err = log.flush().unwrap_err();
    assert!(err.to_string().contains("disk full"), "{err}");
}

/// The child of `a_killed_process_loses_little`: calls `add` as fast as it can with a
/// redacting audit log, printing how many calls have finished every 5 ms, until killed.
/// Does nothing unless run as that child.
#[test]
fn audit_load_child() {
    let Some(path) = std::env::var_os("TOOLKIT_AUDIT_CHILD") else { return };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async move {
        let log = AuditLog::builder().redactor(Redactor::new()).to_file(&path).unwrap();
        let tools = Arc::new(toolbox![add].with_sink(log.clone()));
        let done = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let reporter = done.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            loop {
                let _ = writeln!(out, "{}", reporter.load(std::sync::atomic::Ordering::SeqCst));
                let _ = out.flush();
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
        let workers: Vec<_> = (0..4)
            .map(|w| {
                let (tools, done) = (tools.clone(), done.clone());
                tokio::spawn(async move {
                    for i in 0u64.. {
                        let id = format!("w{w}-{i}");
                        tools.call(ToolCall::new(id, "add", r#"{"a": 2, "b": 40}"#)).await;
                        done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for w in workers {
            let _ = w.await;
        }
    });
}

#[test]
fn a_killed_process_loses_at_most_the_queue_and_the_last_flush_interval() {
    use std::io::BufRead;
    let path = log_path("killed");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "audit_load_child", "--nocapture", "--test-threads=1"])
        .env("TOOLKIT_AUDIT_CHILD", &path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let mut reports = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut finished = 0u64;
    // Run at full load for 1.5 s, then kill -9.
    while started.elapsed() < std::time::Duration::from_millis(1500) {
        match reports.next() {
            Some(Ok(line)) => finished = line.trim().parse().unwrap_or(finished),
            _ => break,
        }
    }
    let elapsed = started.elapsed();
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    // The last line may be cut by the kill; every complete line is one call.
    let written = text.lines().filter(|l| serde_json::from_str::<Value>(l).is_ok()).count() as u64;
    let lost = finished.saturating_sub(written);
    let rate = finished as f64 / elapsed.as_secs_f64();
    println!(
        "kill -9 after {elapsed:?} at full load: {finished} calls finished (reported ≤5 ms before the kill), \
         {written} written, {lost} lost = {:.0} ms of calls at {rate:.0} calls/s",
        lost as f64 / rate * 1000.0
    );
    assert!(finished > 1000, "the child ran ({finished} calls)");
    // What memory held: the queue (1024 records) and the buffer (64 KB of lines, and no
    // more than 100 ms of them). A line is at least 200 bytes.
    assert!(lost <= 1024 + 64 * 1024 / 200, "{lost} records lost");
    std::fs::remove_file(&path).ok();
}

#[test]
fn fsync_on_flush_writes_the_same_lines() {
    let path = log_path("fsync");
    let log = AuditLog::builder()
        .fsync(toolkit::hooks::Fsync::OnFlush)
        .flush_every(std::time::Duration::ZERO)
        .to_file(&path)
        .unwrap();
    let tools = toolbox![add].with_sink(log.clone());
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    for i in 0..20 {
        runtime.block_on(tools.call(ToolCall::new(i.to_string(), "add", r#"{"a": 1, "b": 2}"#)));
    }
    log.flush().unwrap();
    let lines = lines(&path);
    assert_eq!(lines.len(), 20);
    assert_eq!(lines[19]["call_id"], "19");
    log.shutdown().unwrap();
    std::fs::remove_file(&path).ok();
}
