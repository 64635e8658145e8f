//! What a program and a model notice when a toolbox executes calls: results, error
//! kinds and messages, ordering, concurrency, isolation of failures.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::{FnTool, Limits, ToolboxError};

#[derive(Debug, Default, Clone, Copy, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    #[default]
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Weather {
    location: String,
    temperature: f64,
    unit: Unit,
}

#[derive(Debug, thiserror::Error)]
#[error("no weather station near `{0}`")]
pub struct NoStation(String, #[source] std::io::Error);

/// Get the current weather for a city.
///
/// Use when the user asks about the current temperature.
#[tool(read_only)]
async fn get_weather(
    /// City name, for example "Beijing".
    location: String,
    /// Temperature unit.
    #[arg(default)]
    unit: Unit,
) -> Result<Weather, NoStation> {
    if location == "Atlantis" {
        return Err(NoStation(location, std::io::Error::other("station registry returned 404")));
    }
    Ok(Weather { location, temperature: 22.0, unit })
}

/// Search the web.
#[tool]
fn search(
    /// What to search for.
    #[arg(min_length = 3, max_length = 100)]
    query: String,
    /// How many results.
    #[arg(default = 5, minimum = 1, maximum = 20)]
    max_results: u32,
    /// Only pages with these tags.
    #[arg(max_length = 3)]
    tags: Option<Vec<String>>,
    /// A site to restrict to.
    #[arg(pattern = "^[a-z0-9.-]+$")]
    site: Option<String>,
) -> String {
    format!("{max_results} results for {query} (tags: {tags:?}, site: {site:?})")
}

/// Tell the time.
#[tool]
fn now() -> &'static str {
    "12:00"
}

/// Forget everything.
#[tool(destructive)]
fn forget() {}

/// Panic on purpose.
#[tool]
fn explode(
    /// Ignored.
    _reason: Option<String>,
) -> String {
    panic!("the tool exploded")
}

/// Sleep, then answer.
#[tool(timeout = "50ms")]
async fn slow(
    /// Milliseconds to sleep.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

/// Sleep for a while on a blocking thread.
#[tool(blocking)]
fn blocking_sleep(
    /// Milliseconds to sleep.
    ms: u64,
) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    format!("{:?}", std::thread::current().id())
}

/// Say which thread runs a plain sync tool.
#[tool]
fn which_thread() -> String {
    format!("{:?}", std::thread::current().id())
}

/// Accept anything.
#[tool]
fn anything(
    /// Any JSON.
    value: serde_json::Value,
) -> serde_json::Value {
    value
}

pub struct Counter(AtomicUsize);

/// Count calls.
#[tool]
fn count(#[state] counter: &Counter, #[context] cx: &CallContext<'_>) -> String {
    let n = counter.0.fetch_add(1, Ordering::SeqCst) + 1;
    format!("{n} ({})", cx.call_id())
}

/// Add to the count, after a pause.
#[tool]
async fn count_later(#[state] counter: &Counter, by: usize) -> Result<usize, std::io::Error> {
    tokio::task::yield_now().await;
    Ok(counter.0.fetch_add(by, Ordering::SeqCst) + by)
}

fn call(name: &str, args: &str) -> ToolCall {
    ToolCall::new("call_1", name, args)
}

fn weather() -> Toolbox {
    toolbox![get_weather, search, now, forget, explode, slow, blocking_sleep, anything]
}

