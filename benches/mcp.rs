//! What serving a toolbox over MCP costs per call (DESIGN.md §8, issue 5 "Speed").
//!
//! Run with `cargo bench --bench mcp`. It measures:
//!
//! 1. **In-process `tools/call`**: JSON-RPC request bytes in, response bytes out, through
//!    the whole server (`McpServer::serve` on an in-memory pipe: the SDK's framing and
//!    dispatch, our routing, `Toolbox::call`, the result's JSON), for a server of 2 tools
//!    and one of 50, calling the same tool (`add`). The floor is `Toolbox::call` on the
//!    same toolbox: the difference is what MCP adds. The 50-tool server must cost what
//!    the 2-tool one does: the tool list and the routing table are built once per
//!    server, never per request.
//! 2. **stdio round trips per second**: a client loop writing one `tools/call` line to a
//!    server process's stdin and reading the answer from its stdout (real pipes, one call
//!    in flight at a time), the server being this binary started with `--stdio-server`.
//!
//! 3. **HTTP round trips**: the same call as a stateless (2026-07-28) `POST` to the
//!    server of `McpServer::bind_http` on loopback, one call in flight on one kept-alive
//!    connection (client and server in this process).
//!
//! All run on a current-thread Tokio runtime. After criterion's groups, a summary
//! (interleaved timings, medians of batches, same process) is printed for the README.
//! Under `cargo test --benches` each benchmark runs once and the summary only a few
//! iterations, checking that every path answers `3`.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader as AsyncBufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::runtime::Runtime;
use toolkit::mcp::McpServer;
use toolkit::prelude::*;
use toolkit::{FnTool, Output, ToolSpec, Toolbox};

/// Add two numbers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Tell the current time.
#[tool(read_only)]
fn now() -> String {
    "12:00".into()
}

/// `add` and `now`, or `add` and 49 run-time tools.
fn toolbox(tools: usize) -> Arc<Toolbox> {
    if tools == 2 {
        return Arc::new(toolbox![add, now]);
    }
    let mut toolbox = toolbox![add];
    for i in 1..tools {
        let spec = ToolSpec::new(
            format!("tool_{i:02}"),
            format!("Tool number {i}."),
            json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"], "additionalProperties": false}),
        );
        toolbox.add_dynamic(FnTool::new(spec, |_| async { Ok(Output::text("ok")) })).expect("unique names");
    }
    Arc::new(toolbox)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call_line(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
    )
}

fn check_answer(line: &str) {
    assert!(line.contains(r#""text":"3""#) && line.contains(r#""isError":false"#), "unexpected answer: {line}");
}

/// A client of an in-process server: request bytes in, response bytes out.
struct InProcess {
    write: WriteHalf<DuplexStream>,
    read: AsyncBufReader<ReadHalf<DuplexStream>>,
    line: String,
    next_id: u64,
}

impl InProcess {
    async fn start(tools: Arc<Toolbox>) -> InProcess {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        tokio::spawn(McpServer::new(tools).serve(server_read, server_write));
        let (read, write) = tokio::io::split(client);
        let mut client = InProcess { write, read: AsyncBufReader::new(read), line: String::new(), next_id: 1 };
        client.send(INITIALIZE).await;
        client.receive().await;
        client.send(INITIALIZED).await;
        client
    }

    async fn send(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.expect("write");
        self.write.write_all(b"\n").await.expect("write");
    }

    async fn receive(&mut self) -> &str {
        self.line.clear();
        self.read.read_line(&mut self.line).await.expect("read");
        &self.line
    }

    /// One `tools/call` of `add`, answered.
    async fn call(&mut self) -> usize {
        let request = call_line(self.next_id);
        self.next_id += 1;
        self.send(&request).await;
        self.receive().await.len()
    }

    /// One `tools/call` of the run-time tool `name`, answered.
    async fn call_named(&mut self, name: &str) -> usize {
        let request = json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": {"name": name, "arguments": {"x": "1"}}});
        self.next_id += 1;
        self.send(&request.to_string()).await;
        let answer = self.receive().await;
        // A known tool answers `ok`; a name no tool has is invalid params.
        assert!(answer.contains("\"ok\"") || answer.contains("\"code\":-32602"), "{answer}");
        answer.len()
    }
}

/// A client of the HTTP server (`McpServer::bind_http`) on loopback: one stateless
/// (2026-07-28) `tools/call` of `add` at a time, on one kept-alive connection.
struct HttpClient {
    client: reqwest::Client,
    url: String,
    body: String,
    text: String,
}

impl HttpClient {
    async fn start(tools: Arc<Toolbox>) -> HttpClient {
        let http = McpServer::new(tools).bind_http("127.0.0.1:0").await.expect("bind");
        let url = http.url();
        tokio::spawn(http.run());
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta}});
        HttpClient { client: reqwest::Client::new(), url, body: body.to_string(), text: String::new() }
    }

    /// One `tools/call` of `add`, answered.
    async fn call(&mut self) -> usize {
        let response = self
            .client
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "add")
            .body(self.body.clone())
            .send()
            .await
            .expect("send");
        self.text = response.text().await.expect("answer");
        self.text.len()
    }
}

