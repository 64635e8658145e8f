//! The built-in hooks (`toolkit::hooks`) as a model and a program notice them: the text
//! the model reads, whether the tool ran, the outcome in the record. (The audit log:
//! `tests/audit_log.rs`.)

use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};
use toolkit::hook::Scope;
use toolkit::hooks::{
    Approval, ApprovalGate, Cache, ChannelApprover, CircuitBreaker, ConsoleApprover, LoopGuard, NormalizePaths,
    PathSandbox, RateLimit, Redactor, Truncate,
};
use toolkit::prelude::*;
use toolkit::{Annotations, CallRecord, DynTool, FnTool, Hook, Outcome};

// ---- tools and helpers ----------------------------------------------------------------

/// Say which file would be read.
#[tool(read_only)]
fn read_file(
    /// The file.
    path: String,
) -> String {
    path
}

/// Copy a file (say which).
#[tool]
fn copy(src: String, dst: String) -> String {
    format!("{src} -> {dst}")
}

/// Remove a file.
#[tool(destructive)]
fn remove(path: String) -> String {
    format!("removed {path}")
}

/// Describe a file.
#[tool(read_only)]
fn stat(path: String) -> String {
    format!("{path}: 12 bytes")
}

/// A run-time tool that counts its runs and answers with `reply(arguments)`.
fn counted<F, Fut>(
    name: &str,
    annotations: Annotations,
    runs: &Arc<AtomicUsize>,
    reply: F,
) -> impl DynTool + use<F, Fut>
where
    F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Output, ToolError>> + Send + 'static,
{
    let spec = ToolSpec::new(
        name,
        "A test tool.",
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": true}),
    )
    .with_annotations(annotations);
    let runs = Arc::clone(runs);
    FnTool::new(spec, move |args| {
        runs.fetch_add(1, Ordering::SeqCst);
        reply(args)
    })
}

fn read_only() -> Annotations {
    Annotations { read_only: true, ..Default::default() }
}

/// A toolbox with one run-time tool and a sink collecting records.
fn toolbox_with(tool: impl DynTool) -> (Toolbox, Arc<Mutex<Vec<CallRecord>>>) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let mut tools = Toolbox::new().with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone()));
    tools.add_dynamic(tool).unwrap();
    (tools, records)
}

fn last_outcome(records: &Mutex<Vec<CallRecord>>) -> Outcome {
    records.lock().unwrap().last().expect("a record").outcome
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments.to_string())
}

