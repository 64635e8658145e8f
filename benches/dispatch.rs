//! Dispatch overhead of `Toolbox::call` against a hand-written floor, allocations per
//! call, and the wall time of a batch of I/O-bound calls (DESIGN.md §10).
//!
//! Run with `cargo bench --bench dispatch`. It prints, in this order:
//!
//! 1. a table of heap allocations per call (floor vs toolbox), before criterion starts;
//! 2. criterion's own groups (`two_arg`, `five_arg`, `call_all`);
//!    (the hook variants are timed in the summary only, interleaved with the floor)
//! 3. a summary computed in the same process (interleaved `Instant` timings, medians),
//!    formatted to be pasted into a README.
//!
//! Under `cargo test --benches` (no `--bench` flag) criterion runs each benchmark once,
//! and the sections around it run a few iterations only, checking that the floor and the
//! toolbox produce the same text.
//!
//! With `--instructions <variant> <n>` (variants `two-floor`, `two-boxed`, `two-toolbox`,
//! `five-floor`, `five-boxed`, `five-toolbox`, and `hooks-typed4`, `hooks-json`,
//! `hooks-audit`: the two-arg tool with four typed no-op hooks, one JSON-view hook, the
//! audit log; `many-toolbox`, `many-ref`: the two-arg tool in a 1,000-tool toolbox) it
//! runs exactly `n` calls of that variant
//! and exits, printing nothing and never starting criterion: a workload for
//! `benches/instructions.sh`, which counts instructions per call under callgrind (wall
//! times on a shared machine are noisy; instruction counts are not).
//!
//! # What is compared, and why it is fair
//!
//! * The **floor** is what one would write by hand for the same tool: take the
//!   `ToolCall` by value, route on its name, `serde_json::from_str` the arguments into a
//!   hand-written `#[derive(Deserialize)]` struct (with `deny_unknown_fields` and the same
//!   defaults as the generated one), call the *same* plain function, `serde_json::to_string`
//!   its output, and move id, name and text into a `ToolResult`.
//! * The **toolbox** side is `Toolbox::call(ToolCall)` on a `toolbox![...]` holding that
//!   tool.
//! * Both are `async fn`s polled by the same [`drive`] loop with a no-op waker (no
//!   runtime, no scheduler: neither future ever returns `Pending`), so only the code
//!   under test is timed.
//! * Both receive a fresh `ToolCall` built in criterion's `iter_batched` setup (its three
//!   `String`s are allocated outside the timed region in both), both consume it (the
//!   arguments string is freed inside the timed region in both), and both return a
//!   `ToolResult` that criterion drops outside the timed region.
//! * The summary also times the floor with its future boxed (`Box::pin`), the one
//!   allocation the design grants dispatch, to show how much of the gap that box is.
//! * The counting allocator is on in every section but counts only while a flag is set
//!   (one relaxed load per allocation otherwise, on both sides alike).

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, SamplingMode};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::{FnTool, Hook, Limits};

#[path = "support/catalog.rs"]
#[allow(dead_code)] // the tool-search bench uses the rest
mod catalog;

// ---- counting allocator -----------------------------------------------------------

/// `System`, counting `alloc`, `alloc_zeroed` and `realloc` calls while [`COUNTING`] is on
/// (off by default, so the timed sections pay one relaxed load per allocation, nothing
/// else, and the multi-threaded section never contends on the counter).
struct CountingAlloc;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

#[inline(always)]
fn count() {
    if COUNTING.load(Ordering::Relaxed) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

// ---- the tools --------------------------------------------------------------------

/// Add two integers.
///
/// Use for exact integer arithmetic.
#[tool(read_only)]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// A temperature unit.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    #[default]
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// What `forecast` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Forecast {
    location: String,
    unit: Unit,
    days: u32,
    highs: Vec<f64>,
    hourly: bool,
    lang: Option<String>,
}

