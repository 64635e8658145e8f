//! The hook pipeline as a program and a model notice it: order, rewrites, blocks,
//! short-circuits, recoveries, retries, isolation of failing hooks, the per-call
//! extension map, scopes, and what the call record says.
//!
//! Hooks are built at run time here (`Hook::before(name, closure)`); the `#[hook]`
//! macro has its own tests. Global hooks live in `tests/hooks_global.rs`, a binary of
//! their own, because they act on every toolbox of the process.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use toolkit::hook::{HookError, HookStep};
use toolkit::prelude::*;
use toolkit::{CallRecord, Effect, Hook, Limits, OnFailure, Outcome, Scope};

/// Add two integers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Append a line to the journal.
#[tool]
async fn append(
    /// The line.
    line: String,
    /// A label, optional.
    #[arg(rename = "tag")]
    label: Option<String>,
) -> String {
    match label {
        Some(l) => format!("appended [{l}] {line}"),
        None => format!("appended {line}"),
    }
}

static FLAKY_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Read a value that fails on its first two attempts.
#[tool(idempotent)]
fn flaky(key: String) -> Result<String, std::io::Error> {
    match FLAKY_RUNS.fetch_add(1, Ordering::SeqCst) {
        0 | 1 => Err(std::io::Error::other("backend busy")),
        _ => Ok(format!("value of {key}")),
    }
}

/// Send a payment (not safe to repeat).
#[tool]
fn pay(amount: u32) -> Result<String, std::io::Error> {
    Err(std::io::Error::other(format!("gateway refused {amount}")))
}

/// Panic.
#[tool]
fn boom() -> String {
    panic!("the tool exploded")
}

/// Sleep past the timeout.
#[tool(timeout = "20ms")]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(5)).await;
    "late".into()
}

type Log = Arc<Mutex<Vec<String>>>;

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// A before hook that only notes that it ran.
fn note_before(name: &'static str, log: &Log) -> Hook {
    let log = Arc::clone(log);
    Hook::before(name, move |_: &mut BeforeCall<'_>| log.lock().unwrap().push(name.to_string()))
}

fn recorded(tools: Toolbox) -> (Toolbox, Arc<Mutex<Vec<CallRecord>>>) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    (tools.with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone())), records)
}

fn call(name: &str, args: &str) -> ToolCall {
    ToolCall::new("call_1", name, args)
}

// ---- 1. order ------------------------------------------------------------------------