/// A fresh directory under the system's temporary directory.
fn scratch_dir(test: &str) -> PathBuf {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("toolkit-hooks-{test}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `base/data` (allowed, with `notes.txt`) and `base/outside` (with `secret.txt`).
fn sandbox_dirs(test: &str) -> (PathBuf, PathBuf, PathBuf) {
    let base = scratch_dir(test);
    let (data, outside) = (base.join("data"), base.join("outside"));
    std::fs::create_dir_all(data.join("docs")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(data.join("notes.txt"), "notes").unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    (base, data, outside)
}

fn shown(dir: &Path) -> String {
    format!("{}/", dir.display())
}

// ---- redaction ------------------------------------------------------------------------

#[tokio::test]
async fn redaction_hides_keys_tokens_emails_cards_and_phones_from_the_model() {
    let runs = Arc::new(AtomicUsize::new(0));
    let leaky = counted("leaky", Annotations::default(), &runs, |_| async {
        Ok(Output::text(
            "key sk-proj-AbCdEfGhIjKlMnOpQrSt123, aws AKIAIOSFODNN7EXAMPLE, \
             gh ghp_abcdefghijklmnopqrstuvwxyz0123456789, \
             header Authorization: Bearer eyJhbGciOi.payload.sig, url ?api_key=s3cr3tvalue&x=1, \
             mail ana.lopez@example.co.uk, card 4111 1111 1111 1111, amex 3782-822463-10005, \
             phone +44 20 7946 0958, us (555) 123-4567",
        ))
    });
    let (tools, _) = toolbox_with(leaky);
    let tools = tools.with_hook(Redactor::new());
    let r = tools.call(call("1", "leaky", json!({}))).await;
    assert_eq!(
        r.content,
        "key [REDACTED:api_key], aws [REDACTED:api_key], gh [REDACTED:api_key], \
         header Authorization: Bearer [REDACTED:token], url ?api_key=[REDACTED:secret]&x=1, \
         mail [REDACTED:email], card [REDACTED:card], amex [REDACTED:card], \
         phone [REDACTED:phone], us [REDACTED:phone]"
    );
}

#[test]
fn redaction_keeps_ordinary_numbers_and_text() {
    let r = Redactor::new();
    for text in [
        "In 2024 we shipped 42 releases to 1500 users.",
        "Order 1234 5678 9012 3456 is not a card: the Luhn check fails.",
        "Invoice 4111111111111112 (one digit off a test card).",
        "Build 20240115 took 3.5s; ids 1234567890 and 987654.",
        "Released on 2024-01-15 at 12:30; version 1.2.3; port 8080.",
        "max_tokens=100, tokens: 5",
        "no key here: sk-short",
    ] {
        assert_eq!(r.redact(text), text, "kept as is");
    }
}

#[test]
fn redaction_of_json_keeps_it_json_and_hides_sensitive_fields() {
    let r = Redactor::new().redact_keys(["password", "secret"]);
    let text = json!({
        "user": "ana",
        "password": "hunter2 with spaces",
        "nested": {"Secret": {"deep": 1}, "contact": "ana@example.com"},
        "card": 4111111111111111_u64,
        "count": 4111111111111112_u64,
        "list": [{"password": null}],
    })
    .to_string();
    let redacted: Value = serde_json::from_str(&r.redact(&text)).expect("still JSON");
    assert_eq!(
        redacted,
        json!({
            "user": "ana",
            "password": "[REDACTED:password]",
            "nested": {"Secret": "[REDACTED:secret]", "contact": "[REDACTED:email]"},
            "card": "[REDACTED:card]",
            "count": 4111111111111112_u64,
            "list": [{"password": null}],
        })
    );
    // In plain text (say, a cut JSON head), a sensitive field's value goes too, with the
    // same label as in JSON.
    assert_eq!(r.redact(r#"{"password": "hunter2 x", "user": "#), r#"{"password": "[REDACTED:password]", "user": "#);
    let custom = Redactor::empty().redact_keys(["ssn"]);
    assert_eq!(custom.redact("ssn=078-05-1120; name=ana"), "ssn=[REDACTED:ssn]; name=ana");
}

#[tokio::test]
async fn custom_patterns_carry_their_labels_and_the_replacement_is_configurable() {
    let r = Redactor::new().pattern("employee", r"EMP-\d{6}").unwrap().replacement("<{label}>");
    assert_eq!(r.redact("EMP-004211 mailed bo@example.org"), "<employee> mailed <email>");
    let err = Redactor::new().pattern("broken", "(").unwrap_err();
    assert!(err.to_string().starts_with("`(` is not a valid redaction pattern"), "{err}");
    assert_eq!(Redactor::new().without("email").redact("bo@example.org"), "bo@example.org");
}

// ---- truncation -----------------------------------------------------------------------

#[tokio::test]
async fn truncation_cuts_on_a_character_boundary_and_says_how_much_was_cut() {
    let runs = Arc::new(AtomicUsize::new(0));
    let long =
        counted("long", Annotations::default(), &runs, |_| async { Ok(Output::text("añ日本🙂".repeat(1000))) });
    let (tools, _) = toolbox_with(long);
    let tools = tools.with_hook(Truncate::chars(7));
    let r = tools.call(call("1", "long", json!({}))).await;
    assert_eq!(r.content, "añ日本🙂añ\n…[truncated: 4993 more characters]");

    let custom = Truncate::chars(3).marker(" [+{remaining}]");
    assert_eq!(custom.truncate("🙂🙂🙂🙂"), "🙂🙂🙂 [+1]");
    assert_eq!(custom.truncate("🙂🙂🙂"), "🙂🙂🙂", "a text at the limit is kept whole");
}

// ---- path sandbox ---------------------------------------------------------------------

#[tokio::test]
async fn the_sandbox_lets_paths_inside_through_and_resolves_relative_ones_under_the_first_root() {
    let (base, data, _) = sandbox_dirs("inside");
    let tools = toolbox![read_file].with_hook(PathSandbox::new().allow(&data));
    let read = |path: &str| tools.call(call("1", "read_file", json!({ "path": path })));

    let absolute = data.join("notes.txt");
    assert_eq!(read(absolute.to_str().unwrap()).await.content, absolute.to_str().unwrap());
    assert_eq!(read("notes.txt").await.content, absolute.to_str().unwrap(), "relative: under the first root");
    assert_eq!(read("./docs/new.md").await.content, data.join("docs/new.md").to_str().unwrap(), "not there yet");
    std::fs::remove_dir_all(base).ok();
}

#[tokio::test]
async fn the_sandbox_blocks_paths_outside_with_a_reason_the_model_can_act_on() {
    let (base, data, outside) = sandbox_dirs("outside");
    let other = base.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let tools = toolbox![read_file].with_hook(PathSandbox::new().allow(&data).allow(&other));
    let secret = outside.join("secret.txt");
    let r = tools.call(call("1", "read_file", json!({ "path": secret }))).await;
    assert_eq!(r.kind(), Some(ErrorKind::Blocked));
    assert_eq!(
        r.content,
        format!(
            "blocked: `{}` is outside the allowed directories ({}, {}); use a path under {}",
            secret.display(),
            shown(&data),
            shown(&other),
            shown(&data)
        )
    );
    let r = tools.call(call("2", "read_file", json!({"path": "/etc/passwd"}))).await;
    assert!(r.content.starts_with("blocked: `/etc/passwd` is outside the allowed directories"), "{}", r.content);
    // The second root is allowed too.
    let fine = other.join("x.txt");
    assert_eq!(tools.call(call("3", "read_file", json!({ "path": fine }))).await.content, fine.to_str().unwrap());
    std::fs::remove_dir_all(base).ok();
}

#[tokio::test]
async fn the_sandbox_refuses_dot_dot_and_nul_whatever_they_resolve_to() {
    let (base, data, _) = sandbox_dirs("dotdot");
    let tools = toolbox![read_file].with_hook(PathSandbox::new().allow(&data));
    // `docs/../notes.txt` would stay inside, but `..` is refused outright.
    let r = tools.call(call("1", "read_file", json!({"path": "docs/../notes.txt"}))).await;
    assert_eq!(
        r.content,
        format!("blocked: `docs/../notes.txt` contains `..`; use a path under {} without `..`", shown(&data))
    );
    let r = tools.call(call("2", "read_file", json!({"path": "notes.txt\u{0}.png"}))).await;
    assert_eq!(
        r.content,
        format!(
            "blocked: `notes.txt\\0.png` contains a NUL byte, which no file name can hold; use a path under {}",
            shown(&data)
        )
    );
    std::fs::remove_dir_all(base).ok();
}

#[cfg(unix)]
#[tokio::test]
async fn the_sandbox_refuses_a_symlink_that_escapes() {
    let (base, data, outside) = sandbox_dirs("symlink");
    std::os::unix::fs::symlink(&outside, data.join("escape")).unwrap();
    std::os::unix::fs::symlink(base.join("nowhere/at/all"), data.join("dangling")).unwrap();
    std::os::unix::fs::symlink(data.join("notes.txt"), data.join("inner")).unwrap();
    let tools = toolbox![read_file].with_hook(PathSandbox::new().allow(&data));
    let read = |path: &str| tools.call(call("1", "read_file", json!({ "path": path })));

    for path in ["escape/secret.txt", "escape", "escape/new.txt"] {
        let r = read(path).await;
        assert!(
            r.content.starts_with(&format!("blocked: `{path}` is outside the allowed directories")),
            "{}",
            r.content
        );
    }
    let r = read("dangling").await;
    assert!(r.content.starts_with("blocked: `dangling` cannot be resolved"), "{}", r.content);
    assert_eq!(read("inner").await.content, data.join("inner").to_str().unwrap(), "a link that stays inside is fine");
    std::fs::remove_dir_all(base).ok();
}

#[tokio::test]
async fn the_sandbox_checks_the_configured_fields() {
    let (base, data, outside) = sandbox_dirs("fields");
    let tools = toolbox![copy].with_hook(PathSandbox::new().allow(&data).fields(["src", "dst"]));
    let r = tools.call(call("1", "copy", json!({"src": "notes.txt", "dst": outside.join("x")}))).await;
    assert!(r.content.contains("is outside the allowed directories"), "{}", r.content);
    let r = tools.call(call("2", "copy", json!({"src": "notes.txt", "dst": "copy.txt"}))).await;
    assert_eq!(r.content, format!("{} -> {}", data.join("notes.txt").display(), data.join("copy.txt").display()));
    std::fs::remove_dir_all(base).ok();
}

// ---- argument normalization -----------------------------------------------------------

#[tokio::test]
async fn normalization_gives_the_tool_absolute_paths() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let tools = toolbox![read_file]
        .with_hook(NormalizePaths::under("/srv/data"))
        .with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone()));
    let r = tools.call(call("1", "read_file", json!({"path": "reports/q1.md"}))).await;
    assert_eq!(r.content, Path::new("/srv/data").join("reports/q1.md").to_str().unwrap());
    let r = tools.call(call("2", "read_file", json!({"path": "/etc/hosts"}))).await;
    assert_eq!(r.content, "/etc/hosts", "absolute paths are left alone");

    let records = records.lock().unwrap();
    let rewritten: Value = serde_json::from_str(records[0].effective_arguments()).unwrap();
    assert_eq!(rewritten["path"], Path::new("/srv/data").join("reports/q1.md").to_str().unwrap());
    assert_eq!(records[1].rewritten_arguments, None, "nothing to rewrite: no write access asked");
}

// ---- rate limit -----------------------------------------------------------------------

#[tokio::test]
async fn the_rate_limit_blocks_the_call_over_the_limit_until_the_window_passes() {
    let runs = Arc::new(AtomicUsize::new(0));
    let search = counted("search", Annotations::default(), &runs, |_| async { Ok(Output::text("results")) });
    let (tools, records) = toolbox_with(search);
    let window = Duration::from_millis(800);
    let tools = tools.with_hook(RateLimit::per_tool(2, window));
    let search = || tools.call(call("1", "search", json!({"q": "rust"})));

    assert_eq!(search().await.content, "results");
    assert_eq!(search().await.content, "results");
    let r = search().await;
    assert!(
        r.content.starts_with("blocked: rate limit: at most 2 calls to `search` per 800ms; try again in "),
        "{}",
        r.content
    );
    assert!(r.content.ends_with("ms"), "{}", r.content);
    assert_eq!(last_outcome(&records), Outcome::Blocked);
    assert_eq!(runs.load(Ordering::SeqCst), 2, "the blocked call did not run");

    tokio::time::sleep(window + Duration::from_millis(100)).await;
    assert_eq!(search().await.content, "results", "allowed again once the window has passed");
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn the_rate_limit_keeps_a_window_per_key() {
    let runs = Arc::new(AtomicUsize::new(0));
    let search = counted("search", Annotations::default(), &runs, |_| async { Ok(Output::text("results")) });
    let (tools, _) = toolbox_with(search);
    let tools = tools.with_hook(RateLimit::per_tool(1, Duration::from_secs(60)).per_session());
    let (a, b) = (Scope::new().with_session("a"), Scope::new().with_session("b"));
    let search = |scope| tools.call_in(call("1", "search", json!({})), scope);
    assert_eq!(search(&a).await.content, "results");
    assert_eq!(search(&b).await.content, "results", "another session has its own window");
    assert_eq!(search(&a).await.content, "blocked: rate limit: at most 1 call to `search` per 60s; try again in 60s");
}

// ---- circuit breaker ------------------------------------------------------------------

/// A tool that fails while `healthy` is false.
fn flaky(runs: &Arc<AtomicUsize>, healthy: &Arc<AtomicBool>) -> impl DynTool + use<> {
    let healthy = Arc::clone(healthy);
    counted("fetch", Annotations::default(), runs, move |_| {
        let ok = healthy.load(Ordering::SeqCst);
        async move {
            if ok { Ok(Output::text("page")) } else { Err(ToolError::new(ErrorKind::ToolFailed, "upstream is down")) }
        }
    })
}

#[tokio::test]
async fn the_breaker_opens_after_n_failures_in_a_row_and_blocks_without_running_the_tool() {
    let (runs, healthy) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let (tools, records) = toolbox_with(flaky(&runs, &healthy));
    let tools = tools.with_hook(CircuitBreaker::after(3).cool_down(Duration::from_secs(30)));
    let fetch = || tools.call(call("1", "fetch", json!({})));

    for _ in 0..3 {
        assert_eq!(fetch().await.content, "upstream is down");
    }
    let r = fetch().await;
    assert_eq!(r.content, "blocked: `fetch` is failing repeatedly (3 failures in a row); it is paused for 30s");
    assert_eq!(last_outcome(&records), Outcome::Blocked);
    assert_eq!(runs.load(Ordering::SeqCst), 3, "the paused tool did not run");
}

/// A trial that fails by timing out, after longer than the cool-down, is still the only
/// trial while it runs (before, its slot expired with the cool-down and a second trial
/// ran against the failing tool).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trial_slower_than_the_cool_down_is_still_the_only_trial() {
    let runs = Arc::new(AtomicUsize::new(0));
    let hangs = FnTool::new(
        ToolSpec::new("fetch", "A test tool.", json!({"type": "object", "properties": {}}))
            .with_timeout(Duration::from_secs(2)),
        {
            let runs = Arc::clone(&runs);
            move |_| {
                runs.fetch_add(1, Ordering::SeqCst);
                async {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    Ok(Output::text("never"))
                }
            }
        },
    );
    let (tools, _) = toolbox_with(hangs);
    let tools = Arc::new(tools.with_hook(CircuitBreaker::after(1).cool_down(Duration::from_millis(200))));
    let fetch = |id: &'static str| {
        let tools = Arc::clone(&tools);
        tokio::spawn(async move { tools.call(call(id, "fetch", json!({}))).await })
    };
    assert!(fetch("1").await.unwrap().content.contains("did not finish"), "the first call times out: open");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let trial = fetch("2");
    // Past the cool-down, while the trial runs.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let second = fetch("3").await.unwrap();
    assert!(second.content.contains("a trial call is in progress"), "{}", second.content);
    assert!(trial.await.unwrap().content.contains("did not finish"));
    assert_eq!(runs.load(Ordering::SeqCst), 2, "the first call and one trial");
}

#[tokio::test]
async fn the_breaker_counts_failures_in_a_row_only() {
    let (runs, healthy) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let (tools, _) = toolbox_with(flaky(&runs, &healthy));
    let tools = tools.with_hook(CircuitBreaker::after(3));
    let fetch = || tools.call(call("1", "fetch", json!({})));

    fetch().await;
    fetch().await;
    healthy.store(true, Ordering::SeqCst);
    assert_eq!(fetch().await.content, "page", "a success resets the count");
    healthy.store(false, Ordering::SeqCst);
    fetch().await;
    fetch().await;
    // A mistake in the model's arguments says nothing about the tool.
    let bad = tools.call(ToolCall::new("2", "fetch", "not json")).await;
    assert_eq!(bad.kind(), Some(ErrorKind::MalformedJson));
    assert_eq!(fetch().await.content, "upstream is down", "still closed: only 2 failures in a row before this one");
    assert!(fetch().await.content.starts_with("blocked: `fetch` is failing repeatedly (3 failures in a row)"));
}

#[tokio::test]
async fn after_the_cool_down_one_trial_call_closes_the_breaker_on_success() {
    let (runs, healthy) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let (tools, _) = toolbox_with(flaky(&runs, &healthy));
    let cool_down = Duration::from_millis(600);
    let tools = tools.with_hook(CircuitBreaker::after(2).cool_down(cool_down));
    let fetch = || tools.call(call("1", "fetch", json!({})));

    fetch().await;
    fetch().await;
    assert!(fetch().await.content.starts_with("blocked: "));
    healthy.store(true, Ordering::SeqCst);
    tokio::time::sleep(cool_down + Duration::from_millis(100)).await;
    assert_eq!(fetch().await.content, "page", "the trial call runs");
    assert_eq!(fetch().await.content, "page", "and closed the breaker");
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_failed_trial_call_opens_the_breaker_again() {
    let (runs, healthy) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let (tools, _) = toolbox_with(flaky(&runs, &healthy));
    let cool_down = Duration::from_millis(600);
    let tools = tools.with_hook(CircuitBreaker::after(2).cool_down(cool_down));
    let fetch = || tools.call(call("1", "fetch", json!({})));

    fetch().await;
    fetch().await;
    tokio::time::sleep(cool_down + Duration::from_millis(100)).await;
    assert_eq!(fetch().await.content, "upstream is down", "the trial call runs, and fails");
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    let r = fetch().await;
    assert!(
        r.content.starts_with("blocked: `fetch` is failing repeatedly (3 failures in a row); it is paused for "),
        "{}",
        r.content
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3, "paused again");
}

/// A trial call that ends without a verdict on the tool (a later hook blocks it, or it is
/// cancelled) gives its slot back at once: the next call is the trial.
#[tokio::test]
async fn a_trial_call_blocked_later_or_cancelled_frees_the_trial_at_once() {
    let (runs, healthy) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let (tools, _) = toolbox_with(flaky(&runs, &healthy));
    let cool_down = Duration::from_millis(300);
    let deny_once = Arc::new(AtomicBool::new(true));
    let deny = Arc::clone(&deny_once);
    let gate = Hook::before("gate", move |_| {
        if deny.swap(false, Ordering::SeqCst) { Decision::Block("not now".into()) } else { Decision::Continue }
    });
    let tools = tools.with_hook(CircuitBreaker::after(1).cool_down(cool_down)).with_hook(gate);
    deny_once.store(false, Ordering::SeqCst);
    let fetch = || tools.call(call("1", "fetch", json!({})));
    assert_eq!(fetch().await.content, "upstream is down");
    tokio::time::sleep(cool_down + Duration::from_millis(50)).await;
    healthy.store(true, Ordering::SeqCst);
    // The trial passes the breaker, then the gate blocks it.
    deny_once.store(true, Ordering::SeqCst);
    assert_eq!(fetch().await.content, "blocked: not now");
    tokio::task::yield_now().await;
    assert_eq!(fetch().await.content, "page", "the next call is the trial, without waiting for the slot to expire");

    // The same for a trial whose future is dropped mid-call (the tool hangs).
    let hang = Arc::new(AtomicBool::new(false));
    let hangs = Arc::clone(&hang);
    let slow = counted("slow", Annotations::default(), &runs, move |_| {
        let hang = hangs.load(Ordering::SeqCst);
        async move {
            if hang {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
            Err(ToolError::new(ErrorKind::ToolFailed, "upstream is down"))
        }
    });
    let (tools, _) = toolbox_with(slow);
    let tools = tools.with_hook(CircuitBreaker::after(1).cool_down(cool_down));
    let slow_call = || tools.call(call("2", "slow", json!({})));
    assert_eq!(slow_call().await.content, "upstream is down");
    tokio::time::sleep(cool_down + Duration::from_millis(50)).await;
    hang.store(true, Ordering::SeqCst);
    assert!(
        tokio::time::timeout(Duration::from_millis(50), slow_call()).await.is_err(),
        "the trial hangs, and is dropped"
    );
    tokio::task::yield_now().await;
    hang.store(false, Ordering::SeqCst);
    let next = slow_call().await.content;
    assert_eq!(next, "upstream is down", "the cancelled trial gave its slot back: the next call ran as the trial");
}

// ---- result cache ---------------------------------------------------------------------

#[tokio::test]
async fn the_cache_answers_an_identical_call_without_running_the_tool() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let lookup = counted("lookup", read_only(), &runs, move |args| {
        let n = counter.load(Ordering::SeqCst);
        async move { Ok(Output::text(format!("{} (run {n})", args["q"]))) }
    });
    let (tools, records) = toolbox_with(lookup);
    let tools = tools.with_hook(Cache::ttl(Duration::from_secs(60)));

    let first = tools.call(ToolCall::new("1", "lookup", r#"{"q": "rust", "n": 1}"#)).await;
    assert_eq!(first.content, r#""rust" (run 1)"#);
    assert_eq!(last_outcome(&records), Outcome::Ok);
    // The same arguments in another key order are the same call.
    let second = tools.call(ToolCall::new("2", "lookup", r#"{"n": 1, "q": "rust"}"#)).await;
    assert_eq!(second.content, first.content);
    assert_eq!(last_outcome(&records), Outcome::Cached);
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the tool ran once");

    let other = tools.call(ToolCall::new("3", "lookup", r#"{"q": "go", "n": 1}"#)).await;
    assert_eq!(other.content, r#""go" (run 2)"#, "other arguments run the tool");
}

/// A call the cache leads that fails and is retried by an error hook runs the tool again
/// and ends (before, the retry waited for the cache's own flight, which only its end
/// would release: it never ended), and its result is cached for the next call.
#[tokio::test]
async fn a_retried_call_the_cache_leads_runs_again_and_ends() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let flaky = counted("lookup", read_only(), &runs, move |_| {
        let n = counter.load(Ordering::SeqCst);
        async move {
            if n == 1 {
                Err(ToolError::new(ErrorKind::ToolFailed, "try again"))
            } else {
                Ok(Output::text(format!("run {n}")))
            }
        }
    });
    let (tools, records) = toolbox_with(flaky);
    let tools = tools
        .with_hook(Cache::ttl(Duration::from_secs(60)))
        .with_hook(Hook::error("retry", |_: &mut toolkit::ErrorCall<'_>| toolkit::Recovery::Retry));
    let first = tokio::time::timeout(Duration::from_secs(10), tools.call(call("1", "lookup", json!({"q": "x"})))).await;
    let first = first.expect("the retried call ends");
    assert_eq!((first.content.as_str(), first.error), ("run 2", None));
    assert_eq!(runs.load(Ordering::SeqCst), 2, "ran twice: the failure, then the retry");
    let second = tools.call(call("2", "lookup", json!({"q": "x"}))).await;
    assert_eq!(second.content, "run 2");
    assert_eq!(last_outcome(&records), Outcome::Cached);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

/// A store with a byte budget keeps about that much: past it, the entries that expire
/// soonest go first, entries that never expire last (the cache's own store keeps 64 MiB;
/// before, it kept every result of every distinct call until it expired).
#[tokio::test]
async fn a_memory_store_with_a_byte_budget_drops_what_expires_soonest() {
    use toolkit::hooks::store::{MemoryStore, Store};
    let store = MemoryStore::new().with_max_bytes(10_000);
    store.set("forever", vec![b'f'; 1_000], None).await.unwrap();
    for i in 0..100u64 {
        // Each later entry lives longer: k0 expires first.
        store.set(&format!("k{i}"), vec![b'v'; 1_000], Some(Duration::from_secs(60 + i))).await.unwrap();
    }
    let mut kept = Vec::new();
    for i in 0..100u64 {
        if store.get(&format!("k{i}")).await.unwrap().is_some() {
            kept.push(i);
        }
    }
    assert!(kept.len() <= 9, "about 10 KB kept: {kept:?}");
    assert_eq!(kept.last(), Some(&99), "the longest-living stay: {kept:?}");
    assert!(!kept.contains(&0), "the soonest to expire went first: {kept:?}");
    assert!(store.get("forever").await.unwrap().is_some(), "an entry that never expires goes last");
}

/// A burst of identical calls runs the tool once: the others wait for it and are
/// answered from the cache.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_burst_of_identical_calls_runs_the_tool_once() {
    let runs = Arc::new(AtomicUsize::new(0));
    let slow = counted("slow_lookup", read_only(), &runs, |_| async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(Output::text("answer"))
    });
    let (tools, records) = toolbox_with(slow);
    let tools = Arc::new(tools.with_hook(Cache::ttl(Duration::from_secs(60))));
    let burst: Vec<_> = (0..50)
        .map(|i| {
            let tools = Arc::clone(&tools);
            tokio::spawn(async move { tools.call(call(&i.to_string(), "slow_lookup", json!({"q": "x"}))).await })
        })
        .collect();
    for call in burst {
        assert_eq!(call.await.unwrap().content, "answer");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the tool ran once for 50 identical calls");
    let outcomes: Vec<Outcome> = records.lock().unwrap().iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes.len(), 50, "one record per call");
    assert_eq!(outcomes.iter().filter(|o| **o == Outcome::Ok).count(), 1);
    assert_eq!(outcomes.iter().filter(|o| **o == Outcome::Cached).count(), 49);
}

/// Two processes sharing a store (here two toolboxes, each with its own cache hook, on
/// one `MemoryStore`): a cold burst across both runs the tool once; the other process
/// waits for the entry through the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_across_processes_sharing_a_store_runs_the_tool_once() {
    let runs = Arc::new(AtomicUsize::new(0));
    let store = Arc::new(toolkit::hooks::store::MemoryStore::new());
    let replica = |runs: &Arc<AtomicUsize>| {
        let slow = counted("slow_lookup", read_only(), runs, |_| async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok(Output::text("answer"))
        });
        let (tools, records) = toolbox_with(slow);
        (Arc::new(tools.with_hook(Cache::ttl(Duration::from_secs(60)).store(Arc::clone(&store)))), records)
    };
    let (a, records_a) = replica(&runs);
    let (b, records_b) = replica(&runs);
    let burst: Vec<_> = (0..40)
        .map(|i| {
            let tools = Arc::clone(if i % 2 == 0 { &a } else { &b });
            tokio::spawn(async move { tools.call(call(&i.to_string(), "slow_lookup", json!({"q": "x"}))).await })
        })
        .collect();
    for call in burst {
        assert_eq!(call.await.unwrap().content, "answer");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the tool ran once for 40 identical calls in two processes");
    let outcomes: Vec<Outcome> =
        records_a.lock().unwrap().iter().chain(records_b.lock().unwrap().iter()).map(|r| r.outcome).collect();
    assert_eq!(outcomes.len(), 40);
    assert_eq!(outcomes.iter().filter(|o| **o == Outcome::Cached).count(), 39);
}

/// When the call that runs the tool fails, the waiting calls do not hang: one of them
/// runs the tool in its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_first_call_of_a_burst_hands_the_run_to_a_waiting_one() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let flaky = counted("flaky_lookup", read_only(), &runs, move |_| {
        let first = counter.load(Ordering::SeqCst) == 1;
        async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if first { Err(ToolError::new(ErrorKind::ToolFailed, "upstream down")) } else { Ok(Output::text("answer")) }
        }
    });
    let (tools, _) = toolbox_with(flaky);
    let tools = Arc::new(tools.with_hook(Cache::ttl(Duration::from_secs(60))));
    let burst: Vec<_> = (0..10)
        .map(|i| {
            let tools = Arc::clone(&tools);
            tokio::spawn(async move { tools.call(call(&i.to_string(), "flaky_lookup", json!({"q": "x"}))).await })
        })
        .collect();
    let mut contents = Vec::new();
    for call in burst {
        contents
            .push(tokio::time::timeout(Duration::from_secs(10), call).await.expect("no call hangs").unwrap().content);
    }
    assert_eq!(contents.iter().filter(|c| *c == "upstream down").count(), 1, "{contents:?}");
    assert_eq!(contents.iter().filter(|c| *c == "answer").count(), 9, "{contents:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 2, "the failed run, then one more");
}

#[tokio::test]
async fn the_cache_never_serves_a_tool_that_is_neither_read_only_nor_idempotent() {
    let runs = Arc::new(AtomicUsize::new(0));
    let send = counted("send", Annotations::default(), &runs, |_| async { Ok(Output::text("sent")) });
    let (tools, records) = toolbox_with(send);
    let tools = tools.with_hook(Cache::ttl(Duration::from_secs(60)));
    for _ in 0..3 {
        assert_eq!(tools.call(call("1", "send", json!({"q": "hi"}))).await.content, "sent");
        assert_eq!(last_outcome(&records), Outcome::Ok);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 3);

    let runs = Arc::new(AtomicUsize::new(0));
    let put = counted("put", Annotations { idempotent: true, ..Default::default() }, &runs, |_| async {
        Ok(Output::text("stored"))
    });
    let (tools, _) = toolbox_with(put);
    let tools = tools.with_hook(Cache::ttl(Duration::from_secs(60)));
    tools.call(call("1", "put", json!({"q": "x"}))).await;
    tools.call(call("2", "put", json!({"q": "x"}))).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1, "idempotent tools are cached");
}

#[tokio::test]
async fn cache_entries_expire_after_their_ttl() {
    let runs = Arc::new(AtomicUsize::new(0));
    let lookup = counted("lookup", read_only(), &runs, |_| async { Ok(Output::text("answer")) });
    let (tools, records) = toolbox_with(lookup);
    let ttl = Duration::from_millis(600);
    let tools = tools.with_hook(Cache::ttl(ttl));
    let lookup = || tools.call(call("1", "lookup", json!({"q": "x"})));
    lookup().await;
    lookup().await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    assert_eq!(lookup().await.content, "answer");
    assert_eq!(last_outcome(&records), Outcome::Ok);
    assert_eq!(runs.load(Ordering::SeqCst), 2, "expired: the tool ran again");
}

#[tokio::test]
async fn the_cache_keys_on_the_arguments_earlier_hooks_left_and_after_hooks_still_run_on_hits() {
    let tools = toolbox![stat]
        .with_hook(NormalizePaths::under("/srv"))
        .with_hook(Cache::ttl(Duration::from_secs(60)))
        .with_hook(Hook::after("shout", |out: &mut AfterCall<'_>| {
            let loud = out.text().to_uppercase();
            out.set_text(loud);
        }));
    let relative = tools.call(call("1", "stat", json!({"path": "a.txt"}))).await;
    let absolute = tools.call(call("2", "stat", json!({"path": "/srv/a.txt"}))).await;
    assert_eq!(relative.content, "/SRV/A.TXT: 12 BYTES");
    assert_eq!(absolute.content, relative.content, "one entry for both spellings; after hooks ran on the hit");
}

// ---- loop guard -----------------------------------------------------------------------

#[tokio::test]
async fn the_loop_guard_blocks_the_same_call_repeated_and_a_different_call_resets_it() {
    let runs = Arc::new(AtomicUsize::new(0));
    let search = counted("search", Annotations::default(), &runs, |_| async { Ok(Output::text("results")) });
    let (tools, _) = toolbox_with(search);
    let tools = tools.with_hook(LoopGuard::max_repeats(3));
    let same = || tools.call(ToolCall::new("1", "search", r#"{"q": "rust", "page": 1}"#));

    for _ in 0..3 {
        assert_eq!(same().await.content, "results");
    }
    let reordered = tools.call(ToolCall::new("1", "search", r#"{"page": 1, "q": "rust"}"#)).await;
    assert_eq!(
        reordered.content,
        "blocked: you have called `search` with the same arguments 3 times in a row; the result will not change \
         — use the previous result or change the arguments"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(tools.call(call("2", "search", json!({"q": "rust", "page": 2}))).await.content, "results");
    assert_eq!(same().await.content, "results", "a different call in between resets the count");
}

#[tokio::test]
async fn the_loop_guard_keeps_sessions_apart() {
    let runs = Arc::new(AtomicUsize::new(0));
    let search = counted("search", Annotations::default(), &runs, |_| async { Ok(Output::text("results")) });
    let (tools, _) = toolbox_with(search);
    let tools = tools.with_hook(LoopGuard::max_repeats(1));
    let (a, b) = (Scope::new().with_session("a"), Scope::new().with_session("b"));
    let search = |scope| tools.call_in(call("1", "search", json!({"q": "x"})), scope);
    assert_eq!(search(&a).await.content, "results");
    assert_eq!(search(&b).await.content, "results");
    assert_eq!(
        search(&a).await.content,
        "blocked: you have just called `search` with these arguments; the result will not change \
         — use the previous result or change the arguments"
    );
}

// ---- approval -------------------------------------------------------------------------

#[tokio::test]
async fn a_channel_approver_approves_edits_and_rejects_calls() {
    let (approver, mut requests) = ChannelApprover::new(4);
    let ui = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some((request, responder)) = requests.recv().await {
            let answer = match request.call_id.as_str() {
                "approve" => Some(Approval::Approve),
                "edit" => Some(Approval::ApproveWith(json!({"path": "safe.txt"}).as_object().unwrap().clone())),
                "reject" => Some(Approval::Reject("that file is still needed".into())),
                _ => None,
            };
            if let Some(answer) = answer {
                responder.send(answer).unwrap();
            }
            seen.push(request);
        }
        seen
    });
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let tools = toolbox![remove, stat]
        .with_hook(ApprovalGate::new(approver).destructive())
        .with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone()));
    let scope = Scope::new().with_agent("janitor");
    let remove = |id: &str| tools.call_in(call(id, "remove", json!({"path": "a.txt"})), &scope);

    assert_eq!(remove("approve").await.content, "removed a.txt");
    assert_eq!(remove("edit").await.content, "removed safe.txt", "the tool ran with the edited arguments");
    assert_eq!(remove("reject").await.content, "blocked: the user rejected this call: that file is still needed");
    assert_eq!(remove("ignore").await.content, "blocked: the user rejected this call: no answer was given");
    assert_eq!(tools.call(call("stat", "stat", json!({"path": "a.txt"}))).await.content, "a.txt: 12 bytes");

    let outcomes: Vec<Outcome> = records.lock().unwrap().iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, [Outcome::Ok, Outcome::Ok, Outcome::Blocked, Outcome::Blocked, Outcome::Ok]);
    drop(tools);
    let seen = ui.await.unwrap();
    let ids: Vec<&str> = seen.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["approve", "edit", "reject", "ignore"], "only the destructive tool was gated");
    assert_eq!(seen[0].tool, "remove");
    assert_eq!(seen[0].agent.as_deref(), Some("janitor"));
    assert_eq!(seen[0].arguments["path"], "a.txt");
    assert!(seen[0].annotations.destructive);
}

#[tokio::test]
async fn an_edit_that_does_not_fit_the_tool_fails_like_a_bad_call() {
    let (approver, mut requests) = ChannelApprover::new(1);
    tokio::spawn(async move {
        while let Some((_, responder)) = requests.recv().await {
            let _ = responder.send(Approval::ApproveWith(json!({"file": "x"}).as_object().unwrap().clone()));
        }
    });
    let tools = toolbox![remove].with_hook(ApprovalGate::new(approver).tools(["remove"]));
    let r = tools.call(call("1", "remove", json!({"path": "a.txt"}))).await;
    assert!(r.kind().is_some_and(ErrorKind::is_argument_error), "{r:?}");
}

#[tokio::test]
async fn deny_all_rejects_every_gated_call() {
    let tools = toolbox![remove, stat].with_hook(ApprovalGate::default().tools(["remove"]));
    let r = tools.call(call("1", "remove", json!({"path": "a.txt"}))).await;
    assert_eq!(r.content, "blocked: the user rejected this call: it needs a person's approval and none is available");
    let r = tools.call(call("2", "stat", json!({"path": "a.txt"}))).await;
    assert_eq!(r.content, "a.txt: 12 bytes", "an ungated tool runs");
}

/// A writer the test can read back.
#[derive(Clone, Default)]
struct Screen(Arc<Mutex<Vec<u8>>>);

impl Write for Screen {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_console_approver_asks_and_reads_the_answers() {
    let screen = Screen::default();
    let input = "maybe\ny\nn\nnot now\ne\n[1]\ne\n{\"path\": \"b.txt\"}\n";
    let approver = ConsoleApprover::with_io(std::io::Cursor::new(input), screen.clone());
    let tools = toolbox![remove].with_hook(ApprovalGate::new(approver));
    let remove = |id: &str| tools.call(call(id, "remove", json!({"path": "a.txt"})));

    assert_eq!(remove("c1").await.content, "removed a.txt");
    assert_eq!(remove("c2").await.content, "blocked: the user rejected this call: not now");
    assert_eq!(remove("c3").await.content, "removed b.txt");
    assert_eq!(
        remove("c4").await.content,
        "blocked: the user rejected this call: no one answered (the console input is closed)"
    );
    let shown = String::from_utf8(screen.0.lock().unwrap().clone()).unwrap();
    assert!(shown.contains(r#"approval needed: `remove` (call c1) [destructive] with {"path":"a.txt"}"#), "{shown}");
    assert!(shown.contains("please answer y, n or e"), "{shown}");
    assert!(shown.contains("that is not a JSON object"), "{shown}");
}

// ---- together -------------------------------------------------------------------------

#[test]
fn built_ins_have_default_names_that_can_be_changed() {
    let hook = Hook::from(Truncate::chars(10).name("short"));
    assert_eq!(hook.name(), "short");
    let tools = Toolbox::new()
        .with_hook(CircuitBreaker::after(5))
        .with_hook(NormalizePaths::under("/srv"))
        .with_hook(PathSandbox::new().allow("/srv"))
        .with_hook(LoopGuard::max_repeats(3))
        .with_hook(RateLimit::per_tool(5, Duration::from_secs(60)))
        .with_hook(Redactor::new())
        .with_hook(Truncate::chars(1000))
        .with_hook(ApprovalGate::default())
        .with_hook(Cache::ttl(Duration::from_secs(60)));
    assert_eq!(
        tools.hooks().names(),
        [
            "circuit_breaker",
            "normalize_paths",
            "path_sandbox",
            "loop_guard",
            "rate_limit",
            "redact",
            "truncate",
            "approval",
            "cache"
        ]
    );
}

/// Each built-in fails the way that is safe for what it guards: a cache or a breaker
/// that cannot reach its store lets calls through; a redactor that breaks withholds the
/// text; the guards block.
#[test]
fn built_ins_fail_the_safe_way() {
    use toolkit::hook::{Event, OnFailure};
    let policy = |hook: Hook, event: Event| hook.failure_policy(event);
    assert_eq!(policy(Cache::ttl(Duration::from_secs(1)).into(), Event::Before), OnFailure::Continue);
    assert_eq!(policy(CircuitBreaker::after(1).into(), Event::Before), OnFailure::Continue);
    assert_eq!(policy(Redactor::new().into(), Event::After), OnFailure::Block);
    assert_eq!(policy(Truncate::chars(1).into(), Event::After), OnFailure::Continue);
    assert_eq!(policy(PathSandbox::new().allow("/srv").into(), Event::Before), OnFailure::Block);
    assert_eq!(policy(ApprovalGate::default().into(), Event::Before), OnFailure::Block);
    assert_eq!(policy(RateLimit::per_tool(1, Duration::from_secs(1)).into(), Event::Before), OnFailure::Block);
}