/// Get the weather forecast for a city.
///
/// Use when the user asks about the coming days' weather.
#[tool(read_only)]
async fn forecast(
    /// City name, for example "Beijing".
    location: String,
    /// Temperature unit.
    #[arg(default)]
    unit: Unit,
    /// How many days ahead.
    days: u32,
    /// Include hourly detail.
    hourly: bool,
    /// Language of the text, for example "zh".
    lang: Option<String>,
) -> Forecast {
    let base = if unit == Unit::Celsius { 21.5 } else { 70.7 };
    let highs = (0..days.min(7)).map(|d| base + f64::from(d)).collect();
    Forecast { location, unit, days, highs, hourly, lang }
}

/// Wait, then report how long.
///
/// Stands in for an I/O-bound tool (an HTTP request, a database query).
#[tool(read_only)]
async fn nap(
    /// How long to wait, in milliseconds.
    ms: u64,
) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

const ADD_ARGS: &str = r#"{"a": 2, "b": 40}"#;
const FORECAST_ARGS: &str = r#"{"location": "Beijing", "unit": "fahrenheit", "days": 3, "hourly": true, "lang": "zh"}"#;
const NAP_MS: u64 = 20;
const BATCH: usize = 100;

// ---- the floor --------------------------------------------------------------------

/// The hand-written argument struct of `add`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args2 {
    a: i64,
    b: i64,
}

/// The hand-written argument struct of `forecast` (same defaults as the generated one).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args5 {
    location: String,
    #[serde(default)]
    unit: Unit,
    days: u32,
    hourly: bool,
    #[serde(default)]
    lang: Option<String>,
}

fn floor_error(id: String, name: String, message: String) -> ToolResult {
    ToolResult::failed(id, name, ToolError::new(ErrorKind::InvalidValue, message))
}

/// Route, parse, call `add`, serialize.
async fn floor_add(call: ToolCall) -> ToolResult {
    let ToolCall { id, name, arguments, .. } = call;
    if name.as_str() != "add" {
        return floor_error(id, name, String::from("unknown tool"));
    }
    match serde_json::from_str::<Args2>(&arguments) {
        Ok(Args2 { a, b }) => match serde_json::to_string(&add(a, b)) {
            Ok(content) => ToolResult { call_id: id, name, content, parts: Vec::new(), error: None },
            Err(e) => floor_error(id, name, e.to_string()),
        },
        Err(e) => floor_error(id, name, e.to_string()),
    }
}

/// Route, parse, call `forecast`, serialize.
async fn floor_forecast(call: ToolCall) -> ToolResult {
    let ToolCall { id, name, arguments, .. } = call;
    if name.as_str() != "forecast" {
        return floor_error(id, name, String::from("unknown tool"));
    }
    match serde_json::from_str::<Args5>(&arguments) {
        Ok(Args5 { location, unit, days, hourly, lang }) => {
            match serde_json::to_string(&forecast(location, unit, days, hourly, lang).await) {
                Ok(content) => ToolResult { call_id: id, name, content, parts: Vec::new(), error: None },
                Err(e) => floor_error(id, name, e.to_string()),
            }
        }
        Err(e) => floor_error(id, name, e.to_string()),
    }
}

// ---- driving futures --------------------------------------------------------------

/// Polls a future to completion on this thread with a no-op waker: no runtime in the
/// measurement. Every future timed with it completes on its first poll.
#[inline]
fn drive<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        std::hint::spin_loop();
    }
}

/// One of the two micro-benchmarked tools, with both ways of calling it. The floor is a
/// closure type parameter (not a `fn` pointer), so it is called directly, as
/// `Toolbox::call` is.
///
/// `boxed` is the floor with its future in a `Box::pin`: not a benchmark of its own, a
/// reference line in the summary for what the one boxed future the design allows
/// costs by itself.
struct Case<F, B> {
    /// Criterion group name.
    group: &'static str,
    /// Label in the summary.
    label: &'static str,
    /// Description in the summary table.
    description: &'static str,
    tool: &'static str,
    args: &'static str,
    toolbox: Toolbox,
    floor: F,
    boxed: B,
}

impl<F: Fn(ToolCall) -> ToolResult, B: Fn(ToolCall) -> ToolResult> Case<F, B> {
    fn call(&self) -> ToolCall {
        ToolCall::new("call_0123456789", self.tool, self.args)
    }