#[tokio::test]
async fn a_good_call_returns_the_typed_output_as_json() {
    let r = weather().call(call("get_weather", r#"{"location": "Beijing"}"#)).await;
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(r.call_id, "call_1");
    assert_eq!(r.name, "get_weather");
    let v: serde_json::Value = serde_json::from_str(&r.content).unwrap();
    assert_eq!(v, serde_json::json!({"location": "Beijing", "temperature": 22.0, "unit": "celsius"}));
}

#[tokio::test]
async fn defaults_apply_when_left_out_and_values_when_given() {
    let tools = weather();
    let r = tools.call(call("search", r#"{"query": "rust"}"#)).await;
    assert_eq!(r.content, "5 results for rust (tags: None, site: None)");
    let r = tools.call(call("search", r#"{"query": "rust", "max_results": 7, "tags": ["a"]}"#)).await;
    assert_eq!(r.content, r#"7 results for rust (tags: Some(["a"]), site: None)"#);
    let r = tools.call(call("get_weather", r#"{"location": "Oslo", "unit": "fahrenheit"}"#)).await;
    assert!(r.content.contains(r#""unit":"fahrenheit""#), "{}", r.content);
}

#[tokio::test]
async fn text_is_sent_as_is_and_unit_as_ok() {
    let tools = weather();
    assert_eq!(tools.call(call("now", "{}")).await.content, "12:00");
    assert_eq!(tools.call(call("forget", "{}")).await.content, "ok");
    // A tool without parameters also accepts an empty arguments string, as models send it.
    assert_eq!(tools.call(call("now", "")).await.content, "12:00");
}

async fn error_of(name: &str, args: &str) -> (ErrorKind, String) {
    let r = weather().call(call(name, args)).await;
    assert!(r.is_error(), "expected an error for {name} {args}, got {r:?}");
    assert_eq!(r.call_id, "call_1");
    (r.kind().unwrap(), r.content)
}

#[tokio::test]
async fn unknown_tool_lists_the_available_ones() {
    let (kind, msg) = error_of("get_wether", "{}").await;
    assert_eq!(kind, ErrorKind::UnknownTool);
    assert!(
        msg.starts_with(
            "unknown tool `get_wether`; did you mean `get_weather`? Available tools: `get_weather`, `search`"
        ),
        "{msg}"
    );
    let (_, msg) = error_of("launch_rockets", "{}").await;
    assert!(msg.starts_with("unknown tool `launch_rockets`; available tools: `get_weather`"), "{msg}");
}

#[tokio::test]
async fn argument_errors_say_what_was_wrong_where_and_what_is_expected() {
    let expected = r#"expected {location: string, unit?: "celsius" | "fahrenheit"}"#;
    let cases: &[(&str, &str, ErrorKind, &str)] = &[
        ("get_weather", "", ErrorKind::EmptyArguments, "the arguments are empty"),
        ("get_weather", "   ", ErrorKind::EmptyArguments, "the arguments are empty"),
        ("get_weather", r#"{"location": "Bei"#, ErrorKind::MalformedJson, "the arguments are not valid JSON"),
        ("get_weather", "location=Beijing", ErrorKind::MalformedJson, "the arguments are not valid JSON"),
        ("get_weather", "null", ErrorKind::NotAnObject, "must be a JSON object, not null"),
        ("get_weather", "[]", ErrorKind::NotAnObject, "must be a JSON object, not an array"),
        ("get_weather", r#"["Beijing"]"#, ErrorKind::NotAnObject, "must be a JSON object, not an array"),
        ("get_weather", r#""x""#, ErrorKind::NotAnObject, "must be a JSON object, not a string"),
        ("get_weather", "42", ErrorKind::NotAnObject, "must be a JSON object, not a number"),
        ("get_weather", "{}", ErrorKind::MissingField, "missing required field `location`"),
        (
            "get_weather",
            r#"{"location": 5}"#,
            ErrorKind::InvalidType,
            "invalid type for `location`: got 5, expected a string",
        ),
        (
            "get_weather",
            r#"{"location": "x", "unit": "kelvin"}"#,
            ErrorKind::ConstraintViolation,
            "invalid value for `unit`: got \"kelvin\", expected one of \"celsius\", \"fahrenheit\"",
        ),
        ("get_weather", r#"{"location": "x", "city": "y"}"#, ErrorKind::UnknownField, "unknown field `city`"),
        ("get_weather", r#"{"location": "x", "location": "y"}"#, ErrorKind::InvalidValue, "duplicate field `location`"),
    ];
    for (name, args, kind, start) in cases {
        let (k, msg) = error_of(name, args).await;
        assert_eq!(k, *kind, "{args}: {msg}");
        assert!(msg.contains(start), "{args}: {msg}");
        assert!(msg.ends_with(expected), "{args}: the message must end with what is expected: {msg}");
        assert!(kind.is_argument_error());
    }
}

#[tokio::test]
async fn constraint_violations_name_the_parameter_and_the_rule() {
    let cases: &[(&str, &str)] = &[
        (r#"{"query": "ab"}"#, "`query` must have at least 3 characters (got 2)"),
        (r#"{"query": "rust", "max_results": 0}"#, "`max_results` must be at least 1 (got 0)"),
        (r#"{"query": "rust", "max_results": 50}"#, "`max_results` must be at most 20 (got 50)"),
        (r#"{"query": "rust", "tags": ["a","b","c","d"]}"#, "`tags` must have at most 3 items (got 4)"),
        (r#"{"query": "rust", "site": "Bad Site"}"#, "`site` must match the pattern `^[a-z0-9.-]+$`"),
    ];
    for (args, rule) in cases {
        let (kind, msg) = error_of("search", args).await;
        assert_eq!(kind, ErrorKind::ConstraintViolation, "{args}");
        assert!(msg.contains(rule), "{args}: {msg}");
    }
    // Character counts are characters, not bytes.
    let r = weather().call(call("search", r#"{"query": "天气预"}"#)).await;
    assert!(!r.is_error(), "{r:?}");
}

#[tokio::test]
async fn a_type_error_deep_inside_names_the_json_path() {
    let (kind, msg) = error_of("search", r#"{"query": "rust", "tags": ["a", 7]}"#).await;
    assert_eq!(kind, ErrorKind::InvalidType);
    assert!(msg.contains("for `tags[1]`"), "{msg}");
}

#[tokio::test]
async fn the_tools_own_error_reaches_the_model_and_its_source_stays_with_the_operator() {
    let r = weather().call(call("get_weather", r#"{"location": "Atlantis"}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::ToolFailed));
    assert_eq!(r.content, "no weather station near `Atlantis`");
    let detail = r.error.unwrap().detail.unwrap();
    assert_eq!(detail, "station registry returned 404");
}

#[tokio::test]
async fn a_panic_is_a_result_not_a_crash() {
    let r = weather().call(call("explode", "{}")).await;
    assert_eq!(r.kind(), Some(ErrorKind::Panicked));
    assert!(r.content.contains("internal error"), "{}", r.content);
    assert!(!r.content.contains("exploded"), "panic payloads are operator detail: {}", r.content);
    assert_eq!(r.error.unwrap().detail.as_deref(), Some("panic: the tool exploded"));
}

#[tokio::test]
async fn a_timeout_stops_the_tool() {
    let tools = weather();
    let started = Instant::now();
    let r = tools.call(call("slow", r#"{"ms": 10000}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::TimedOut));
    assert!(r.content.contains("did not finish within 50ms"), "{}", r.content);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(tools.call(call("slow", r#"{"ms": 1}"#)).await.content, "slept 1ms");
}

#[tokio::test]
async fn a_default_timeout_applies_to_tools_without_one() {
    let tools = toolbox![blocking_sleep]
        .with_limits(Limits { default_timeout: Some(Duration::from_millis(30)), ..Default::default() });
    let r = tools.call(call("blocking_sleep", r#"{"ms": 300}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::TimedOut));
}

#[tokio::test]
async fn blocking_tools_run_off_the_async_workers() {
    // A current-thread runtime: every async task, and a plain sync tool, runs on this thread.
    let here = format!("{:?}", std::thread::current().id());
    let tools = toolbox![blocking_sleep, which_thread];
    assert_eq!(tools.call(call("which_thread", "{}")).await.content, here, "a plain sync tool runs where it is called");
    let r = tools.call(call("blocking_sleep", r#"{"ms": 1}"#)).await;
    assert!(!r.is_error(), "{r:?}");
    assert_ne!(r.content, here, "a blocking tool must run on the blocking pool, not on the async thread");
}

#[tokio::test]
async fn oversized_arguments_are_refused_before_parsing() {
    let tools = weather().with_limits(Limits { max_argument_bytes: 64, ..Default::default() });
    let args = format!(r#"{{"location": "{}"}}"#, "x".repeat(100));
    let r = tools.call(call("get_weather", &args)).await;
    assert_eq!(r.kind(), Some(ErrorKind::ArgumentsTooLarge));
    assert!(r.content.contains("the limit is 64"), "{}", r.content);
}

#[tokio::test]
async fn deeply_nested_input_cannot_overflow_the_stack() {
    let depth = 200_000;
    let args = format!(r#"{{"value": {}{}}}"#, "[".repeat(depth), "]".repeat(depth));
    let r = weather().call(call("anything", &args)).await;
    assert_eq!(r.kind(), Some(ErrorKind::MalformedJson), "{r:?}");
    assert!(r.content.contains("nested too deeply"), "{}", r.content);
    // Moderate nesting is fine.
    let r = weather().call(call("anything", r#"{"value": [[[{"a": [1]}]]]}"#)).await;
    assert_eq!(r.content, r#"[[[{"a":[1]}]]]"#);
}

#[tokio::test]
async fn call_all_returns_one_result_per_call_in_order_whatever_happened() {
    let tools = weather();
    let calls = vec![
        ToolCall::new("a", "slow", r#"{"ms": 30}"#),
        ToolCall::new("b", "nope", "{}"),
        ToolCall::new("c", "explode", "{}"),
        ToolCall::new("d", "get_weather", "not json"),
        ToolCall::new("e", "slow", r#"{"ms": 1}"#),
        ToolCall::new("f", "slow", r#"{"ms": 5000}"#),
    ];
    let results = tools.call_all(calls).await;
    let ids: Vec<_> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);
    let kinds: Vec<_> = results.iter().map(|r| r.kind()).collect();
    assert_eq!(
        kinds,
        [
            None,
            Some(ErrorKind::UnknownTool),
            Some(ErrorKind::Panicked),
            Some(ErrorKind::MalformedJson),
            None,
            Some(ErrorKind::TimedOut)
        ]
    );
}

static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static MOST_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Count how many calls run at once.
#[tool]
async fn gauge() -> String {
    let now = IN_FLIGHT.fetch_add(1, Ordering::SeqCst) + 1;
    MOST_IN_FLIGHT.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(40)).await;
    IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    "measured".into()
}

#[tokio::test]
async fn call_all_runs_calls_concurrently_up_to_the_limit() {
    // Counted, not timed: the machines are shared and noisy.
    let calls = |n: usize| (0..n).map(|i| ToolCall::new(format!("c{i}"), "gauge", "{}")).collect::<Vec<_>>();
    for (limit, n, expected) in [(20, 20, 20), (8, 20, 8), (1, 5, 1)] {
        MOST_IN_FLIGHT.store(0, Ordering::SeqCst);
        let tools = toolbox![gauge].with_limits(Limits { concurrency: limit, ..Default::default() });
        let started = Instant::now();
        let results = tools.call_all(calls(n)).await;
        assert!(results.iter().all(|r| r.content == "measured"));
        assert_eq!(MOST_IN_FLIGHT.load(Ordering::SeqCst), expected, "limit {limit}, {n} calls");
        if limit == 1 {
            // One at a time, five calls of at least 40 ms each.
            assert!(started.elapsed() >= Duration::from_millis(200), "the limit of 1 was not respected");
        }
    }
}

#[tokio::test]
async fn state_and_context_are_injected_and_never_in_the_schema() {
    let tools = toolbox![count].with_state(Counter(AtomicUsize::new(0)));
    assert_eq!(tools.call(ToolCall::new("x1", "count", "{}")).await.content, "1 (x1)");
    assert_eq!(tools.call(ToolCall::new("x2", "count", "")).await.content, "2 (x2)");
    let schema = &tools.spec("count").unwrap().input_schema;
    assert_eq!(schema["properties"], serde_json::json!({}));

    // State can also be provided after construction, already shared.
    let shared = Arc::new(Counter(AtomicUsize::new(41)));
    let mut tools = toolbox![count];
    tools.state_mut().insert_arc(Arc::clone(&shared));
    assert_eq!(tools.call(ToolCall::new("x3", "count", "{}")).await.content, "42 (x3)");
    assert_eq!(shared.0.load(Ordering::SeqCst), 42, "the tool saw the caller's value");
}

#[tokio::test]
async fn state_given_as_an_arc_is_found_by_tools_that_take_the_value() {
    // `with_state(Arc::new(x))` is the natural thing to write for shared state: a tool
    // that takes `&Counter` (or `Arc<Counter>`) finds it.
    let shared = Arc::new(Counter(AtomicUsize::new(6)));
    let tools = toolbox![count].with_state(Arc::clone(&shared));
    assert_eq!(tools.call(ToolCall::new("y1", "count", "{}")).await.content, "7 (y1)");
    assert_eq!(shared.0.load(Ordering::SeqCst), 7, "the same value, not a copy");
}

#[tokio::test]
async fn an_unknown_tool_message_stays_short_whatever_the_name_and_the_toolbox() {
    let mut tools = toolbox![now];
    for i in 0..30 {
        let spec = ToolSpec::new(format!("extra_{i}"), "An extra tool.", serde_json::json!({"type": "object"}));
        tools.add_dynamic(toolkit::FnTool::new(spec, |_| async { Ok(Output::text("")) })).unwrap();
    }
    let long = "x".repeat(100_000);
    let r = tools.call(call(&long, "{}")).await;
    assert_eq!(r.kind(), Some(ErrorKind::UnknownTool));
    assert!(r.content.len() < 600, "{} bytes: {}", r.content.len(), &r.content[..200]);
    assert!(
        r.content.starts_with(&format!("unknown tool `{}…`; available tools: `now`", "x".repeat(64))),
        "{}",
        r.content
    );
    assert!(r.content.ends_with("`extra_18` and 11 more"), "{}", r.content);
    // A typo of a tool still gets its suggestion.
    let r = tools.call(call("extra_9x", "{}")).await;
    assert!(r.content.starts_with("unknown tool `extra_9x`; did you mean `extra_9`?"), "{}", r.content);
}

#[tokio::test]
async fn missing_state_is_reported_as_unavailable_with_the_fix_for_the_operator() {
    let r = toolbox![count].call(call("count", "{}")).await;
    assert_eq!(r.kind(), Some(ErrorKind::Unavailable));
    assert_eq!(r.content, "`count` is not available right now");
    assert!(r.error.unwrap().detail.unwrap().contains("Toolbox::with_state"));
}

#[tokio::test]
async fn an_async_tool_with_state_and_no_context_finds_its_state_or_is_refused_before_it_runs() {
    // Such a tool's future is the function's own, mapped to the result (no `async`
    // block): its state is looked up before the function is called.
    let shared = Arc::new(Counter(AtomicUsize::new(10)));
    let tools = toolbox![count_later].with_state(Arc::clone(&shared));
    let r = tools.call(call("count_later", r#"{"by": 5}"#)).await;
    assert_eq!((r.content.as_str(), r.error.is_none()), ("15", true));
    let r = tools.call(call("count_later", r#"{"by": "five"}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::InvalidType), "{}", r.content);
    assert_eq!(shared.0.load(Ordering::SeqCst), 15, "refused arguments never reach the function");

    let r = toolbox![count_later].call(call("count_later", r#"{"by": 5}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::Unavailable));
    assert_eq!(r.content, "`count_later` is not available right now");
    assert!(r.error.unwrap().detail.unwrap().contains("Toolbox::with_state"));
}

pub struct Files {
    root: String,
    reads: AtomicUsize,
}

#[tools]
impl Files {
    /// Read a file under the root.
    #[tool(read_only)]
    async fn read_file(
        &self,
        /// A path relative to the root.
        path: String,
    ) -> String {
        self.reads.fetch_add(1, Ordering::SeqCst);
        format!("{}/{}", self.root, path)
    }

    /// Count reads so far.
    #[tool(name = "read_count", blocking)]
    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }

    /// Not a tool: an ordinary method stays as it is.
    pub fn root(&self) -> &str {
        &self.root
    }
}

#[tokio::test]
async fn methods_share_their_value() {
    let files = Arc::new(Files { root: "/data".into(), reads: AtomicUsize::new(0) });
    let tools = toolbox![files.read_file, files.reads, now];
    assert_eq!(tools.names(), ["read_file", "read_count", "now"]);
    assert_eq!(tools.call(call("read_file", r#"{"path": "a.md"}"#)).await.content, "/data/a.md");
    assert_eq!(tools.call(call("read_count", "{}")).await.content, "1");
    assert_eq!(files.root(), "/data");
    assert!(tools.spec("read_file").unwrap().annotations.read_only);
}

#[tokio::test]
async fn the_function_stays_callable_as_written() {
    let w = get_weather("Paris".into(), Unit::Fahrenheit).await.unwrap();
    assert_eq!(w.unit, Unit::Fahrenheit);
    assert_eq!(now(), "12:00");
    let _typed: toolkit::Args<search> = serde_json::from_str(r#"{"query": "abc"}"#).unwrap();
}

#[tokio::test]
async fn run_time_tools_share_the_interface_and_names_stay_unique() {
    let mut tools = toolbox![now];
    let spec = ToolSpec::new(
        "echo",
        "Repeat the text.",
        serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    );
    tools
        .add_dynamic(FnTool::new(spec.clone(), |args| async move {
            Ok(Output::text(args["text"].as_str().unwrap_or_default()))
        }))
        .unwrap();
    assert_eq!(tools.names(), ["now", "echo"]);
    assert_eq!((tools.len(), tools.is_empty()), (2, false));
    assert!(Toolbox::new().is_empty());
    assert_eq!(tools.call(call("echo", r#"{"text": "hi"}"#)).await.content, "hi");
    assert_eq!(tools.call(call("echo", "[1]")).await.kind(), Some(ErrorKind::NotAnObject));
    assert_eq!(tools.call(call("echo", "")).await.kind(), Some(ErrorKind::EmptyArguments));

    let dup = FnTool::new(spec, |_| async { Ok(Output::text("")) });
    assert_eq!(tools.add_dynamic(dup).err(), Some(ToolboxError::DuplicateName("echo".into())));
    assert_eq!(tools.add(now {}).err(), Some(ToolboxError::DuplicateName("now".into())));
    let bad = ToolSpec::new("bad name", "x", serde_json::json!({"type": "object"}));
    let bad = FnTool::new(bad, |_| async { Ok(Output::text("")) });
    assert_eq!(tools.add_dynamic(bad).err(), Some(ToolboxError::InvalidName("bad name".into())));
    tools.add(forget {}).unwrap();
    assert_eq!(tools.call(call("forget", "{}")).await.content, "ok");
}

#[test]
fn without_a_timer_driver_a_panic_or_a_timeout_is_still_a_result() {
    // A runtime whose timer is disabled: creating a timer panics, inside the guard.
    let r = block_on_without_timers(weather().call(call("explode", "{}")));
    assert_eq!(r.kind(), Some(ErrorKind::Panicked));
    let r = block_on_without_timers(weather().call(call("slow", r#"{"ms": 1}"#)));
    assert_eq!(r.kind(), Some(ErrorKind::Panicked), "{r:?}");
    assert!(r.error.unwrap().detail.unwrap().contains("timers are disabled"));
}

fn block_on_without_timers<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
}

/// Greet someone.
#[tool]
fn greet(
    /// Who to greet.
    #[arg(default = "world")]
    name: String,
) -> std::borrow::Cow<'static, str> {
    if name == "world" { "hello, world".into() } else { format!("hello, {name}").into() }
}

#[tokio::test]
async fn a_string_literal_default_and_a_cow_output_are_plain_text() {
    let tools = toolbox![greet];
    assert_eq!(tools.call(call("greet", "{}")).await.content, "hello, world");
    assert_eq!(tools.call(call("greet", r#"{"name": "Ada"}"#)).await.content, "hello, Ada");
    let schema = &tools.spec("greet").unwrap().input_schema;
    assert_eq!(schema["properties"]["name"]["default"], "world");
    assert!(schema.get("required").is_none(), "a defaulted parameter is optional");
}

/// Say a word back.
#[tool]
fn echo(
    /// The word.
    echo: String,
) -> String {
    echo
}

/// A parameter may have its tool function's name (before, the generated call read the
/// parameter as the function: "expected function, found `String`").
#[tokio::test]
async fn a_parameter_named_like_its_function_is_passed_to_it() {
    let r = toolbox![echo].call(ToolCall::new("1", "echo", r#"{"echo": "hi"}"#)).await;
    assert_eq!(r.content, "hi");
}

/// Check a two-factor code.
#[tool]
fn _2fa_verify(
    /// The code.
    code: String,
) -> bool {
    code == "123456"
}

/// Fetch a page.
///
///  Its text, cut to a screen.
/// (the line above starts with two no-break spaces)
#[tool]
fn fetch_page() -> String {
    "page".into()
}

struct Tally;

#[toolkit::tools]
impl Tally {
    /// Count to three.
    #[toolkit::tool]
    fn count(&self) -> u32 {
        3
    }
}

/// Inputs that made the macro panic or misread the code (before: a name starting
/// `_<digit>` built an argument type named `2faVerifyArgs`; a doc line starting with a
/// no-break space was sliced inside it; `#[toolkit::tool]` in a `#[tools]` impl was not
/// seen as `#[tool]`).
#[tokio::test]
async fn odd_names_doc_lines_and_the_path_spelling_of_tool_all_work() {
    let tools = toolbox![_2fa_verify, fetch_page, Arc::new(Tally).count];
    assert_eq!(tools.call(ToolCall::new("1", "_2fa_verify", r#"{"code": "123456"}"#)).await.content, "true");
    let description = &tools.spec("fetch_page").unwrap().description;
    assert!(description.contains("\u{a0}\u{a0}Its text, cut to a screen."), "{description:?}");
    assert_eq!(tools.call(ToolCall::new("2", "count", "{}")).await.content, "3");
}

/// Ask a backend that is down.
#[tool(read_only)]
fn backend_down() -> Result<String, ToolError> {
    Err(ToolError::new(ErrorKind::Unavailable, "the backend is down; try again in a minute")
        .with_detail("503 from upstream"))
}

/// Read a file that is not there.
#[tool]
fn missing_file() -> Result<String, std::io::Error> {
    Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
}

#[tokio::test]
async fn a_tool_error_keeps_the_kind_and_detail_the_tool_gave_it() {
    let tools = toolbox![backend_down, missing_file];
    // A `ToolError` the tool built: its kind is what retries, breakers and engines go by.
    let down = tools.call(ToolCall::new("1", "backend_down", "{}")).await;
    assert_eq!(down.kind(), Some(ErrorKind::Unavailable));
    assert_eq!(down.content, "the backend is down; try again in a minute");
    assert_eq!(down.error.unwrap().detail.as_deref(), Some("503 from upstream"));
    // Any other error is the tool's failure, its message what the model reads.
    let missing = tools.call(ToolCall::new("2", "missing_file", "{}")).await;
    assert_eq!(missing.kind(), Some(ErrorKind::ToolFailed));
    assert_eq!(missing.content, "no such file");
}

/// A call's future holds its call once: awaiting many calls at once (`call_all`, a
/// `join` of calls, a spawned task) costs their memory, and every future is moved
/// before it is first polled. An `async fn` that takes the call, or a match on "done or
/// waiting" whose waiting part is awaited in the arm, would hold the call's strings
/// twice (`call` measured 288 bytes that way, `call_in` 408, `call_ref` 248).
#[test]
fn a_call_future_holds_the_call_once() {
    let tools = weather();
    let scope = Scope::default();
    let owned = std::mem::size_of::<ToolCall>();
    let borrowed = std::mem::size_of::<ToolCallRef<'_>>();
    let room = 128;
    let sizes = [
        ("call", std::mem::size_of_val(&tools.call(call("get_weather", "{}"))), owned),
        ("call_in", std::mem::size_of_val(&tools.call_in(call("get_weather", "{}"), &scope)), owned),
        ("call_ref", std::mem::size_of_val(&tools.call_ref(ToolCallRef::new("1", "get_weather", "{}"))), borrowed),
        (
            "call_ref_in",
            std::mem::size_of_val(&tools.call_ref_in(ToolCallRef::new("1", "get_weather", "{}"), &scope)),
            borrowed,
        ),
    ];
    for (method, size, call) in sizes {
        assert!(size <= call + room, "the future of `{method}` is {size} bytes: more than its call ({call}) + {room}");
    }
}