/// Run-time tools at scale (issue: flat at 100,000 tools): how long registering `n`
/// tools with `add_dynamic` takes, how long from `McpServer::new` to the `initialize`
/// answer, and a call of the first tool against one of the last and one naming no tool
/// (its did-you-mean search is bounded: about as fast at 100,000 tools as at 2)
/// (interleaved batches, medians).
fn scale(rt: &Runtime, sizes: &[usize], batches: usize, per_batch: usize) {
    println!();
    println!("## Run-time tools: registration, first answer, first vs last tool");
    println!();
    println!(
        "| run-time tools | register (add_dynamic) | new server → initialize answered | call the first | call the last | last / first | an unknown name |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let start = Instant::now();
        let mut toolbox = Toolbox::new();
        for i in 0..n {
            let spec = ToolSpec::new(
                format!("tool_{i}"),
                "A run-time tool.",
                json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"], "additionalProperties": false}),
            );
            toolbox.add_dynamic(FnTool::new(spec, |_| async { Ok(Output::text("ok")) })).expect("unique names");
        }
        let register = start.elapsed();
        let toolbox = Arc::new(toolbox);
        let start = Instant::now();
        let mut client = rt.block_on(InProcess::start(toolbox));
        let answered = start.elapsed();
        let (first, last) = ("tool_0".to_owned(), format!("tool_{}", n - 1));
        // A typo of no tool, measured against every tool of its length range (capped).
        let unknown = "tool_zz".to_owned();
        let mut times: [Vec<f64>; 3] = Default::default();
        for _ in 0..batches {
            for (slot, name) in [(0, &first), (1, &last), (2, &unknown)] {
                let start = Instant::now();
                rt.block_on(async {
                    for _ in 0..per_batch {
                        black_box(client.call_named(name).await);
                    }
                });
                times[slot].push(start.elapsed().as_secs_f64());
            }
        }
        let per_call = |i: usize| median(times[i].clone()) / per_batch as f64 * 1e6;
        let (first_us, last_us, unknown_us) = (per_call(0), per_call(1), per_call(2));
        println!(
            "| {n} | {:.1} ms | {:.1} ms | {first_us:.2} µs | {last_us:.2} µs | {:.2}x | {unknown_us:.2} µs |",
            register.as_secs_f64() * 1e3,
            answered.as_secs_f64() * 1e3,
            last_us / first_us
        );
    }
}

/// A server process on stdio and the client's ends of its pipes.
struct StdioClient {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
    next_id: u64,
}

impl StdioClient {
    fn start() -> StdioClient {
        let exe = std::env::current_exe().expect("bench binary");
        let mut child = Command::new(exe)
            .arg("--stdio-server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("server process");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut client = StdioClient { child, stdin, stdout, line: String::new(), next_id: 1 };
        client.send(INITIALIZE);
        client.receive();
        client.send(INITIALIZED);
        client
    }

    fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.write_all(b"\n").expect("write");
        self.stdin.flush().expect("flush");
    }

    fn receive(&mut self) -> &str {
        self.line.clear();
        self.stdout.read_line(&mut self.line).expect("read");
        &self.line
    }