    #[inline]
    fn floor(&self, call: ToolCall) -> ToolResult {
        (self.floor)(call)
    }

    #[inline]
    fn toolbox(&self, call: ToolCall) -> ToolResult {
        drive(self.toolbox.call(call))
    }

    /// Both sides give the same successful result.
    fn check(&self) {
        let (f, t) = (self.floor(self.call()), self.toolbox(self.call()));
        assert!(f.error.is_none(), "{}: floor failed: {}", self.label, f.content);
        assert!(t.error.is_none(), "{}: toolbox failed: {}", self.label, t.content);
        assert_eq!(f, t, "{}: floor and toolbox disagree", self.label);
        assert_eq!(f, (self.boxed)(self.call()), "{}: floor and boxed floor disagree", self.label);
    }
}

// ---- allocations ------------------------------------------------------------------

/// Allocations per call of `f`, averaged over `n` calls whose `ToolCall`s are built (and
/// whose results are kept, then dropped) outside the counted region.
fn allocations(n: usize, make: impl Fn() -> ToolCall, f: impl Fn(ToolCall) -> ToolResult) -> f64 {
    let calls: Vec<ToolCall> = (0..n).map(|_| make()).collect();
    let mut results = Vec::with_capacity(n);
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::SeqCst);
    for call in calls {
        results.push(f(call));
    }
    COUNTING.store(false, Ordering::SeqCst);
    let total = ALLOCATIONS.load(Ordering::Relaxed);
    drop(black_box(results));
    total as f64 / n as f64
}

fn fmt_count(n: f64) -> String {
    if n.fract() == 0.0 { format!("{n:.0}") } else { format!("{n:.2}") }
}

// ---- instruction counts (`--instructions`) ----------------------------------------

/// The variants `--instructions` accepts.
const VARIANTS: [&str; 17] = [
    "two-floor",
    "two-boxed",
    "two-toolbox",
    "two-traced",
    "two-ref",
    "five-floor",
    "five-boxed",
    "five-toolbox",
    "five-traced",
    "five-ref",
    "hooks-typed4",
    "hooks-json",
    "hooks-audit",
    "hooks-sink",
    "hooks-ledger",
    "many-toolbox",
    "many-ref",
];

/// `n` calls of `f`, nothing else: the `ToolCall`s are built before, and the results
/// dropped after, as in [`time_batch`]. Never inlined, so that callgrind's
/// `--toggle-collect=*instructions_loop*` counts exactly these calls.
#[inline(never)]
fn instructions_loop(calls: Vec<ToolCall>, f: &impl Fn(ToolCall) -> ToolResult) -> Vec<ToolResult> {
    let mut results = Vec::with_capacity(calls.len());
    for call in calls {
        results.push(f(call));
    }
    results
}

// ---- interleaved timing (for the ratios) -----------------------------------------

/// Nanoseconds per call of `f` over `n` calls (building the calls, and dropping the
/// results, outside the timing).
fn time_batch(n: usize, make: &impl Fn() -> ToolCall, f: &impl Fn(ToolCall) -> ToolResult) -> f64 {
    let calls: Vec<ToolCall> = black_box((0..n).map(|_| make()).collect());
    let mut results = Vec::with_capacity(n);
    let start = Instant::now();
    for call in calls {
        results.push(f(call));
    }
    let elapsed = start.elapsed();
    drop(black_box(results));
    elapsed.as_nanos() as f64 / n as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 }
}

/// What the summary reports about one case.
struct Measured {
    label: &'static str,
    description: &'static str,
    allocs_floor: f64,
    allocs_toolbox: f64,
    floor_ns: f64,
    boxed_ns: f64,
    toolbox_ns: f64,
    /// Median of the per-round toolbox/floor ratios.
    ratio: f64,
    /// Median of the per-round boxed-floor/floor ratios.
    boxed_ratio: f64,
}