#[tokio::test]
async fn hooks_run_by_priority_then_scope_then_registration_order() {
    let seen = log();
    let tools = toolbox![add]
        .with_hook(note_before("toolbox_first", &seen))
        .with_hook(note_before("toolbox_second", &seen))
        .with_hook(note_before("toolbox_urgent", &seen).priority(10))
        .with_hook(note_before("toolbox_late", &seen).priority(-5));
    let agent = Scope::new().with_agent("planner").with_hooks(
        toolkit::Hooks::new()
            .with(note_before("agent_default", &seen))
            .with(note_before("agent_high", &seen).priority(20)),
    );
    let r = tools.call_in(call("add", r#"{"a": 1, "b": 2}"#), &agent).await;
    assert_eq!(r.content, "3");
    assert_eq!(
        entries(&seen),
        ["agent_high", "toolbox_urgent", "toolbox_first", "toolbox_second", "agent_default", "toolbox_late"]
    );
}

#[test]
fn a_hook_name_is_unique_within_a_registry() {
    let mut tools = toolbox![add];
    tools.add_hook(Hook::new("audit")).unwrap();
    let e = tools.add_hook(Hook::new("audit")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a hook named `audit` is already registered here; hook names must be unique within a registry"
    );
    // Another registry may reuse the name.
    let mut scope = Scope::new().with_hooks(toolkit::Hooks::new().with(Hook::new("audit")));
    assert_eq!(scope.hooks_mut().names(), ["audit"]);
    assert!(scope.hooks_mut().add(Hook::new("audit")).is_err());
}

#[test]
#[should_panic(expected = "a hook named `audit` is already registered here")]
fn with_hook_reports_a_duplicate_name_at_setup() {
    let _ = toolbox![add].with_hook(Hook::new("audit")).with_hook(Hook::new("audit"));
}

// ---- 2. before -----------------------------------------------------------------------

#[tokio::test]
async fn a_rewrite_is_seen_by_later_hooks_and_by_the_tool_in_both_views() {
    let seen = log();
    let later = Arc::clone(&seen);
    let tools = toolbox![add]
        // JSON view first ...
        .with_hook(Hook::before("double_a", |call: &mut BeforeCall<'_>| {
            let a = call.arguments()["a"].as_i64().unwrap();
            call.arguments_mut().insert("a".into(), (a * 2).into());
        }))
        // ... then the typed view sees the JSON rewrite, and rewrites in turn ...
        .with_hook(Hook::before("typed_b", |call: &mut BeforeCall<'_>| {
            let args = call.typed::<toolkit::Args<add>>().expect("add's own struct");
            args.b += 100;
        }))
        // ... and a later JSON view sees the typed rewrite.
        .with_hook(Hook::before("observe", move |call: &mut BeforeCall<'_>| {
            later.lock().unwrap().push(serde_json::Value::Object(call.arguments().clone()).to_string());
        }));
    let (tools, records) = recorded(tools);
    let r = tools.call(call("add", r#"{"a": 5, "b": 1}"#)).await;
    assert_eq!(r.content, "111");
    assert_eq!(entries(&seen), [r#"{"a":10,"b":101}"#]);
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.arguments, r#"{"a": 5, "b": 1}"#, "as the model sent them");
    assert_eq!(record.rewritten_arguments.as_deref(), Some(r#"{"a":10,"b":101}"#));
    let effects: Vec<_> = record.hooks.iter().map(|h| (h.hook.to_string(), h.effect)).collect();
    assert_eq!(effects, [("double_a".into(), Effect::Rewrote), ("typed_b".into(), Effect::Rewrote)]);
}

#[tokio::test]
async fn renamed_and_optional_fields_keep_their_wire_names_in_the_json_view() {
    let seen = log();
    let s = Arc::clone(&seen);
    let tools = toolbox![append].with_hook(Hook::before("look", move |call: &mut BeforeCall<'_>| {
        s.lock().unwrap().push(serde_json::Value::Object(call.arguments().clone()).to_string());
        call.arguments_mut().insert("tag".into(), "hooked".into());
    }));
    let r = tools.call(call("append", r#"{"line": "x"}"#)).await;
    assert_eq!(entries(&seen), [r#"{"line":"x"}"#]);
    assert_eq!(r.content, "appended [hooked] x");
}

#[tokio::test]
async fn a_rewrite_into_invalid_arguments_gets_the_models_error() {
    let tools = toolbox![add].with_hook(Hook::before("breaks_it", |call: &mut BeforeCall<'_>| {
        call.arguments_mut().insert("a".into(), "five".into());
    }));
    let r = tools.call(call("add", r#"{"a": 5, "b": 1}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::InvalidType));
    assert_eq!(
        r.content,
        r#"invalid type for `a`: got "five", expected an integer from -9223372036854775808 to 9223372036854775807; expected {a: integer, b: integer}"#
    );
}

#[tokio::test]
async fn a_block_stops_later_hooks_and_the_tool_and_the_model_hears_the_reason() {
    let seen = log();
    let ran = Arc::new(AtomicUsize::new(0));
    let r2 = Arc::clone(&ran);
    let tools = toolbox![add]
        .with_hook(Hook::before("guard", |_: &mut BeforeCall<'_>| Decision::Block("adding is paused".into())))
        .with_hook(note_before("after_guard", &seen))
        .with_hook(Hook::after("count", move |_: &mut AfterCall<'_>| {
            r2.fetch_add(1, Ordering::SeqCst);
        }));
    let (tools, records) = recorded(tools);
    let r = tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await;
    assert_eq!(r.content, "blocked: adding is paused");
    assert_eq!(r.kind(), Some(ErrorKind::Blocked));
    assert!(entries(&seen).is_empty(), "later before hooks do not run");
    assert_eq!(ran.load(Ordering::SeqCst), 0, "there is no output for after hooks");
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.outcome, Outcome::Blocked);
    assert_eq!(record.hooks[0].effect, Effect::Blocked);
    assert_eq!(record.tool_duration, None, "the tool never ran");
}

#[tokio::test]
async fn a_return_skips_the_tool_but_not_the_after_hooks_and_reads_as_cached() {
    let tools = toolbox![pay]
        .with_hook(Hook::before("cache", |_: &mut BeforeCall<'_>| Decision::Return(Output::text("paid earlier"))))
        .with_hook(Hook::after("mark", |out: &mut AfterCall<'_>| {
            let text = format!("{} (cached: {})", out.text(), out.is_cached());
            out.set_text(text);
        }));
    let (tools, records) = recorded(tools);
    let r = tools.call(call("pay", r#"{"amount": 3}"#)).await;
    assert_eq!(r.content, "paid earlier (cached: true)");
    assert!(!r.is_error());
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.outcome, Outcome::Cached);
    // Its own record says so (the shared run counter cannot: other tests run `pay` at
    // the same time).
    assert_eq!(record.tool_duration, None, "the tool did not run");
}

// ---- 3. after ------------------------------------------------------------------------

#[tokio::test]
async fn after_rewrites_chain_and_the_raw_output_stays_as_the_tool_made_it() {
    let raw_seen = log();
    let seen = Arc::clone(&raw_seen);
    let tools = toolbox![add]
        .with_hook(Hook::after("wrap", |out: &mut AfterCall<'_>| {
            let t = format!("[{}]", out.text());
            out.set_text(t);
        }))
        .with_hook(
            Hook::after("shout", move |out: &mut AfterCall<'_>| {
                seen.lock().unwrap().push(format!(
                    "{} / {} / {:?}",
                    out.output().as_str(),
                    out.text(),
                    out.raw::<i64>()
                ));
                out.text_mut().push('!');
            })
            .reading_raw(),
        );
    let r = tools.call(call("add", r#"{"a": 40, "b": 2}"#)).await;
    assert_eq!(r.content, "[42]!");
    assert_eq!(entries(&raw_seen), ["42 / [42] / Some(42)"]);
}

#[tokio::test]
async fn the_typed_output_is_kept_only_when_a_hook_says_it_reads_it() {
    let raw_seen = log();
    let seen = Arc::clone(&raw_seen);
    let tools = toolbox![add].with_hook(Hook::after("peek", move |out: &mut AfterCall<'_>| {
        seen.lock().unwrap().push(format!("{:?}", out.raw::<i64>()));
    }));
    tools.call(call("add", r#"{"a": 40, "b": 2}"#)).await;
    assert_eq!(entries(&raw_seen), ["None"], "no hook declared `reading_raw`: the tool keeps no typed value");
}

// ---- 4. error ------------------------------------------------------------------------

#[tokio::test]
async fn error_hooks_see_every_kind_of_failure() {
    let kinds = log();
    let k = Arc::clone(&kinds);
    let tools = toolbox![add, pay, boom, slow].with_hook(Hook::error("watch", move |err: &mut ErrorCall<'_>| {
        k.lock().unwrap().push(format!("{}:{}", err.tool(), err.kind()));
    }));
    for (name, args) in [
        ("nope", "{}"),
        ("add", r#"{"a": 1}"#),
        ("add", "{oops"),
        ("pay", r#"{"amount": 1}"#),
        ("boom", "{}"),
        ("slow", "{}"),
    ] {
        let r = tools.call(call(name, args)).await;
        assert!(r.is_error(), "{name} {args}");
    }
    assert_eq!(
        entries(&kinds),
        [
            "nope:unknown_tool",
            "add:missing_field",
            "add:malformed_json",
            "pay:tool_failed",
            "boom:panicked",
            "slow:timed_out"
        ]
    );
}

#[tokio::test]
async fn a_message_replaces_what_the_model_reads_and_the_original_stays_with_the_operator() {
    let tools = toolbox![pay].with_hook(Hook::error("friendly", |err: &mut ErrorCall<'_>| {
        Recovery::Message(format!("payments are offline ({}); tell the user to try tomorrow", err.kind()))
    }));
    let (tools, records) = recorded(tools);
    let r = tools.call(call("pay", r#"{"amount": 7}"#)).await;
    assert_eq!(r.content, "payments are offline (tool_failed); tell the user to try tomorrow");
    assert_eq!(r.kind(), Some(ErrorKind::ToolFailed), "still an error for the model");
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.outcome, Outcome::Recovered(ErrorKind::ToolFailed));
    assert!(record.detail.unwrap().contains("gateway refused 7"));
}

#[tokio::test]
async fn retry_reruns_idempotent_tools_a_bounded_number_of_times_only() {
    let attempts = log();
    let a = Arc::clone(&attempts);
    let retry = move |err: &mut ErrorCall<'_>| {
        a.lock().unwrap().push(format!("{}#{}", err.tool(), err.attempt()));
        Recovery::Retry
    };
    let tools = toolbox![flaky, pay].with_hook(Hook::error("retry", retry));
    let (tools, records) = recorded(tools);

    // `flaky` fails twice, then works: two retries are within the default limit.
    let r = tools.call(call("flaky", r#"{"key": "k"}"#)).await;
    assert_eq!(r.content, "value of k");
    let record = records.lock().unwrap()[0].clone();
    assert_eq!((record.outcome, record.attempts), (Outcome::Ok, 3));

    // `pay` is not idempotent: asked to retry, it is not.
    let r = tools.call(call("pay", r#"{"amount": 1}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::ToolFailed));
    assert_eq!(records.lock().unwrap()[1].attempts, 1, "run once, not retried");
    assert_eq!(entries(&attempts), ["flaky#1", "flaky#2", "pay#1"]);

    // With the limit at 1, `flaky` (reset) fails after one retry.
    FLAKY_RUNS.store(0, Ordering::SeqCst);
    let tools = toolbox![flaky]
        .with_limits(Limits { max_retries: 1, ..Limits::default() })
        .with_hook(Hook::error("retry", |_: &mut ErrorCall<'_>| Recovery::Retry));
    let r = tools.call(call("flaky", r#"{"key": "k"}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::ToolFailed));
    assert_eq!(FLAKY_RUNS.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn propagate_passes_the_failure_to_the_next_error_hook() {
    let tools = toolbox![pay]
        .with_hook(Hook::error("first", |_: &mut ErrorCall<'_>| Recovery::Propagate))
        .with_hook(Hook::error("second", |_: &mut ErrorCall<'_>| Recovery::Message("second spoke".into())));
    assert_eq!(tools.call(call("pay", r#"{"amount": 1}"#)).await.content, "second spoke");
}

// ---- 5. isolation --------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Failure {
    Err,
    Panic,
    Timeout,
    /// Fails with words for the model, at once or after waiting.
    ForModel {
        waits: bool,
    },
}

struct Failing(Failure);

impl Failing {
    fn step<'a, T: Send + 'a>(&self) -> HookStep<'a, T> {
        match self.0 {
            Failure::Err => HookStep::Ready(Err(HookError::new("policy service unreachable"))),
            Failure::Panic => panic!("hook bug"),
            Failure::Timeout => HookStep::Pending(Box::pin(async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                Err(HookError::new("unreachable"))
            })),
            Failure::ForModel { waits } => {
                let error = HookError::for_model("ask the user for the account number first");
                if waits {
                    HookStep::Pending(Box::pin(async move {
                        tokio::task::yield_now().await;
                        Err(error)
                    }))
                } else {
                    HookStep::Ready(Err(error))
                }
            }
        }
    }
}

impl toolkit::hook::BeforeHook for Failing {
    fn before<'a>(&'a self, _: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        self.step()
    }
}
impl toolkit::hook::AfterHook for Failing {
    fn after<'a>(&'a self, _: &'a mut AfterCall<'_>) -> HookStep<'a, ()> {
        self.step()
    }
}
impl toolkit::hook::ErrorHook for Failing {
    fn error<'a>(&'a self, _: &'a mut ErrorCall<'_>) -> HookStep<'a, Recovery> {
        self.step()
    }
}

#[tokio::test]
async fn a_failing_hook_is_handled_by_its_policy_for_every_event_and_every_failure() {
    for failure in [Failure::Err, Failure::Panic, Failure::Timeout] {
        for policy in [None, Some(OnFailure::Block), Some(OnFailure::Continue)] {
            let configure = |hook: Hook| {
                let hook = hook.timeout(Duration::from_millis(20));
                match policy {
                    Some(p) => hook.on_failure(p),
                    None => hook,
                }
            };
            let case = format!("{failure:?} with {policy:?}");
            let blocked = "blocked: policy check `sentinel` failed";

            // Before: blocks by default (fail closed).
            let tools = toolbox![add].with_hook(configure(Hook::new("sentinel").on_before(Failing(failure))));
            let (tools, records) = recorded(tools);
            let r = tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await;
            let expect_block = policy != Some(OnFailure::Continue);
            assert_eq!(r.content, if expect_block { blocked } else { "3" }, "before, {case}");
            let record = records.lock().unwrap()[0].clone();
            assert_eq!(record.hooks[0].effect, Effect::Failed, "before, {case}");
            assert!(record.hooks[0].detail.as_ref().unwrap().starts_with("before hook `sentinel` failed: "), "{case}");

            // After: continues by default (fail open), the output unchanged.
            let tools = toolbox![add]
                .with_hook(Hook::after("rewrite", |out: &mut AfterCall<'_>| out.set_text("forty-two")))
                .with_hook(configure(Hook::new("sentinel").on_after(Failing(failure)).priority(-1)));
            let r = tools.call(call("add", r#"{"a": 40, "b": 2}"#)).await;
            let expect_block = policy == Some(OnFailure::Block);
            assert_eq!(r.content, if expect_block { blocked } else { "forty-two" }, "after, {case}");

            // Error: continues by default, the failure passed on as it was.
            let tools = toolbox![pay].with_hook(configure(Hook::new("sentinel").on_error(Failing(failure))));
            let r = tools.call(call("pay", r#"{"amount": 9}"#)).await;
            if expect_block {
                assert_eq!(r.content, blocked, "error, {case}");
            } else {
                assert_eq!(r.kind(), Some(ErrorKind::ToolFailed), "error, {case}");
                assert!(r.content.contains("gateway refused 9"), "error, {case}: {}", r.content);
            }
        }
    }
}

#[tokio::test]
async fn a_failure_for_the_model_reaches_it_on_every_event_waiting_or_not() {
    let said = "blocked: ask the user for the account number first";
    for waits in [false, true] {
        let hooks = [
            (
                "before",
                Hook::new("explains").on_before(Failing(Failure::ForModel { waits })),
                "add",
                r#"{"a": 1, "b": 2}"#,
            ),
            (
                "after",
                Hook::new("explains").on_after(Failing(Failure::ForModel { waits })),
                "add",
                r#"{"a": 1, "b": 2}"#,
            ),
            ("error", Hook::new("explains").on_error(Failing(Failure::ForModel { waits })), "pay", r#"{"amount": 3}"#),
        ];
        for (event, hook, tool, args) in hooks {
            let (tools, records) = recorded(toolbox![add, pay].with_hook(hook.on_failure(OnFailure::Block)));
            let r = tools.call(call(tool, args)).await;
            assert_eq!(r.content, said, "{event}, waits {waits}");
            assert_eq!(r.kind(), Some(ErrorKind::Blocked), "{event}, waits {waits}");
            let record = records.lock().unwrap()[0].clone();
            assert_eq!(record.hooks[0].effect, Effect::Failed, "{event}, waits {waits}");
            let detail = record.hooks[0].detail.clone().unwrap();
            assert_eq!(detail, format!("{event} hook `explains` failed: ask the user for the account number first"));
        }
    }
}

/// The same policies when the whole pipeline runs with no future (a sync tool, sync
/// hooks: closures), where a panic or an error is the only way to fail.
#[tokio::test]
async fn a_failing_sync_hook_is_handled_by_its_policy_too() {
    let fail = |panics: bool| -> Result<(), String> {
        if panics {
            panic!("sync hook bug");
        }
        Err("refused".into())
    };
    for panics in [false, true] {
        for policy in [None, Some(OnFailure::Block), Some(OnFailure::Continue)] {
            let set = |hook: Hook| match policy {
                Some(p) => hook.on_failure(p),
                None => hook,
            };
            let case = format!("panics {panics}, {policy:?}");
            let blocked = "blocked: policy check `sync_sentinel` failed";
            let tools =
                toolbox![add].with_hook(set(Hook::before("sync_sentinel", move |_: &mut BeforeCall<'_>| fail(panics))));
            let r = tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await;
            assert_eq!(r.content, if policy == Some(OnFailure::Continue) { "3" } else { blocked }, "before, {case}");

            let tools = toolbox![add].with_hook(set(Hook::after("sync_sentinel", move |out: &mut AfterCall<'_>| {
                out.set_text("changed");
                fail(panics)
            })));
            let r = tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await;
            assert_eq!(r.content, if policy == Some(OnFailure::Block) { blocked } else { "3" }, "after, {case}");

            let tools = toolbox![boom].with_hook(set(Hook::error("sync_sentinel", move |_: &mut ErrorCall<'_>| {
                fail(panics).map(|()| Recovery::Propagate)
            })));
            let r = tools.call(call("boom", "{}")).await;
            let expected =
                if policy == Some(OnFailure::Block) { Some(ErrorKind::Blocked) } else { Some(ErrorKind::Panicked) };
            assert_eq!(r.kind(), expected, "error, {case}");
        }
    }
}

/// A hook that says it never waits (`is_sync`) but returns a future has failed: the
/// pipeline that trusted it cannot wait.
#[tokio::test]
async fn a_hook_that_claims_to_be_sync_and_waits_has_failed() {
    struct Liar;
    impl toolkit::hook::BeforeHook for Liar {
        fn before<'a>(&'a self, _: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
            HookStep::Pending(Box::pin(async { Ok(Decision::Continue) }))
        }
        fn is_sync(&self) -> bool {
            true
        }
    }
    let tools = toolbox![add].with_hook(Hook::new("liar").on_before(Liar));
    let (tools, records) = recorded(tools);
    let r = tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await;
    assert_eq!(r.content, "blocked: policy check `liar` failed");
    let detail = records.lock().unwrap()[0].hooks[0].detail.clone().unwrap();
    assert!(detail.contains("says it is sync"), "{detail}");
}

#[tokio::test]
async fn a_failing_after_hook_leaves_no_half_rewrite_behind() {
    let tools = toolbox![add].with_hook(Hook::after("half", |out: &mut AfterCall<'_>| -> Result<(), String> {
        out.set_text("half-done");
        Err("gave up".into())
    }));
    assert_eq!(tools.call(call("add", r#"{"a": 1, "b": 1}"#)).await.content, "2");
}

// ---- 6. per-call context ---------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extension_map_carries_state_from_before_to_after_of_the_same_call_only() {
    #[derive(Debug)]
    struct Started(Instant, String);
    let tools = toolbox![append]
        .with_hook(Hook::before("start", |call: &mut BeforeCall<'_>| {
            let line = call.arguments()["line"].as_str().unwrap().to_string();
            call.extensions_mut().insert(Started(Instant::now(), line));
        }))
        .with_hook(Hook::after("finish", |out: &mut AfterCall<'_>| {
            let Started(at, line) = out.extensions_mut().remove::<Started>().expect("set by `start`");
            assert!(at <= Instant::now(), "the start time this call's before hook stored");
            let t = format!(
                "{} (before hook saw `{line}`, attempt {}, agent {:?})",
                out.text(),
                out.attempt(),
                out.agent()
            );
            out.set_text(t);
        }));
    let scope = Scope::new().with_agent("writer").with_session("s-1");
    let calls: Vec<_> =
        (0..50).map(|i| ToolCall::new(format!("c{i}"), "append", format!(r#"{{"line": "l{i}"}}"#))).collect();
    let results = tools.call_all_in(calls, &scope).await;
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r.content, format!("appended l{i} (before hook saw `l{i}`, attempt 1, agent Some(\"writer\"))"));
    }
}

#[tokio::test]
async fn hooks_read_the_call_and_its_labels() {
    let seen = log();
    let s = Arc::clone(&seen);
    let debugged = log();
    let d = Arc::clone(&debugged);
    let tools = toolbox![add].with_hook(Hook::before("labels", move |call: &mut BeforeCall<'_>| {
        d.lock().unwrap().push(format!("{:?}", &**call));
        s.lock().unwrap().push(format!(
            "{} {} {:?} {:?} {:?} read_only={}",
            call.call_id(),
            call.tool(),
            call.agent(),
            call.task(),
            call.session(),
            call.spec().unwrap().annotations.read_only
        ));
    }));
    let scope = Scope::new().with_agent("a").with_task("t").with_session("s");
    let (tools, records) = recorded(tools);
    tools.call_in(ToolCall::new("id-9", "add", r#"{"a":1,"b":1}"#), &scope).await;
    assert_eq!(entries(&seen), [r#"id-9 add Some("a") Some("t") Some("s") read_only=true"#]);
    // What a hook logs with `{:?}`: the call and its scope's labels, the spec by its name.
    assert_eq!(
        entries(&debugged),
        [
            r#"CallInfo { call_id: "id-9", tool: "add", raw: "{\"a\":1,\"b\":1}", spec: Some("add"), agent: Some("a"), task: Some("t"), session: Some("s"), attempt: 1, run: None, decision: None, .. }"#
        ]
    );
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(
        (record.agent.as_deref(), record.task.as_deref(), record.session.as_deref()),
        (Some("a"), Some("t"), Some("s"))
    );
}

// ---- 7. scoping ------------------------------------------------------------------------

#[tokio::test]
async fn tool_lists_and_patterns_narrow_a_hook() {
    let seen = log();
    let tools = toolbox![add, append, pay]
        .with_hook(note_before("only_add", &seen).for_tools(["add"]))
        .with_hook(note_before("a_star", &seen).matching("a*"));
    tools.call(call("add", r#"{"a":1,"b":1}"#)).await;
    tools.call(call("append", r#"{"line":"x"}"#)).await;
    tools.call(call("pay", r#"{"amount":1}"#)).await;
    assert_eq!(entries(&seen), ["only_add", "a_star", "a_star"]);
}

#[tokio::test]
async fn run_time_tools_go_through_the_same_hooks() {
    let spec = ToolSpec::new(
        "mcp_echo",
        "Echo.",
        serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    );
    let mut tools = Toolbox::new().with_hook(
        Hook::before("no_secrets", |call: &mut BeforeCall<'_>| match call.arguments()["text"].as_str() {
            Some(t) if t.contains("secret") => Decision::Block("that text is confidential".into()),
            _ => Decision::Continue,
        })
        .matching("mcp_*"),
    );
    tools
        .add_dynamic(toolkit::FnTool::new(spec, |args| async move {
            Ok(Output::text(args["text"].as_str().unwrap_or_default().to_string()))
        }))
        .unwrap();
    assert_eq!(tools.call(call("mcp_echo", r#"{"text":"hi"}"#)).await.content, "hi");
    assert_eq!(
        tools.call(call("mcp_echo", r#"{"text":"the secret"}"#)).await.content,
        "blocked: that text is confidential"
    );
}

// ---- 9. records ------------------------------------------------------------------------

#[tokio::test]
async fn every_call_yields_one_record_with_its_outcome() {
    let tools = toolbox![add, pay, boom]
        .with_hook(Hook::before("deny_boom", |call: &mut BeforeCall<'_>| {
            if call.tool() == "boom" { Decision::Block("no".into()) } else { Decision::Continue }
        }))
        .with_hook(Hook::error("soften", |err: &mut ErrorCall<'_>| {
            if err.tool() == "pay" { Recovery::Message("later".into()) } else { Recovery::Propagate }
        }));
    let (tools, records) = recorded(tools);
    let calls = vec![
        ToolCall::new("1", "add", r#"{"a":1,"b":1}"#),
        ToolCall::new("2", "boom", "{}"),
        ToolCall::new("3", "pay", r#"{"amount":1}"#),
        ToolCall::new("4", "add", "[]"),
        ToolCall::new("5", "ghost", "{}"),
    ];
    let results = tools.call_all(calls).await;
    assert_eq!(results.len(), 5);
    let mut got: Vec<_> = records.lock().unwrap().iter().map(|r| (r.call_id.clone(), r.outcome.to_string())).collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("1".to_string(), "ok".to_string()),
            ("2".into(), "blocked".into()),
            ("3".into(), "recovered(tool_failed)".into()),
            ("4".into(), "failed(not_an_object)".into()),
            ("5".into(), "failed(unknown_tool)".into()),
        ]
    );
}

#[tokio::test]
async fn hooks_added_or_removed_after_calls_act_from_the_next_call() {
    // Which hooks act on a tool is worked out once and kept: every change to the hooks
    // or the tools must be seen by the next call.
    let block = |name: &'static str| Hook::before(name, move |_: &mut BeforeCall<'_>| Decision::Block(name.into()));
    let mut tools = toolbox![add].with_hook(Hook::before("first", |_: &mut BeforeCall<'_>| ()));
    assert_eq!(tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await.content, "3");

    tools.add_hook(block("added")).unwrap();
    assert_eq!(tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await.content, "blocked: added");

    tools.hooks_mut().remove("added");
    assert_eq!(tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await.content, "3");

    tools.hooks_mut().add(block("only_boom").for_tools(["boom"])).unwrap();
    tools.add(boom {}).unwrap();
    assert_eq!(tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await.content, "3");
    assert_eq!(tools.call(call("boom", "{}")).await.content, "blocked: only_boom");

    let tools = tools.with_hook(block("last"));
    assert_eq!(tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await.content, "blocked: last");
}

/// `on_failure = continue` means "as if the hook had not run" for before hooks too: a
/// hook that rewrote the arguments and then failed (an error, a panic, an overrun of
/// its timeout) leaves them as they were, in both views.
#[tokio::test]
async fn a_before_hook_that_fails_open_leaves_no_half_rewrite_behind() {
    let json_then_err = Hook::before("json_then_err", |call: &mut BeforeCall<'_>| -> Result<(), String> {
        call.arguments_mut().insert("a".into(), serde_json::json!(100));
        Err("gave up".into())
    });
    let typed_then_panic = Hook::before("typed_then_panic", |call: &mut BeforeCall<'_>| -> Decision {
        if let Some(args) = call.typed::<AddArgs>() {
            args.b = 100;
        }
        panic!("hook bug");
    });
    for hook in [json_then_err, typed_then_panic] {
        let name = hook.name().to_owned();
        let tools = toolbox![add].with_hook(hook.on_failure(OnFailure::Continue));
        let (tools, records) = recorded(tools);
        let r = tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await;
        assert_eq!(r.content, "3", "{name}: the tool ran with the arguments as the model sent them");
        let record = records.lock().unwrap()[0].clone();
        assert_eq!(record.rewritten_arguments, None, "{name}: no rewrite reached the tool");
        assert_eq!(record.hooks[0].effect, Effect::Failed, "{name}");
    }

    // A later hook that succeeds still sees, and may rewrite, the undone arguments.
    let tools = toolbox![add]
        .with_hook(
            Hook::before("broken", |call: &mut BeforeCall<'_>| -> Result<(), String> {
                call.arguments_mut().insert("a".into(), serde_json::json!(100));
                Err("gave up".into())
            })
            .on_failure(OnFailure::Continue)
            .priority(1),
        )
        .with_hook(Hook::before("double_b", |call: &mut BeforeCall<'_>| {
            let b = call.arguments()["b"].as_i64().unwrap();
            call.arguments_mut().insert("b".into(), serde_json::json!(b * 2));
        }));
    assert_eq!(tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await.content, "5");
}

/// The same for an async hook that overruns its timeout after rewriting.
#[tokio::test]
async fn a_before_hook_that_times_out_open_leaves_no_half_rewrite_behind() {
    struct Slow;
    impl toolkit::hook::BeforeHook for Slow {
        fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
            call.arguments_mut().insert("a".into(), serde_json::json!(100));
            HookStep::Pending(Box::pin(async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                Ok(Decision::Continue)
            }))
        }
    }
    let tools = toolbox![add].with_hook(
        Hook::new("slow").on_before(Slow).on_failure(OnFailure::Continue).timeout(Duration::from_millis(20)),
    );
    assert_eq!(tools.call(call("add", r#"{"a": 1, "b": 2}"#)).await.content, "3");
}
