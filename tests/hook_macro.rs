//! What `#[hook]` and `hooks!` generate, as a program notices it: typed hooks see the
//! tool's own argument struct and typed output, the attribute's options reach the `Hook`,
//! an async hook's timeout is enforced, and the JSON view of typed arguments is the JSON
//! the model sent.
//!
//! Compile-time behaviour (accepted signatures, diagnostics) is in `tests/ui`.

use std::sync::Mutex;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolkit::hook::{Event, Filter};
use toolkit::prelude::*;
use toolkit::{FnTool, Hook, OnFailure};

/// Read a file under the data directory.
#[tool(read_only)]
fn read_file(
    /// The path.
    path: String,
    /// Stop after this many lines.
    #[arg(rename = "max_lines")]
    limit: Option<u32>,
    /// Follow symbolic links.
    #[arg(default)]
    follow: bool,
) -> String {
    format!("read {path} (limit {limit:?}, follow {follow})")
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Forecast {
    city: String,
    high: i32,
}

/// Forecast tomorrow's weather.
#[tool]
async fn forecast(city: String) -> Result<Forecast, std::io::Error> {
    Ok(Forecast { high: city.len() as i32 * 5, city })
}

// ---- typed before hooks ------------------------------------------------------------

/// Makes relative paths absolute.
#[hook(before, tools = [read_file])]
fn absolute(args: &mut ReadFileArgs) {
    if !args.path.starts_with('/') {
        args.path = format!("/data/{}", args.path);
    }
    args.limit.get_or_insert(10);
}

#[tokio::test]
async fn a_typed_before_hook_rewrites_the_argument_struct_and_the_tool_sees_it() {
    let tools = toolbox![read_file].with_hooks(hooks![absolute]);
    let r = tools.call(ToolCall::new("1", "read_file", r#"{"path": "notes.txt"}"#)).await;
    assert_eq!(r.content, "read /data/notes.txt (limit Some(10), follow false)");
    let r = tools.call(ToolCall::new("2", "read_file", r#"{"path": "/etc/hosts", "max_lines": 2}"#)).await;
    assert_eq!(r.content, "read /etc/hosts (limit Some(2), follow false)");
}

#[tokio::test]
async fn a_typed_hook_acts_only_on_its_tool_and_does_nothing_for_a_run_time_tool_of_that_name() {
    // The hook's filter names `read_file`; `forecast` is untouched.
    let tools = toolbox![read_file, forecast].with_hooks(hooks![absolute]);
    let r = tools.call(ToolCall::new("1", "forecast", r#"{"city": "Oslo"}"#)).await;
    assert_eq!(r.content, r#"{"city":"Oslo","high":20}"#);

    // A tool defined at run time under the same name has no `ReadFileArgs`: the typed
    // hook leaves its arguments alone.
    let spec = <read_file as Tool>::spec().clone();
    let mut tools = Toolbox::new().with_hooks(hooks![absolute]);
    tools
        .add_dynamic(FnTool::new(spec, |args: serde_json::Map<String, serde_json::Value>| async move {
            Ok(Output::text(format!("dynamic {}", args["path"])))
        }))
        .unwrap();
    let r = tools.call(ToolCall::new("2", "read_file", r#"{"path": "notes.txt"}"#)).await;
    assert_eq!(r.content, r#"dynamic "notes.txt""#);
}

// ---- typed after hooks -------------------------------------------------------------

static RAW_SEEN: Mutex<Vec<Option<Forecast>>> = Mutex::new(Vec::new());

/// Shows the model a summary built from the typed output.
#[hook(after, tools = [forecast])]
fn summarize(out: &mut AfterCall<'_>, raw: Option<&Forecast>) {
    RAW_SEEN.lock().unwrap().push(raw.cloned());
    if let Some(f) = raw {
        out.set_text(format!("{}: high of {}", f.city, f.high));
    }
}

#[tokio::test]
async fn a_typed_after_hook_reads_the_tools_typed_output() {
    let tools = toolbox![forecast].with_hooks(hooks![summarize]);
    let r = tools.call(ToolCall::new("1", "forecast", r#"{"city": "Lima"}"#)).await;
    assert_eq!(r.content, "Lima: high of 20");
    assert_eq!(*RAW_SEEN.lock().unwrap(), [Some(Forecast { city: "Lima".into(), high: 20 })]);
}

// ---- options -----------------------------------------------------------------------

/// Only for tools imported from an MCP server.
#[hook(before, name = "mcp-guard", priority = -3, on_failure = continue, matching = "mcp_*", timeout = "250ms")]
async fn guard(call: &mut BeforeCall<'_>) -> Decision {
    let _ = call;
    Decision::Continue
}

#[hook(error, priority = 7)]
fn friendly(err: &ErrorCall<'_>) -> Recovery {
    Recovery::Message(format!("sorry: {}", err.error().message))
}

#[test]
fn the_attributes_options_reach_the_hook() {
    let hook = guard::hook();
    assert_eq!(guard::NAME, "mcp-guard");
    assert_eq!(hook.name(), "mcp-guard");
    assert_eq!(hook.events(), [Event::Before]);
    assert_eq!(hook.get_priority(), -3);
    assert_eq!(hook.failure_policy(Event::Before), OnFailure::Continue);
    assert_eq!(hook.get_timeout(), Some(Duration::from_millis(250)));
    assert_eq!(hook.filter(), &Filter::Matching("mcp_*".into()));

    // Defaults: the function's name, priority 0, the event's own policy, no timeout,
    // every tool.
    let hook = friendly::hook();
    assert_eq!(hook.name(), "friendly");
    assert_eq!(hook.events(), [Event::Error]);
    assert_eq!(hook.get_priority(), 7);
    assert_eq!(hook.failure_policy(Event::Error), OnFailure::Continue);
    assert_eq!(hook.get_timeout(), None);
    assert_eq!(hook.filter(), &Filter::All);

    // `tools = [..]` names the tools by their tool names.
    assert_eq!(absolute::hook().filter(), &Filter::Tools(vec!["read_file".into()]));
    assert_eq!(absolute::hook().failure_policy(Event::Before), OnFailure::Block);
    // The handle converts into the same hook.
    let from: Hook = absolute {}.into();
    assert_eq!(from.name(), "absolute");
}

#[test]
fn hooks_keeps_the_listed_hooks_in_running_order() {
    let hooks = hooks![absolute, guard, friendly];
    // Priority first (7, 0, -3), then the order listed.
    assert_eq!(hooks.names(), ["friendly", "absolute", "mcp-guard"]);
}

// ---- timeouts ----------------------------------------------------------------------

static STUCK_FINISHED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Never finishes in time.
#[hook(before, timeout = "20ms")]
async fn stuck(call: &mut BeforeCall<'_>) {
    let _ = call;
    tokio::time::sleep(Duration::from_secs(5)).await;
    STUCK_FINISHED.store(true, std::sync::atomic::Ordering::SeqCst);
}

#[tokio::test]
async fn an_async_hook_past_its_timeout_blocks_the_call_under_the_default_policy() {
    let tools = toolbox![read_file].with_hooks(hooks![stuck]);
    let r = tools.call(ToolCall::new("1", "read_file", r#"{"path": "a"}"#)).await;
    assert!(!STUCK_FINISHED.load(std::sync::atomic::Ordering::SeqCst), "the hook was cut off at its timeout");
    assert_eq!(r.content, "blocked: policy check `stuck` failed");
    assert_eq!(r.kind(), Some(ErrorKind::Blocked));
    let detail = r.error.as_ref().and_then(|e| e.detail.clone()).unwrap_or_default();
    assert!(detail.contains("did not finish within 20ms"), "{detail}");
}

// ---- the JSON view of typed arguments ----------------------------------------------

static SEEN_JSON: Mutex<Vec<serde_json::Value>> = Mutex::new(Vec::new());

/// Reads the arguments as JSON (they were parsed into `ReadFileArgs`).
#[hook(before)]
fn peek(call: &mut BeforeCall<'_>) {
    SEEN_JSON.lock().unwrap().push(serde_json::Value::Object(call.arguments().clone()));
}

#[tokio::test]
async fn the_json_view_of_typed_arguments_is_what_the_model_sent() {
    let tools = toolbox![read_file].with_hooks(hooks![peek]);
    let sent = json!({"path": "a.txt", "max_lines": 3, "follow": true});
    let r = tools.call(ToolCall::new("1", "read_file", sent.to_string())).await;
    assert_eq!(r.content, "read a.txt (limit Some(3), follow true)");
    // Without the optional parameter: it is omitted, not `null`; the default is filled in.
    let r = tools.call(ToolCall::new("2", "read_file", r#"{"path": "b.txt"}"#)).await;
    assert!(!r.is_error());
    assert_eq!(*SEEN_JSON.lock().unwrap(), [sent, json!({"path": "b.txt", "follow": false})]);
}

#[test]
fn encode_args_uses_wire_names_and_omits_absent_optionals() {
    let args = ReadFileArgs { path: "x".into(), limit: Some(4), follow: false };
    let json = <read_file as Tool>::encode_args(&args).unwrap();
    assert_eq!(serde_json::Value::Object(json), json!({"path": "x", "max_lines": 4, "follow": false}));
    let args = ReadFileArgs { path: "y".into(), limit: None, follow: true };
    let json = <read_file as Tool>::encode_args(&args).unwrap();
    assert_eq!(serde_json::Value::Object(json), json!({"path": "y", "follow": true}));
}

/// A query that can be parsed but not written back.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Query {
    text: String,
}

/// Search, with a parameter type that is not `Serialize`.
#[tool]
fn search(query: Query) -> String {
    query.text
}

#[test]
fn encode_args_names_a_parameter_that_is_not_serialize() {
    let args = SearchArgs { query: Query { text: "rust".into() } };
    let error = <search as Tool>::encode_args(&args).unwrap_err();
    assert_eq!(error, "parameter `query` has a type that is not `Serialize`");
}