impl<F: Fn(ToolCall) -> ToolResult, B: Fn(ToolCall) -> ToolResult> Case<F, B> {
    /// Allocations per call, floor and toolbox.
    fn allocations(&self, n: usize) -> (f64, f64) {
        let floor = allocations(n, || self.call(), |c| self.floor(c));
        let toolbox = allocations(n, || self.call(), |c| self.toolbox(c));
        (floor, toolbox)
    }

    /// `rounds` rounds of `n` calls of each of floor, boxed floor and toolbox, rotating
    /// which goes first, so drift on a shared machine hits all alike. Medians: of the
    /// per-call times, and of the per-round ratios.
    fn interleaved(&self, rounds: usize, n: usize) -> [(f64, f64); 3] {
        let make = || self.call();
        let run = |which: usize| match which {
            0 => time_batch(n, &make, &|c| self.floor(c)),
            1 => time_batch(n, &make, &|c| (self.boxed)(c)),
            _ => time_batch(n, &make, &|c| self.toolbox(c)),
        };
        // Warm-up: caches, branch predictors, lazily built specs.
        for which in 0..3 {
            run(which);
        }
        let mut ns: [Vec<f64>; 3] = Default::default();
        let mut ratios: [Vec<f64>; 3] = Default::default();
        for round in 0..rounds {
            let mut this = [0.0; 3];
            for k in 0..3 {
                let which = (round + k) % 3;
                this[which] = run(which);
            }
            for which in 0..3 {
                ns[which].push(this[which]);
                ratios[which].push(this[which] / this[0]);
            }
        }
        [0, 1, 2].map(|w| (median(&mut ns[w]), median(&mut ratios[w])))
    }

    fn bench(&self, c: &mut Criterion) {
        let mut g = c.benchmark_group(self.group);
        g.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4)).sample_size(60);
        g.bench_function("floor", |b| b.iter_batched(|| self.call(), |call| self.floor(call), BatchSize::SmallInput));
        g.bench_function("toolbox", |b| {
            b.iter_batched(|| self.call(), |call| self.toolbox(call), BatchSize::SmallInput)
        });
        g.finish();
    }

    /// `n` calls of one side (`floor`, `boxed` or `toolbox`), for `--instructions`.
    fn instructions(&self, side: &str, n: usize) {
        let calls: Vec<ToolCall> = black_box((0..n).map(|_| self.call()).collect());
        let results = match side {
            "floor" => instructions_loop(calls, &|c| self.floor(c)),
            "boxed" => instructions_loop(calls, &|c| (self.boxed)(c)),
            // `traced`: the same calls, with a subscriber installed (by `main`).
            "toolbox" | "traced" => instructions_loop(calls, &|c| self.toolbox(c)),
            // Borrowed strings in, the caller's own strings moved into the result (as
            // the floor does).
            "ref" => instructions_loop(calls, &|c| {
                let outcome = drive(self.toolbox.call_ref(ToolCallRef::new(&c.id, &c.name, &c.arguments)));
                let ToolCall { id, name, .. } = c;
                match outcome {
                    Ok(output) => {
                        let (content, parts) = output.into_parts();
                        ToolResult { call_id: id, name, content, parts, error: None }
                    }
                    Err(e) => ToolResult::failed(id, name, e),
                }
            }),
            _ => unreachable!("side checked by the caller: {side}"),
        };
        let results = black_box(results);
        if let Some(r) = results.first() {
            assert!(r.error.is_none(), "{}: {side} failed: {}", self.label, r.content);
        }
    }

    fn measured(&self, (allocs_floor, allocs_toolbox): (f64, f64), rounds: usize, n: usize) -> Measured {
        let [(floor_ns, _), (boxed_ns, boxed_ratio), (toolbox_ns, ratio)] = self.interleaved(rounds, n);
        Measured {
            label: self.label,
            description: self.description,
            allocs_floor,
            allocs_toolbox,
            floor_ns,
            boxed_ns,
            toolbox_ns,
            ratio,
            boxed_ratio,
        }
    }
}

// ---- hooks ----------------------------------------------------------------------

/// Typed no-op before hooks on `add`: each takes `add`'s own argument struct.
#[toolkit::hook(before, tools = [add])]
fn typed_1(args: &mut AddArgs) {
    black_box(args);
}