    fn call(&mut self) -> usize {
        let request = call_line(self.next_id);
        self.next_id += 1;
        self.send(&request);
        self.receive().len()
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn toolbox_call(tools: &Toolbox) -> usize {
    tools.call(ToolCall::new("1", "add", r#"{"a":1,"b":2}"#)).await.content.len()
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Median per-call time (µs) of each variant, timed in interleaved batches.
fn summary(rt: &Runtime, batches: usize, per_batch: usize) {
    let two = toolbox(2);
    let fifty = toolbox(50);
    let (mut mcp_two, mut mcp_fifty) = rt.block_on(async {
        let mut two_client = InProcess::start(Arc::clone(&two)).await;
        let mut fifty_client = InProcess::start(Arc::clone(&fifty)).await;
        two_client.call().await;
        check_answer(&two_client.line);
        fifty_client.call().await;
        check_answer(&fifty_client.line);
        (two_client, fifty_client)
    });
    let mut stdio = StdioClient::start();
    stdio.call();
    check_answer(&stdio.line);
    let mut http = rt.block_on(HttpClient::start(Arc::clone(&two)));
    rt.block_on(http.call());
    check_answer(&http.text);
    let mut times: [Vec<f64>; 6] = Default::default();
    for _ in 0..batches {
        let start = Instant::now();
        rt.block_on(async {
            for _ in 0..per_batch {
                black_box(toolbox_call(&two).await);
            }
        });
        times[0].push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        rt.block_on(async {
            for _ in 0..per_batch {
                black_box(mcp_two.call().await);
            }
        });
        times[1].push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        rt.block_on(async {
            for _ in 0..per_batch {
                black_box(toolbox_call(&fifty).await);
            }
        });
        times[2].push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        rt.block_on(async {
            for _ in 0..per_batch {
                black_box(mcp_fifty.call().await);
            }
        });
        times[3].push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        for _ in 0..per_batch {
            black_box(stdio.call());
        }
        times[4].push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        rt.block_on(async {
            for _ in 0..per_batch {
                black_box(http.call().await);
            }
        });
        times[5].push(start.elapsed().as_secs_f64());
    }
    let per_call = |i: usize| median(times[i].clone()) / per_batch as f64 * 1e6;
    let (tb2, mcp2, tb50, mcp50, rt_stdio) = (per_call(0), per_call(1), per_call(2), per_call(3), per_call(4));
    let rt_http = per_call(5);
    println!();
    println!("## MCP server: per-call cost ({batches} interleaved batches of {per_batch} calls, medians)");
    println!();
    println!("| path | 2 tools | 50 tools |");
    println!("|---|---|---|");
    println!("| `Toolbox::call` (floor) | {tb2:.2} µs | {tb50:.2} µs |");
    println!("| in-process `tools/call`, bytes in → bytes out | {mcp2:.2} µs | {mcp50:.2} µs |");
    println!("| what MCP adds | {:.2} µs | {:.2} µs |", mcp2 - tb2, mcp50 - tb50);
    println!();
    println!("50 tools / 2 tools, in-process tools/call: {:.2}x", mcp50 / mcp2);
    println!(
        "stdio round trips (one call in flight, real pipes, separate server process): {rt_stdio:.1} µs each, {:.0} calls/s",
        1e6 / rt_stdio
    );
    println!(
        "HTTP round trips (one call in flight, loopback, one kept-alive connection, same process): {rt_http:.1} µs each, {:.0} calls/s",
        1e6 / rt_http
    );
}

fn main() {
    if std::env::args().any(|a| a == "--stdio-server") {
        // The server side of the stdio benchmark: nothing on stdout but protocol.
        let rt = runtime();
        rt.block_on(async { McpServer::new(toolbox(2)).serve_stdio().await.expect("serve") });
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let full = has("--bench") && !has("--test") && !has("--list");

    let rt = runtime();
    let mut criterion = Criterion::default().configure_from_args();
    if full {
        criterion = criterion.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    }
    {
        let mut group = criterion.benchmark_group("mcp_tools_call");
        for tools in [2, 50] {
            let toolbox = toolbox(tools);
            group.bench_function(format!("toolbox_call/{tools}_tools"), |b| {
                b.iter(|| rt.block_on(toolbox_call(&toolbox)));
            });
            let mut client = rt.block_on(InProcess::start(Arc::clone(&toolbox)));
            group.bench_function(format!("in_process/{tools}_tools"), |b| {
                b.iter(|| rt.block_on(client.call()));
            });
        }
        group.finish();
        let mut group = criterion.benchmark_group("mcp_stdio");
        let mut stdio = StdioClient::start();
        group.bench_function("round_trip/2_tools", |b| b.iter(|| stdio.call()));
        group.finish();
        let mut group = criterion.benchmark_group("mcp_http");
        let mut http = rt.block_on(HttpClient::start(toolbox(2)));
        group.bench_function("round_trip/2_tools", |b| b.iter(|| rt.block_on(http.call())));
        group.finish();
    }
    criterion.final_summary();

    if full {
        summary(&rt, 31, 2_000);
        scale(&rt, &[2, 1_000, 100_000], 15, 1_000);
    } else {
        summary(&rt, 3, 5);
        scale(&rt, &[2, 1_000], 2, 3);
    }
}
