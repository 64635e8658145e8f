//! Deferred tools and `search_tools`: a deferred tool is not sent until a search finds
//! it, then is sent from the next turn on, appended (the tools sent before stay exactly
//! as they were); `search_tools` ranks by BM25 over names, descriptions and
//! parameters; hooks and records see its calls like any other.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::agent::Agent;
use toolkit::model::{ScriptedModel, Turn};
use toolkit::prelude::*;
use toolkit::search::{SEARCH_TOOLS, ToolIndex, embedding_text};
use toolkit::{BeforeCall, Decision, Hook, ToolSpec};

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The current weather and the forecast for a city.
#[tool(defer, read_only)]
fn get_weather(
    /// The city, such as `Paris`.
    city: String,
) -> String {
    format!("{city}: 21 °C, sunny")
}

/// Send an email message to someone.
#[tool(defer)]
fn send_email(
    /// The recipient's address.
    to: String,
    /// The message.
    body: String,
) -> String {
    format!("sent to {to}: {body}")
}

/// Refund a customer's order.
#[tool(defer, destructive)]
fn refund_order(
    /// The order number.
    order_id: u64,
) -> String {
    format!("refunded {order_id}")
}

/// 查询股票的实时价格。
#[tool(defer, read_only)]
fn stock_price(
    /// 股票代码
    symbol: String,
) -> String {
    format!("{symbol}: 42")
}

fn tools() -> Toolbox {
    toolbox![add, get_weather, send_email, refund_order, stock_price]
}

fn search(tools: &Toolbox, query: &str) -> Vec<String> {
    let deferred: Vec<&ToolSpec> = tools.specs().into_iter().filter(|s| s.deferred).collect();
    let index = ToolIndex::new(deferred.iter().copied());
    index.search(query, 5).into_iter().map(|hit| deferred[hit.index].name.clone()).collect()
}

#[test]
fn a_toolbox_with_deferred_tools_has_search_tools() {
    let tools = tools();
    assert_eq!(tools.names(), ["add", "get_weather", SEARCH_TOOLS, "send_email", "refund_order", "stock_price"]);
    assert!(tools.is_deferred("send_email") && !tools.is_deferred("add") && !tools.is_deferred(SEARCH_TOOLS));
    assert_eq!(toolbox![add].names(), ["add"], "no deferred tool, no search");
}

#[test]
fn search_ranks_by_names_descriptions_and_parameters_in_any_script() {
    let tools = tools();
    assert_eq!(search(&tools, "weather in Oslo")[0], "get_weather");
    assert_eq!(search(&tools, "email my boss")[0], "send_email");
    assert_eq!(search(&tools, "give the customer their money back for an order")[0], "refund_order");
    assert_eq!(search(&tools, "orderId")[0], "refund_order", "a parameter's name, camel-cased");
    assert_eq!(search(&tools, "股票价格")[0], "stock_price", "Chinese, no spaces");
    assert_eq!(search(&tools, "send_email")[0], "send_email", "a name as written");
    assert!(search(&tools, "zebra xylophone").is_empty());
}