#[toolkit::hook(before, tools = [add])]
fn typed_2(args: &mut AddArgs) {
    black_box(args);
}

#[toolkit::hook(before, tools = [add])]
fn typed_3(args: &mut AddArgs) {
    black_box(args);
}

#[toolkit::hook(before, tools = [add])]
fn typed_4(args: &mut AddArgs) {
    black_box(args);
}

/// The toolboxes of the hook section: `add` with four typed no-op before hooks, with one
/// before hook that reads the arguments' JSON view, and with the audit log writing to a
/// discarding writer (its work happens on its own thread, off the call).
struct HookCases {
    typed4: Toolbox,
    json: Toolbox,
    audit: Toolbox,
    /// `add` with one record sink that does nothing with its records.
    sink: Toolbox,
    /// `add` with the effect ledger covering it, in memory: "started" before the call,
    /// "finished" after (each call a new id, as in a run).
    ledger: Toolbox,
    /// The audit log's handle, to let its writer catch up between timed batches (its
    /// thread would otherwise steal the CPU from whichever side is timed next).
    log: toolkit::hooks::AuditLog,
}

impl HookCases {
    fn new() -> Self {
        let typed4 = toolbox![add].with_hooks(toolkit::hooks![typed_1, typed_2, typed_3, typed_4]);
        let json = toolbox![add].with_hook(Hook::before("json_view", |call: &mut BeforeCall<'_>| {
            black_box(call.arguments().get("a"));
        }));
        let log = toolkit::hooks::AuditLog::to_writer(std::io::sink());
        let audit = toolbox![add].with_sink(log.clone());
        let sink = toolbox![add].with_sink(|record: &toolkit::CallRecord| {
            black_box(record);
        });
        let ledger =
            toolbox![add].with_hooks(toolkit::hooks::EffectLedger::new(toolkit::hooks::MemoryStore::new()).all());
        HookCases { typed4, json, audit, sink, ledger, log }
    }

    fn side(&self, which: &str) -> &Toolbox {
        match which {
            "typed4" => &self.typed4,
            "json" => &self.json,
            "sink" => &self.sink,
            "audit" => &self.audit,
            "ledger" => &self.ledger,
            _ => unreachable!("side checked by the caller: {which}"),
        }
    }

    fn check<F: Fn(ToolCall) -> ToolResult, B: Fn(ToolCall) -> ToolResult>(&self, two: &Case<F, B>) {
        for which in ["typed4", "json", "audit"] {
            let r = drive(self.side(which).call(two.call()));
            assert_eq!(r, two.floor(two.call()), "hooks {which}: disagrees with the floor");
        }
    }

    /// Medians of interleaved rounds: floor, plain toolbox, then each hooked toolbox;
    /// each with its per-round ratio to the floor.
    fn interleaved<F: Fn(ToolCall) -> ToolResult, B: Fn(ToolCall) -> ToolResult>(
        &self,
        two: &Case<F, B>,
        rounds: usize,
        n: usize,
    ) -> Vec<(f64, f64)> {
        let make = || two.call();
        let sides: [&dyn Fn(ToolCall) -> ToolResult; 5] = [
            &|c| two.floor(c),
            &|c| two.toolbox(c),
            &|c| drive(self.typed4.call(c)),
            &|c| drive(self.json.call(c)),
            &|c| drive(self.audit.call(c)),
        ];
        let k = sides.len();
        // After each batch, outside the timing: the audit writer drains its queue.
        let settle = || self.log.flush().expect("the audit log writes to a sink");
        for side in sides {
            time_batch(n, &make, &side);
            settle();
        }
        let mut ns = vec![Vec::new(); k];
        let mut ratios = vec![Vec::new(); k];
        for round in 0..rounds {
            let mut this = vec![0.0; k];
            for j in 0..k {
                let which = (round + j) % k;
                this[which] = time_batch(n, &make, &sides[which]);
                settle();
            }
            for which in 0..k {
                ns[which].push(this[which]);
                ratios[which].push(this[which] / this[0]);
            }
        }
        (0..k).map(|w| (median(&mut ns[w]), median(&mut ratios[w]))).collect()
    }

    fn allocations<F: Fn(ToolCall) -> ToolResult, B: Fn(ToolCall) -> ToolResult>(
        &self,
        two: &Case<F, B>,
        n: usize,
    ) -> [f64; 3] {
        ["typed4", "json", "audit"].map(|w| allocations(n, || two.call(), |c| drive(self.side(w).call(c))))
    }

    fn instructions<F: Fn(ToolCall) -> ToolResult, B: Fn(ToolCall) -> ToolResult>(
        &self,
        two: &Case<F, B>,
        side: &str,
        n: usize,
    ) {
        // The ledger keeps what it saw: each call a new id, or the calls after the first
        // would be replays.
        let calls: Vec<ToolCall> = black_box(
            (0..n)
                .map(|i| match side {
                    "ledger" => ToolCall { id: format!("call_{i}"), ..two.call() },
                    _ => two.call(),
                })
                .collect(),
        );
        let results = black_box(instructions_loop(calls, &|c| drive(self.side(side).call(c))));
        if let Some(r) = results.first() {
            assert!(r.error.is_none(), "hooks {side}: {}", r.content);
        }
    }
}

