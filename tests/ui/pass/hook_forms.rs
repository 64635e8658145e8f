//! Every signature `#[hook]` accepts: each event, sync and async, each return type,
//! typed arguments and typed raw output, and each option.
use std::fmt;

use serde::Serialize;
use toolkit::prelude::*;

#[derive(Debug, Serialize)]
pub struct Forecast {
    high: i32,
}

#[derive(Debug)]
pub struct Denied;

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("denied")
    }
}

/// Read a file.
#[tool]
fn read_file(path: String) -> String {
    path
}

/// Forecast the weather.
#[tool]
async fn forecast(city: String) -> Result<Forecast, Denied> {
    Ok(Forecast { high: city.len() as i32 })
}

// ---- before ----

#[hook(before)]
fn before_unit(call: &mut BeforeCall<'_>) {
    let _ = call;
}

#[hook(before, priority = 10)]
fn before_decision(call: &mut BeforeCall<'_>) -> Decision {
    let _ = call;
    Decision::Continue
}

#[hook(before, priority = -10, on_failure = continue)]
fn before_result_unit(call: &mut BeforeCall<'_>) -> Result<(), Denied> {
    if call.tool() == "never" { Err(Denied) } else { Ok(()) }
}

#[hook(before, on_failure = block)]
fn before_result_decision(_: &mut BeforeCall<'_>) -> Result<Decision, String> {
    Ok(Decision::Continue)
}

#[hook(before, timeout = "2s", matching = "read_*")]
async fn before_async(call: &mut BeforeCall<'_>) -> Decision {
    let _ = call.arguments();
    Decision::Continue
}

#[hook(before, tools = [read_file])]
fn before_typed(args: &mut ReadFileArgs) {
    args.path = args.path.trim().to_string();
}

#[hook(before, tools = [read_file])]
async fn before_typed_alias(args: &mut toolkit::Args<read_file>) -> Result<Decision, Denied> {
    args.path.push('!');
    Ok(Decision::Continue)
}

#[hook(before, name = "renamed-hook")]
fn before_lifetimes<'a, 'b: 'a>(call: &'a mut BeforeCall<'b>) -> Decision
where
    'b: 'a,
{
    let _ = call;
    Decision::Continue
}

// ---- after ----

#[hook(after)]
fn after_unit(out: &mut AfterCall<'_>) {
    let _ = out.text();
}

#[hook(after, timeout = "500ms")]
async fn after_async(out: &mut AfterCall<'_>) -> Result<(), Denied> {
    out.text_mut().push('.');
    Ok(())
}

#[hook(after, tools = [forecast])]
fn after_raw(out: &mut AfterCall<'_>, raw: Option<&Forecast>) {
    if let Some(f) = raw {
        out.set_text(format!("high {}", f.high));
    }
}

#[hook(after, tools = [forecast])]
async fn after_raw_async(_out: &mut AfterCall<'_>, raw: Option<&Forecast>) -> Result<(), String> {
    raw.map(|_| ()).ok_or_else(|| "no raw output".to_string())
}

// ---- error ----

#[hook(error)]
fn error_unit(err: &ErrorCall<'_>) {
    let _ = err.kind();
}

#[hook(error)]
fn error_recovery(err: &mut ErrorCall<'_>) -> Recovery {
    let _ = err.arguments();
    Recovery::Propagate
}

#[hook(error, on_failure = block)]
fn error_result(err: &ErrorCall<'_>) -> Result<Recovery, Denied> {
    let _ = err;
    Ok(Recovery::Propagate)
}

#[hook(error, priority = 1)]
async fn error_async(err: &mut ErrorCall<'_>) -> Result<(), Denied> {
    let _ = err.retryable();
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let hooks = hooks![
        before_unit,
        before_decision,
        before_result_unit,
        before_result_decision,
        before_async,
        before_typed,
        before_typed_alias,
        before_lifetimes,
        after_unit,
        after_async,
        after_raw,
        after_raw_async,
        error_unit,
        error_recovery,
        error_result,
        error_async,
    ];
    assert_eq!(hooks.len(), 16);
    assert!(hooks.names().contains(&"renamed-hook"));
    let tools = toolbox![read_file, forecast].with_hooks(hooks);
    let r = tools.call(ToolCall::new("1", "read_file", r#"{"path": " a "}"#)).await;
    assert_eq!(r.content, "a!.");
    let r = tools.call(ToolCall::new("2", "forecast", r#"{"city": "Oslo"}"#)).await;
    assert_eq!(r.content, "high 4", "`after_raw` replaced the text `after_async` edited");
    let r = tools.call(ToolCall::new("3", "nope", "{}")).await;
    assert!(r.is_error());
    // The functions stay callable as written.
    let mut args = ReadFileArgs { path: " b ".into() };
    before_typed(&mut args);
    assert_eq!(args.path, "b");
}