#[tokio::test]
async fn search_tools_answers_through_the_toolbox_with_hooks_and_records() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let watch = Hook::before("watch", move |c: &mut BeforeCall<'_>| {
        log.lock().unwrap().push(c.tool().to_string());
        Decision::Continue
    });
    let tools = tools().with_hook(watch);
    let result = tools.call(ToolCall::new("1", SEARCH_TOOLS, r#"{"query": "refund an order", "limit": 2}"#)).await;
    let value: Value = serde_json::from_str(&result.content).unwrap();
    assert_eq!(value["tools"][0], json!({"name": "refund_order", "description": "Refund a customer's order."}));
    assert!(value["tools"].as_array().unwrap().len() <= 2);
    assert_eq!(value["note"], "These tools can be called from your next turn.");
    assert_eq!(*seen.lock().unwrap(), [SEARCH_TOOLS]);
    let none = tools.call(ToolCall::new("2", SEARCH_TOOLS, r#"{"query": "zebra"}"#)).await;
    let none: Value = serde_json::from_str(&none.content).unwrap();
    assert_eq!(none, json!({"tools": [], "note": "No tool matches: try other words."}));
    let bad = tools.call(ToolCall::new("3", SEARCH_TOOLS, r#"{"limit": 3}"#)).await;
    assert!(bad.is_error(), "{bad:?}");
}

#[tokio::test]
async fn a_found_tool_is_sent_from_the_next_turn_and_earlier_tools_stay_as_they_were() {
    let model = ScriptedModel::new([
        Turn::call(SEARCH_TOOLS, r#"{"query": "weather forecast for a city"}"#),
        Turn::call("get_weather", r#"{"city": "Paris"}"#),
        Turn::call(SEARCH_TOOLS, r#"{"query": "email"}"#),
        Turn::text("Sunny in Paris; nothing sent."),
    ]);
    let agent = Agent::builder(model.clone(), tools()).build().unwrap();
    let run = agent.run("Weather in Paris?").await.unwrap();
    assert_eq!(run.text, "Sunny in Paris; nothing sent.");
    assert_eq!(run.records.len(), 3);

    let requests = model.requests();
    let sent: Vec<Vec<&str>> = requests.iter().map(|r| r.tool_names()).collect();
    assert_eq!(sent[0], ["add", SEARCH_TOOLS]);
    // The search found the weather tool first (and perhaps others after it).
    assert_eq!(sent[1][..3], ["add", SEARCH_TOOLS, "get_weather"]);
    assert_eq!(sent[2], sent[1], "no search in between: the same tools");
    assert!(sent[3].contains(&"send_email"));
    // Each request's tools begin with the previous request's, exactly.
    for pair in requests.windows(2) {
        assert_eq!(pair[1].tools[..pair[0].tools.len()], pair[0].tools[..], "a provider's prompt cache holds");
    }
}

/// Anthropic searches deferred tools itself: every tool goes, the deferred ones with
/// `defer_loading`, its tool search tool in place of `search_tools`, and its search
/// blocks go back exactly as they came.
#[tokio::test]
async fn anthropic_gets_every_tool_deferred_and_its_own_tool_search() {
    use support::provider::{Provider, ok};
    let reply = |content: Value, stop: &str| {
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-7",
               "content": content, "stop_reason": stop, "usage": {"input_tokens": 30, "output_tokens": 10}})
    };
    let searched = json!([
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {"query": "weather"}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
         "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
    ]);
    let server = Provider::start(
        "/v1/messages",
        [ok(reply(searched.clone(), "tool_use")), ok(reply(json!([{"type": "text", "text": "Sunny."}]), "end_turn"))],
    )
    .await;
    let model = toolkit::model::Anthropic::builder()
        .base_url(&server.base_url)
        .api_key("sk-ant-test")
        .cache_tools(true)
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap();
    let run = Agent::builder(model, tools()).build().unwrap().run("Weather in Paris?").await.unwrap();
    assert_eq!(run.text, "Sunny.");
    assert_eq!(run.records[0].tool, "get_weather");
    let received = server.received();
    assert_eq!(received[0].headers["anthropic-beta"], "advanced-tool-use-2025-11-20");
    let sent = received[0].body["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = sent.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["tool_search_tool_bm25", "add", "get_weather", "send_email", "refund_order", "stock_price"]);
    assert_eq!(sent[0]["type"], "tool_search_tool_bm25_20251119");
    assert!(sent[1].get("defer_loading").is_none());
    assert!(sent[2..].iter().all(|t| t["defer_loading"] == true), "{sent:?}");
    assert_eq!(sent[1]["cache_control"], json!({"type": "ephemeral"}), "on the last tool sent in full");
    assert_eq!(received[1].body["messages"][1], json!({"role": "assistant", "content": searched}));
    assert_eq!(received[1].body["tools"], received[0].body["tools"], "the same tools every turn");
}

/// Recall on a public tool-retrieval set built from the Berkeley Function Calling
/// Leaderboard (`benches/data/`, with how it was made): 1,090 real tools, 1,911 real
/// requests, each with its one right tool; the search looks among all the tools. The
/// figures are in `benches/README.md`; this holds them (a change to the tokenizer or
/// the weights that loses recall fails here). `SHOW_MISSES=1` prints each miss.
#[test]
fn recall_on_the_bfcl_retrieval_set() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/data/bfcl_tool_retrieval.json");
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let specs: Vec<ToolSpec> = data["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap();
            ToolSpec::new(name, t["description"].as_str().unwrap_or(""), t["parameters"].clone())
        })
        .collect();
    let queries: Vec<(&str, &str, &str)> = data["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| (q["query"].as_str().unwrap(), q["answer"].as_str().unwrap(), q["category"].as_str().unwrap()))
        .collect();
    // `EMBEDDING_TEXTS=path`: write every text the semantic half embeds, for
    // `benches/data/embed.py`, and stop.
    if let Ok(out) = std::env::var("EMBEDDING_TEXTS") {
        let texts: Vec<String> =
            specs.iter().map(embedding_text).chain(queries.iter().map(|(q, _, _)| q.to_string())).collect();
        std::fs::write(&out, serde_json::to_string(&texts).unwrap()).unwrap();
        eprintln!("{} texts written to {out}", texts.len());
        return;
    }
    let vectors = support::vectors::Precomputed::bfcl_minilm();
    let mut index = ToolIndex::new(specs.iter());
    let lexical = recall(&index, &specs, &queries, |_| None);
    for (i, spec) in specs.iter().enumerate() {
        index.set_vector(i, vectors.get(&embedding_text(spec))).unwrap();
    }
    let hybrid = recall(&index, &specs, &queries, |q| Some(vectors.get(q)));
    // An empty query has no words: the ranking by meaning alone, for comparison.
    let meaning = recall_by(&specs, &queries, |q| index.search_with("", Some(&vectors.get(q)), 5));
    eprintln!(
        "BFCL retrieval: {} tools, {} queries; recall@1, recall@5 by words (BM25): {:.3}, {:.3}; \
         by meaning alone (all-MiniLM-L6-v2): {:.3}, {:.3}; by both, fused by reciprocal rank: {:.3}, {:.3}",
        specs.len(),
        queries.len(),
        lexical.0,
        lexical.1,
        meaning.0,
        meaning.1,
        hybrid.0,
        hybrid.1
    );
    assert!(lexical.1 >= 0.875 && lexical.0 >= 0.61, "by words: recall@1 {:.3}, recall@5 {:.3}", lexical.0, lexical.1);
    assert!(hybrid.1 >= 0.90, "by words and meaning: recall@1 {:.3}, recall@5 {:.3}", hybrid.0, hybrid.1);
}

/// Recall@1 and recall@5 of `index` over `queries`, with each query's vector (if any).
fn recall(
    index: &ToolIndex,
    specs: &[ToolSpec],
    queries: &[(&str, &str, &str)],
    vector: impl Fn(&str) -> Option<Vec<f32>>,
) -> (f64, f64) {
    recall_by(specs, queries, |query| index.search_with(query, vector(query).as_deref(), 5))
}

/// Recall@1 and recall@5 over `queries` of the first five hits `search` gives.
fn recall_by(
    specs: &[ToolSpec],
    queries: &[(&str, &str, &str)],
    search: impl Fn(&str) -> Vec<toolkit::search::Hit>,
) -> (f64, f64) {
    let (mut at1, mut at5) = (0, 0);
    let mut by_category: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for &(query, answer, category) in queries {
        let hits = search(query);
        let names: Vec<&str> = hits.iter().map(|h| specs[h.index].name.as_str()).collect();
        at1 += usize::from(names.first() == Some(&answer));
        at5 += usize::from(names.contains(&answer));
        let entry = by_category.entry(category).or_default();
        entry.0 += 1;
        entry.1 += usize::from(names.contains(&answer));
        if std::env::var("SHOW_MISSES").is_ok() && !names.contains(&answer) {
            eprintln!("MISS {answer} <- {query:?} :: {names:?}");
        }
    }
    for (category, (n, found)) in &by_category {
        eprintln!("  {category}: recall@5 {:.3} of {n}", *found as f64 / *n as f64);
    }
    let n = queries.len() as f64;
    (at1 as f64 / n, at5 as f64 / n)
}

/// A per-turn filter on top of deferral: an allow-list here. The toolbox still answers
/// a call to a tool the model was not shown (its hooks govern every call).
#[tokio::test]
async fn a_tool_filter_chooses_what_each_turn_shows() {
    let model = ScriptedModel::new([
        Turn::call(SEARCH_TOOLS, r#"{"query": "weather"}"#),
        Turn::call("add", r#"{"a": 1, "b": 2}"#),
        Turn::text("done"),
    ]);
    let allowed = ["get_weather", SEARCH_TOOLS];
    let agent = Agent::builder(model.clone(), tools())
        .tool_filter(move |_, tool| allowed.contains(&tool.name.as_str()))
        .build()
        .unwrap();
    let run = agent.run("Weather?").await.unwrap();
    let requests = model.requests();
    let sent: Vec<Vec<&str>> = requests.iter().map(|r| r.tool_names()).collect();
    assert_eq!(sent[0], [SEARCH_TOOLS]);
    assert_eq!(sent[1], [SEARCH_TOOLS, "get_weather"]);
    assert_eq!(run.records[1].tool, "add");
    assert_eq!(run.records[1].content, "3", "the hidden tool still answers: the toolbox governs calls");
}

/// `ToolChoice::Allowed` in each provider's shape: OpenAI's `allowed_tools` with every
/// tool still sent; Gemini's `allowedFunctionNames` when a call is required, else only
/// the allowed tools; Anthropic only the allowed tools.
#[tokio::test]
async fn allowed_tools_take_each_providers_shape() {
    use support::provider::{Provider, ok};
    use toolkit::model::{
        Anthropic, Gemini, Message, Model, ModelRequest, OpenAiCompatible, OpenAiResponses, ToolChoice,
    };
    // Two tools sent in full (the deferral of `get_weather` is not what this is about).
    let owned: Vec<ToolSpec> = [add::spec(), get_weather::spec()].map(|s| s.clone().with_deferred(false)).to_vec();
    let specs: Vec<&ToolSpec> = owned.iter().collect();
    let messages = [Message::user("hi")];
    let auto = ToolChoice::Allowed { tools: vec!["get_weather".into()], required: false };
    let required = ToolChoice::Allowed { tools: vec!["get_weather".into()], required: true };
    let names = |body: &Value, key: &str| -> Vec<String> {
        body["tools"].as_array().unwrap().iter().map(|t| t[key].as_str().unwrap_or_default().to_string()).collect()
    };

    let chat_reply =
        json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}]});
    let server = Provider::start("/v1/chat/completions", [ok(chat_reply)]).await;
    let chat = OpenAiCompatible::builder().base_url(format!("{}/v1", server.base_url)).api_key("k").build().unwrap();
    chat.complete(ModelRequest::new(&messages, &specs).tool_choice(&auto)).await.unwrap();
    let body = &server.received()[0].body;
    assert_eq!(
        body["tool_choice"],
        json!({"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "get_weather"}}]}})
    );
    assert_eq!(body["tools"].as_array().unwrap().len(), 2, "every tool stays: the prompt cache holds");

    let responses_reply = json!({"status": "completed", "output": [{"type": "message", "content": [{"type": "output_text", "text": "ok"}]}]});
    let server = Provider::start("/v1/responses", [ok(responses_reply)]).await;
    let responses =
        OpenAiResponses::builder().base_url(format!("{}/v1", server.base_url)).api_key("k").build().unwrap();
    responses.complete(ModelRequest::new(&messages, &specs).tool_choice(&required)).await.unwrap();
    let body = &server.received()[0].body;
    assert_eq!(
        body["tool_choice"],
        json!({"type": "allowed_tools", "mode": "required", "tools": [{"type": "function", "name": "get_weather"}]})
    );
    assert_eq!(names(body, "name"), ["add", "get_weather"]);

    let claude_reply = json!({"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}});
    let server = Provider::start("/v1/messages", [ok(claude_reply.clone()), ok(claude_reply)]).await;
    let claude = Anthropic::builder().base_url(&server.base_url).api_key("k").build().unwrap();
    claude.complete(ModelRequest::new(&messages, &specs).tool_choice(&auto)).await.unwrap();
    claude.complete(ModelRequest::new(&messages, &specs).tool_choice(&required)).await.unwrap();
    let received = server.received();
    assert_eq!(names(&received[0].body, "name"), ["get_weather"]);
    assert_eq!(received[0].body["tool_choice"], json!({"type": "auto"}));
    assert_eq!(received[1].body["tool_choice"], json!({"type": "any"}));

    let gemini_reply =
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]});
    let server =
        Provider::start("/v1beta/models/gemini-3-test:generateContent", [ok(gemini_reply.clone()), ok(gemini_reply)])
            .await;
    let gemini = Gemini::builder()
        .base_url(format!("{}/v1beta", server.base_url))
        .api_key("k")
        .model("gemini-3-test")
        .build()
        .unwrap();
    gemini.complete(ModelRequest::new(&messages, &specs).tool_choice(&required)).await.unwrap();
    gemini.complete(ModelRequest::new(&messages, &specs).tool_choice(&auto)).await.unwrap();
    let received = server.received();
    let declared = |body: &Value| -> Vec<String> {
        body["tools"][0]["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        received[0].body["toolConfig"]["functionCallingConfig"],
        json!({"mode": "ANY", "allowedFunctionNames": ["get_weather"]})
    );
    assert_eq!(declared(&received[0].body), ["add", "get_weather"]);
    assert_eq!(received[1].body["toolConfig"]["functionCallingConfig"], json!({"mode": "AUTO"}));
    assert_eq!(declared(&received[1].body), ["get_weather"]);
}

/// `McpServer::with_tool_search`: the official Python client is listed the tools that
/// are not deferred; its `search_tools` call adds what it found to its own list, and the
/// server says the list changed (in a session); a found tool is called like any other.
/// Another client's list is its own.
#[test]
fn mcp_server_with_tool_search_lists_the_undeferred_tools_and_grows_each_clients_list() {
    use toolkit::mcp::McpServer;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = McpServer::new(tools()).with_tool_search(true);
    let http = runtime.block_on(server.bind_http("127.0.0.1:0")).unwrap();
    let target = ["--url".to_owned(), http.url()];
    runtime.spawn(http.run());
    let calls = json!([["search_tools", {"query": "weather in a city"}], ["get_weather", {"city": "Paris"}]]);
    for mode in ["legacy", "legacy", "modern"] {
        let Some(report) = support::python_client(mode, &calls, &target) else { return };
        let names = |list: &Value| -> Vec<String> {
            list.as_array().unwrap().iter().map(|t| t.as_str().or(t["name"].as_str()).unwrap().to_owned()).collect()
        };
        assert_eq!(names(&report["tools"]), ["add", SEARCH_TOOLS], "{mode}: only the tools not deferred");
        assert_eq!(report["calls"][1]["result"]["content"][0]["text"], "Paris: 21 °C, sunny", "{report}");
        if report["protocol_version"] == "2026-07-28" {
            // Stateless: no client to remember a search for; the list stays as it was.
            assert_eq!(names(&report["tools_after"]), ["add", SEARCH_TOOLS], "{report}");
        } else {
            assert_eq!(names(&report["tools_after"]), ["add", SEARCH_TOOLS, "get_weather"], "{report}");
            assert_eq!(report["list_changed"], 1, "{report}");
        }
    }
}

#[path = "../benches/support/catalog.rs"]
mod catalog;

/// Deferring every tool of a 1,000-tool toolbox leaves `search_tools` alone in the first
/// request: counted in tokens of `o200k_base` (OpenAI's GPT-4o and GPT-5 tokenizer),
/// at least 90% fewer as asked; 99.9% fewer as measured (126,812 tokens to 133; the
/// figures for each provider are in `benches/README.md`).
#[test]
fn deferring_a_thousand_tools_cuts_the_first_requests_tool_tokens_by_over_nine_tenths() {
    let o200k = tiktoken_rs::o200k_base().unwrap();
    let (all, first) = catalog::first_request_tools(1000, toolkit::Target::OpenAiResponses);
    let (all, first) = (o200k.encode_ordinary(&all).len(), o200k.encode_ordinary(&first).len());
    eprintln!("1,000 tools: {all} tokens in full, {first} deferred");
    assert!(all > 100_000, "{all}");
    assert!(first * 100 <= all, "{first} of {all}: at least 99% fewer");
}

/// Vectors by hand: three tools along three axes, a query between two of them.
#[test]
fn vectors_rank_by_meaning_beside_words_and_are_checked() {
    let specs = [
        ToolSpec::new("make_restaurant_reservation", "Reserve seats at a place to eat.", json!({"type": "object"})),
        ToolSpec::new("get_weather", "The weather for a city.", json!({"type": "object"})),
        ToolSpec::new("send_email", "Send an email.", json!({"type": "object"})),
    ];
    let mut index = ToolIndex::new(specs.iter());
    // "book a table" shares no word with the reservation tool: words alone find nothing.
    assert!(index.search("book a table", 3).is_empty());
    // Without vectors, a query's vector changes nothing.
    assert!(index.search_with("book a table", Some(&[1.0, 0.0, 0.0]), 3).is_empty());
    index.set_vector(0, vec![2.0, 0.0, 0.1]).unwrap();
    index.set_vector(1, vec![0.0, 1.0, 0.0]).unwrap();
    index.set_vector(2, vec![0.0, 0.0, 1.0]).unwrap();
    let hits = index.search_with("book a table", Some(&[0.9, 0.1, 0.0]), 1);
    assert_eq!(hits.len(), 1);
    assert_eq!(specs[hits[0].index].name, "make_restaurant_reservation");
    // A tool named in the query still comes first, whatever the vectors say.
    let hits = index.search_with("send_email", Some(&[0.9, 0.1, 0.0]), 3);
    assert_eq!(specs[hits[0].index].name, "send_email");
    // Found by words and by meaning beats found by one of them.
    let hits = index.search_with("weather", Some(&[0.1, 0.9, 0.0]), 3);
    assert_eq!(specs[hits[0].index].name, "get_weather");
    // A query vector of another length is ignored: words alone.
    assert_eq!(index.search_with("weather", Some(&[1.0, 0.0]), 3), index.search("weather", 3));
    // Vectors that do not fit are refused, and nothing changes.
    use toolkit::search::VectorError;
    assert_eq!(index.set_vector(3, vec![1.0, 0.0, 0.0]), Err(VectorError::NoSuchTool(3)));
    assert_eq!(index.set_vector(0, vec![1.0, 0.0]), Err(VectorError::Length { expected: 3, got: 2 }));
    assert_eq!(index.set_vector(0, vec![0.0, 0.0, 0.0]), Err(VectorError::NoDirection));
    assert_eq!(index.set_vector(0, vec![f32::NAN, 0.0, 0.0]), Err(VectorError::NoDirection));
    assert!(index.has_vector(0) && index.dimension() == Some(3));
    let hits = index.search_with("book a table", Some(&[0.9, 0.1, 0.0]), 1);
    assert_eq!(specs[hits[0].index].name, "make_restaurant_reservation");
}