// ---- call_all -------------------------------------------------------------------

fn multi_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_time().build().expect("a tokio runtime")
}

fn nap_calls(n: usize) -> Vec<ToolCall> {
    (0..n).map(|i| ToolCall::new(format!("call_{i}"), "nap", format!(r#"{{"ms": {NAP_MS}}}"#))).collect()
}

// Field assignment rather than `Limits { concurrency, ..Default::default() }`: it also
// compiles while `Limits` is `#[non_exhaustive]` (the struct expression is E0639 then).
#[allow(clippy::field_reassign_with_default)]
fn nap_toolbox() -> Toolbox {
    let mut limits = Limits::default();
    limits.concurrency = BATCH;
    toolbox![nap].with_limits(limits)
}

/// Exactly one successful result per call, in call order.
fn check_batch(calls: &[ToolCall], results: &[ToolResult]) {
    assert_eq!(calls.len(), results.len());
    for (c, r) in calls.iter().zip(results) {
        assert_eq!(c.id, r.call_id);
        assert!(r.error.is_none(), "{}: {}", r.call_id, r.content);
        assert_eq!(r.content, NAP_MS.to_string());
    }
}

struct BatchTiming {
    rounds: usize,
    one_ms: f64,
    batch_ms: f64,
}

/// Median wall time of one `nap` call, and of `call_all` over [`BATCH`] of them.
fn batch_timing(rt: &tokio::runtime::Runtime, tools: &Toolbox, rounds: usize) -> BatchTiming {
    let mut one = Vec::new();
    let mut batch = Vec::new();
    for _ in 0..rounds {
        let call = nap_calls(1).remove(0);
        let start = Instant::now();
        let r = rt.block_on(tools.call(call));
        one.push(start.elapsed().as_secs_f64() * 1e3);
        assert!(r.error.is_none(), "{}", r.content);

        let calls = nap_calls(BATCH);
        let start = Instant::now();
        let results = rt.block_on(tools.call_all(calls.clone()));
        batch.push(start.elapsed().as_secs_f64() * 1e3);
        check_batch(&calls, &results);
    }
    BatchTiming { rounds, one_ms: median(&mut one), batch_ms: median(&mut batch) }
}

// ---- main -----------------------------------------------------------------------

fn bench_call_all(c: &mut Criterion, rt: &tokio::runtime::Runtime, naps: &Toolbox) {
    let mut g = c.benchmark_group("call_all");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g.bench_function(format!("{BATCH}x_sleep_{NAP_MS}ms_concurrency_{BATCH}"), |b| {
        b.iter_batched(|| nap_calls(BATCH), |calls| rt.block_on(naps.call_all(calls)), BatchSize::PerIteration)
    });
    g.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    // Same rule as criterion: without `--bench` (as under `cargo test --benches`) it
    // only checks that each benchmark runs; so do the sections around it.
    let full = has("--bench") && !has("--test") && !has("--list");
    // `--instructions <variant> <n>`: a workload for callgrind, handled before (and
    // instead of) everything else, so criterion never sees these arguments.
    let instructions = args.iter().position(|a| a == "--instructions").map(|i| {
        let usage = || -> ! {
            eprintln!("usage: dispatch --instructions <variant> <n>, variant one of {}", VARIANTS.join(", "));
            std::process::exit(2)
        };
        let variant = args.get(i + 1).filter(|v| VARIANTS.contains(&v.as_str())).unwrap_or_else(|| usage());
        let n: usize = args.get(i + 2).and_then(|n| n.parse().ok()).unwrap_or_else(|| usage());
        (variant.clone(), n)
    });

    let two = Case {
        group: "two_arg",
        label: "two-arg",
        description: "`add(a: i64, b: i64) -> i64`",
        tool: "add",
        args: ADD_ARGS,
        toolbox: toolbox![add],
        floor: |call| drive(floor_add(call)),
        boxed: |call| drive(Box::pin(floor_add(call))),
    };
    let five = Case {
        group: "five_arg",
        label: "five-arg",
        description: "`forecast` (5 args: String, enum with default, u32, bool, Option) -> struct",
        tool: "forecast",
        args: FORECAST_ARGS,
        toolbox: toolbox![forecast],
        floor: |call| drive(floor_forecast(call)),
        boxed: |call| drive(Box::pin(floor_forecast(call))),
    };
    // `add` again, in a toolbox of 1,000 tools (it and 999 run-time tools of the
    // synthetic catalog): what a call pays for the size of its toolbox.
    let many = Case {
        group: "many_tools",
        label: "many",
        description: "`add` in a 1,000-tool toolbox",
        tool: "add",
        args: ADD_ARGS,
        toolbox: {
            let mut toolbox = toolbox![add];
            for spec in catalog::tools(999) {
                toolbox.add_dynamic(FnTool::new(spec, |_| async { Ok(Output::text("ok")) })).unwrap();
            }
            toolbox
        },
        floor: |call| drive(floor_add(call)),
        boxed: |call| drive(Box::pin(floor_add(call))),
    };
    two.check();
    five.check();
    many.check();
    let hooks = HookCases::new();
    hooks.check(&two);

    if let Some((variant, n)) = instructions {
        if variant.ends_with("-traced") {
            // A subscriber that wants warnings only: the `execute_tool` span (info) is
            // disabled, so calls must take the plain path.
            tracing_subscriber::fmt()
                .with_env_filter(tracing_subscriber::EnvFilter::new("warn"))
                .with_writer(std::io::sink)
                .init();
        }
        match variant.split_once('-') {
            Some(("two", side)) => two.instructions(side, n),
            Some(("five", side)) => five.instructions(side, n),
            Some(("hooks", side)) => hooks.instructions(&two, side, n),
            Some(("many", side)) => many.instructions(side, n),
            _ => unreachable!("variant checked above: {variant}"),
        }
        return;
    }

    // 1. Allocations, before anything runs on other threads.
    let n = if full { 10_000 } else { 100 };
    let allocs = [two.allocations(n), five.allocations(n)];
    println!("\nallocations per call ({n} calls each; building the ToolCall is not counted):");
    for (label, (f, t)) in [two.label, five.label].into_iter().zip(allocs) {
        println!("  {label:<9} allocations per call: floor {}, toolbox {}", fmt_count(f), fmt_count(t));
    }
    let hook_allocs = hooks.allocations(&two, n);
    println!(
        "  two-arg with hooks: 4 typed no-op {}, 1 JSON-view {}, audit log {}",
        fmt_count(hook_allocs[0]),
        fmt_count(hook_allocs[1]),
        fmt_count(hook_allocs[2])
    );
    println!();

    // 2. Criterion.
    let rt = multi_thread_runtime();
    let naps = nap_toolbox();
    let mut c = Criterion::default().configure_from_args();
    two.bench(&mut c);
    five.bench(&mut c);
    bench_call_all(&mut c, &rt, &naps);
    c.final_summary();

    // 3. Same-run ratios and the batch wall time.
    let (rounds, n) = if full { (101, 5_000) } else { (3, 100) };
    let measured = [two.measured(allocs[0], rounds, n), five.measured(allocs[1], rounds, n)];
    let hooked = hooks.interleaved(&two, rounds, n);
    let batch = batch_timing(&rt, &naps, if full { 15 } else { 1 });
    let workers = rt.metrics().num_workers();

    println!("\n## dispatch benchmark (`cargo bench --bench dispatch`)\n");
    println!(
        "Hand-written floor (route on the name, `serde_json::from_str` into a derived struct, call, \
         `serde_json::to_string`) vs `Toolbox::call`; both polled with a no-op waker, no runtime. \
         Medians of {rounds} interleaved rounds of {n} calls each.\n"
    );
    println!("| tool | floor | floor + 1 box | toolbox | overhead | toolbox/floor | allocs floor | allocs toolbox |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for m in &measured {
        println!(
            "| {} | {:.1} ns | {:.1} ns ({:.2}x) | {:.1} ns | {:+.1} ns | **{:.2}x** | {} | {} |",
            m.description,
            m.floor_ns,
            m.boxed_ns,
            m.boxed_ratio,
            m.toolbox_ns,
            m.toolbox_ns - m.floor_ns,
            m.ratio,
            fmt_count(m.allocs_floor),
            fmt_count(m.allocs_toolbox)
        );
    }
    println!(
        "\n\"floor + 1 box\" is the floor with its future in a `Box::pin`: the cost of the one boxed future \
         the design allows, for reference.\n"
    );
    println!("Hooks on the two-arg tool (same run, same method; ratios to the floor):\n");
    println!("| toolbox | per call | toolbox/floor | allocs |");
    println!("|---|---:|---:|---:|");
    let hook_rows = [
        ("no hooks", allocs[0].1),
        ("4 typed no-op before hooks", hook_allocs[0]),
        ("1 before hook reading the JSON view", hook_allocs[1]),
        ("audit log (JSON Lines, to a discarding writer)", hook_allocs[2]),
    ];
    for (i, (label, a)) in hook_rows.iter().enumerate() {
        let (ns, ratio) = hooked[i + 1];
        println!("| {label} | {ns:.1} ns | **{ratio:.2}x** | {} |", fmt_count(*a));
    }
    println!();
    println!(
        "`call_all` of {BATCH} calls that each sleep {NAP_MS} ms, `Limits {{ concurrency: {BATCH}, .. }}`, \
         multi-thread runtime ({workers} workers): **{:.1} ms** (one such call alone: {:.1} ms; one after \
         another: ~{} ms). Medians of {} runs.\n",
        batch.batch_ms,
        batch.one_ms,
        BATCH as u64 * NAP_MS,
        batch.rounds
    );
    let verdict = |ok: bool| match (full, ok) {
        (false, _) => "not judged in a quick check",
        (true, true) => "ok",
        (true, false) => "MISSED",
    };
    for m in &measured {
        println!("ratio {}: {:.2}x (target <= 1.15x: {})", m.label, m.ratio, verdict(m.ratio <= 1.15));
    }
    for m in &measured {
        println!(
            "allocations per call {}: floor {}, toolbox {} (target <= floor + 1: {})",
            m.label,
            fmt_count(m.allocs_floor),
            fmt_count(m.allocs_toolbox),
            verdict(m.allocs_toolbox <= m.allocs_floor + 1.0)
        );
    }
    println!(
        "ratio two-arg with 4 typed no-op hooks: {:.2}x (target <= 1.3x: {})",
        hooked[2].1,
        verdict(hooked[2].1 <= 1.3)
    );
    let batch_ratio = batch.batch_ms / batch.one_ms;
    println!(
        "call_all {BATCH} x {NAP_MS} ms: {:.1} ms, {:.2}x one call (target about one call, read as <= 1.25x: {})",
        batch.batch_ms,
        batch_ratio,
        verdict(batch_ratio <= 1.25)
    );
    if !full {
        println!("(quick check only: run `cargo bench --bench dispatch` for real numbers)");
    }
}
