//! Three replicas of an MCP HTTP server sharing one rate limit through Redis.
//!
//! ```sh
//! cargo run --example fleet                          # starts a redis-server of its own
//! cargo run --example fleet -- redis://127.0.0.1:6379/   # or uses yours
//! ```
//!
//! Each replica is its own toolbox, with its own connection to Redis, serving
//! streamable HTTP on its own port, as replicas behind a load balancer would. A client
//! sends 30 calls round-robin (stateless 2026-07-28 requests); the limit is 10 calls of
//! `search` per 10 s across the fleet, so exactly 10 get through, whichever replica
//! served them. With the in-memory store each replica would let 10 through: 30 in all.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::hooks::RateLimit;
use toolkit::hooks::RedisStore;
use toolkit::mcp::McpServer;
use toolkit::prelude::*;

#[path = "support/redis_server.rs"]
mod redis_server;
use redis_server::RedisServer;

/// Search the web (a stand-in that answers at once).
#[tool(read_only)]
fn search(query: String) -> String {
    format!("results for {query}")
}

const LIMIT: u32 = 10;
const CALLS: usize = 30;

fn main() -> ExitCode {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let result = runtime.block_on(run());
    runtime.shutdown_timeout(Duration::from_secs(2));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let (url, _own) = match std::env::args().nth(1) {
        Some(url) => (url, None),
        None => {
            let own = RedisServer::start().map_err(|e| format!("{e}, or pass a Redis URL"))?;
            (own.url(), Some(own))
        }
    };
    println!("redis:    {url}");
    // A fresh window for this run: the keys carry a prefix of their own.
    let prefix = format!("fleet-{}", std::process::id());
    let mut urls = Vec::new();
    let mut stops = Vec::new();
    for _ in 0..3 {
        let store = RedisStore::open(&url)?.with_prefix(&prefix).with_timeout(Duration::from_secs(1));
        let tools = toolbox![search].with_hook(RateLimit::per_tool(LIMIT, Duration::from_secs(10)).store(store));
        let http = McpServer::new(tools).bind_http("127.0.0.1:0").await?;
        urls.push(http.url());
        stops.push(http.shutdown_token());
        tokio::spawn(http.run());
    }
    println!("replicas: {}", urls.join(", "));
    println!("limit:    {LIMIT} calls of `search` per 10s, shared through Redis");
    println!();
    let client = reqwest::Client::new();
    let mut allowed = [0usize; 3];
    let mut blocked = [0usize; 3];
    for i in 0..CALLS {
        let replica = i % 3;
        let text = call(&client, &urls[replica], i).await?;
        if text.starts_with("blocked: rate limit") {
            blocked[replica] += 1;
        } else {
            allowed[replica] += 1;
        }
    }
    for replica in 0..3 {
        println!("replica {}: {} allowed, {} blocked", replica + 1, allowed[replica], blocked[replica]);
    }
    let total: usize = allowed.iter().sum();
    let held = total == LIMIT as usize;
    println!();
    println!(
        "{CALLS} calls round-robin: {total} allowed in all (limit {LIMIT}) — {}",
        if held { "the limit held across the fleet" } else { "the limit did NOT hold" }
    );
    for stop in stops {
        stop.cancel();
    }
    Ok(held)
}

/// One stateless (2026-07-28) `tools/call` of `search`: the result's text.
async fn call(client: &reqwest::Client, url: &str, id: usize) -> Result<String, Box<dyn std::error::Error>> {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": format!("q{id}")}, "_meta": meta}});
    let text = client
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "search")
        .body(body.to_string())
        .send()
        .await?
        .text()
        .await?;
    // A JSON body, or an event stream whose `data:` line is the message.
    let message = text.lines().find_map(|l| l.strip_prefix("data:")).map_or(text.as_str(), str::trim);
    let message: Value = serde_json::from_str(message)?;
    Ok(message["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned())
}
