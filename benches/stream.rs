//! What a streaming run costs per event on top of reading the same server-sent events
//! by hand.
//!
//! Run with `cargo bench --bench stream`. A local server answers each request with the
//! same Chat Completions stream: `EVENTS` text deltas, the finish, usage and `[DONE]`.
//!
//! * The **floor** posts the request with reqwest, parses the body's events with
//!   `eventsource-stream`, deserializes each chunk into a minimal struct and appends
//!   its text: what a hand-written streaming client does.
//! * **`Agent::run_stream`** goes through `OpenAiCompatible::stream` (the same parser,
//!   each chunk read into `ModelEvent`s, tool calls assembled) and the agent (a
//!   `RunEvent::TextDelta` per delta through the run's channel, the reply put together,
//!   the transcript, the outcome).
//!
//! Both read the same bytes from the same server in the same process, interleaved; the
//! summary prints the medians and the difference per event.

use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::post;
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde::Deserialize;
use toolkit::agent::{Agent, RunEvent};
use toolkit::model::OpenAiCompatible;
use toolkit::prelude::*;

const EVENTS: usize = 2_000;

fn body() -> String {
    let mut body = String::new();
    for i in 0..EVENTS {
        let chunk = serde_json::json!({"id": "c", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"content": format!("w{i} ")}, "finish_reason": null}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
    body.push_str(
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n",
    );
    body.push_str("data: [DONE]\n\n");
    body
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<Delta>,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
}

async fn floor(http: &reqwest::Client, url: &str) -> String {
    let response = http.post(url).json(&serde_json::json!({"stream": true})).send().await.unwrap();
    let mut events = response.bytes_stream().eventsource();
    let mut text = String::new();
    while let Some(event) = events.next().await {
        let event = event.unwrap();
        if event.data == "[DONE]" {
            break;
        }
        let chunk: Chunk = serde_json::from_str(&event.data).unwrap();
        if let Some(content) = chunk.choices.into_iter().next().and_then(|c| c.delta).and_then(|d| d.content) {
            text.push_str(&content);
        }
    }
    text
}

async fn agent_stream(agent: &Agent) -> String {
    let mut events = agent.run_stream("go");
    let mut deltas = 0;
    let mut text = String::new();
    while let Some(event) = events.next().await {
        match event {
            RunEvent::TextDelta { .. } => deltas += 1,
            RunEvent::Finished(run) => text = run.unwrap().text,
            _ => {}
        }
    }
    assert_eq!(deltas, EVENTS);
    text
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let body = body();
    let base = rt.block_on(async move {
        let app = Router::new().route(
            "/v1/chat/completions",
            post(move || {
                let body = body.clone();
                async move { ([("content-type", "text/event-stream")], body) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{addr}/v1")
    });
    let http = reqwest::Client::new();
    let url = format!("{base}/chat/completions");
    let model = OpenAiCompatible::builder().base_url(&base).api_key("k").model("m").build().unwrap();
    let agent = Agent::builder(model, Toolbox::new()).build().unwrap();

    // Both sides read the same text.
    let expected = rt.block_on(floor(&http, &url));
    assert_eq!(rt.block_on(agent_stream(&agent)), expected);

    let bench = std::env::args().any(|a| a == "--bench");
    let rounds = if bench { 31 } else { 2 };
    let per_round = if bench { 20 } else { 1 };
    let (mut f, mut a) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..per_round {
            std::hint::black_box(rt.block_on(floor(&http, &url)));
        }
        f.push(t.elapsed().as_secs_f64() / per_round as f64);
        let t = Instant::now();
        for _ in 0..per_round {
            std::hint::black_box(rt.block_on(agent_stream(&agent)));
        }
        a.push(t.elapsed().as_secs_f64() / per_round as f64);
    }
    let (f, a) = (median(f), median(a));
    let per_event = |s: f64| Duration::from_secs_f64(s / EVENTS as f64);
    println!(
        "\n## streaming: one reply of {EVENTS} text deltas over local HTTP (medians of {rounds} interleaved rounds)\n"
    );
    println!("| side | per reply | per event |");
    println!("|---|---:|---:|");
    println!(
        "| hand-written SSE read (reqwest + eventsource-stream + serde) | {:.2} ms | {:?} |",
        f * 1e3,
        per_event(f)
    );
    println!("| `Agent::run_stream` over `OpenAiCompatible` | {:.2} ms | {:?} |", a * 1e3, per_event(a));
    // In test mode (two rounds of one reply) the agent can come out ahead of the floor by
    // noise, so the difference is signed, in nanoseconds, not a `Duration`.
    let overhead_ns = (a - f) / EVENTS as f64 * 1e9;
    println!("\nper-event overhead of the agent stream: {overhead_ns:+.0} ns ({:.2}x the floor)", a / f);
}
