//! `search_tools` ranking by meaning as well as words, through `OpenAiEmbeddings`
//! against a local embeddings server that answers with real all-MiniLM-L6-v2 vectors
//! (precomputed for every text of the BFCL retrieval set: `benches/data/embed.py`), in a
//! toolbox of BFCL's 1,090 tools, all deferred.

mod support;

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use support::vectors::Precomputed;
use toolkit::model::OpenAiEmbeddings;
use toolkit::prelude::*;
use toolkit::search::{SEARCH_TOOLS, ToolIndex, embedding_text};
use toolkit::{FnTool, ToolSpec};

/// How the local server answers.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// The vectors of the texts.
    Vectors,
    /// A 500.
    Fails,
    /// One vector fewer than texts.
    Short,
}

struct Server {
    vectors: Precomputed,
    mode: Mutex<Mode>,
    /// Each request's body.
    received: Mutex<Vec<Value>>,
}

async fn embeddings(State(server): State<Arc<Server>>, Json(body): Json<Value>) -> Response {
    server.received.lock().unwrap().push(body.clone());
    let mode = *server.mode.lock().unwrap();
    if mode == Mode::Fails {
        return (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({"error": {"message": "the model is loading"}})))
            .into_response();
    }
    let texts: Vec<String> = serde_json::from_value(body["input"].clone()).unwrap();
    let mut data = Vec::new();
    for (index, text) in texts.iter().enumerate() {
        let Some(vector) = server.vectors.try_get(text) else {
            return (StatusCode::BAD_REQUEST, Json(json!({"error": {"message": format!("no vector for {text:?}")}})))
                .into_response();
        };
        data.push(json!({"object": "embedding", "index": index, "embedding": vector}));
    }
    if mode == Mode::Short {
        data.pop();
    }
    Json(json!({"object": "list", "data": data, "model": body["model"]})).into_response()
}

async fn start() -> (String, Arc<Server>) {
    let server = Arc::new(Server {
        vectors: Precomputed::bfcl_minilm(),
        mode: Mutex::new(Mode::Vectors),
        received: Mutex::default(),
    });
    let app = axum::Router::new().route("/v1/embeddings", post(embeddings)).with_state(Arc::clone(&server));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, server)
}

fn client(url: &str) -> OpenAiEmbeddings {
    OpenAiEmbeddings::builder()
        .base_url(url)
        .api_key("test-key")
        .model("all-MiniLM-L6-v2")
        .max_retries(0)
        .build()
        .unwrap()
}

struct Bfcl {
    specs: Vec<ToolSpec>,
    /// Each request and its right tool.
    queries: Vec<(String, String)>,
}

fn bfcl() -> Bfcl {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/data/bfcl_tool_retrieval.json");
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let specs = data["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            ToolSpec::new(t["name"].as_str().unwrap(), t["description"].as_str().unwrap_or(""), t["parameters"].clone())
        })
        .collect();
    let queries = data["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| (q["query"].as_str().unwrap().to_owned(), q["answer"].as_str().unwrap().to_owned()))
        .collect();
    Bfcl { specs, queries }
}

/// Every BFCL tool, deferred (each answers "ok").
fn toolbox(specs: &[ToolSpec]) -> Toolbox {
    let mut tools = Toolbox::new();
    for spec in specs {
        let tool = FnTool::new(spec.clone().with_deferred(true), |_| async { Ok(Output::text("ok")) });
        tools.add_dynamic(tool).unwrap();
    }
    tools
}

/// The names `search_tools` answers `query` with.
async fn search(tools: &Toolbox, query: &str) -> Vec<String> {
    let result = tools.call(ToolCall::new("s", SEARCH_TOOLS, json!({"query": query}).to_string())).await;
    assert!(!result.is_error(), "{}", result.content);
    let value: Value = serde_json::from_str(&result.content).unwrap();
    value["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

/// A request whose right tool words alone rank below the fifth and words with meaning
/// rank in the first five (found by ranking, so the test says which it picked).
fn missed_by_words(bfcl: &Bfcl, vectors: &Precomputed) -> (String, String) {
    let mut index = ToolIndex::new(bfcl.specs.iter());
    for (i, spec) in bfcl.specs.iter().enumerate() {
        index.set_vector(i, vectors.get(&embedding_text(spec))).unwrap();
    }
    let names = |hits: Vec<toolkit::search::Hit>| -> Vec<&str> {
        hits.iter().map(|h| bfcl.specs[h.index].name.as_str()).collect()
    };
    bfcl.queries
        .iter()
        .find(|(query, answer)| {
            !names(index.search(query, 5)).contains(&answer.as_str())
                && names(index.search_with(query, Some(&vectors.get(query)), 5)).contains(&answer.as_str())
        })
        .cloned()
        .expect("some request is found by meaning and not by words")
}

#[tokio::test]
async fn an_embedder_finds_the_tool_words_alone_miss() {
    let bfcl = bfcl();
    let (url, server) = start().await;
    let (query, answer) = missed_by_words(&bfcl, &server.vectors);
    eprintln!("request: {query:?}; right tool: {answer}");

    let words_only = toolbox(&bfcl.specs);
    assert!(!search(&words_only, &query).await.contains(&answer));

    let tools = toolbox(&bfcl.specs).with_embedder(client(&url));
    let found = search(&tools, &query).await;
    assert!(found.contains(&answer), "{answer} not in {found:?}");

    // The first search embedded every tool, 64 texts at a time, then the query.
    let received = server.received.lock().unwrap().clone();
    let sizes: Vec<usize> = received.iter().map(|b| b["input"].as_array().unwrap().len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), bfcl.specs.len() + 1);
    assert!(sizes.iter().all(|&n| n <= 64), "{sizes:?}");
    assert_eq!(*sizes.last().unwrap(), 1);
    let first = &received[0];
    assert_eq!(first["model"], "all-MiniLM-L6-v2");
    assert_eq!(first["encoding_format"], "float");
    assert_eq!(first["input"][0], embedding_text(&bfcl.specs[0]));
    assert!(first.get("dimensions").is_none());

    // The next search embeds only its query.
    let again = search(&tools, &bfcl.queries[0].0).await;
    assert!(again.contains(&bfcl.queries[0].1));
    let received = server.received.lock().unwrap();
    assert_eq!(received.len(), sizes.len() + 1);
    assert_eq!(received.last().unwrap()["input"], json!([bfcl.queries[0].0]));
}

#[tokio::test]
async fn a_failing_embedder_leaves_the_search_to_words_and_is_not_asked_again_at_once() {
    let bfcl = bfcl();
    let (url, server) = start().await;
    *server.mode.lock().unwrap() = Mode::Fails;
    let tools = toolbox(&bfcl.specs).with_embedder(client(&url));
    let words_only = toolbox(&bfcl.specs);
    let (query, _) = &bfcl.queries[3];
    // The same answer as words alone: the search does not fail.
    assert_eq!(search(&tools, query).await, search(&words_only, query).await);
    assert_eq!(server.received.lock().unwrap().len(), 1);
    // Within 30 seconds of the failure the embedder is not asked.
    *server.mode.lock().unwrap() = Mode::Vectors;
    assert_eq!(search(&tools, query).await, search(&words_only, query).await);
    assert_eq!(server.received.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_embedder_answering_the_wrong_count_is_not_believed() {
    let bfcl = bfcl();
    let (url, server) = start().await;
    *server.mode.lock().unwrap() = Mode::Short;
    let tools = toolbox(&bfcl.specs[..10]).with_embedder(client(&url));
    let words_only = toolbox(&bfcl.specs[..10]);
    let (query, _) = &bfcl.queries[0];
    assert_eq!(search(&tools, query).await, search(&words_only, query).await);
    // The client itself says what was wrong.
    let texts = vec![bfcl.queries[0].0.clone(), bfcl.queries[1].0.clone()];
    *server.mode.lock().unwrap() = Mode::Short;
    let err = client(&url).vectors(&texts).await.unwrap_err().to_string();
    assert!(err.contains("1 embeddings") && err.contains("for 2 texts"), "{err}");
}

#[tokio::test]
async fn the_client_needs_a_key_and_names_the_variable() {
    let err = OpenAiEmbeddings::builder().key_variable("TOOLKIT_TEST_NO_SUCH_KEY").build().unwrap_err();
    assert!(err.to_string().contains("TOOLKIT_TEST_NO_SUCH_KEY"), "{err}");
}

/// A restart: the second toolbox, on the same store, embeds none of its tools again.
#[tokio::test]
async fn vectors_kept_in_a_store_are_not_asked_for_after_a_restart() {
    use toolkit::hooks::MemoryStore;
    use toolkit::search::CachedEmbedder;
    let bfcl = bfcl();
    let (url, server) = start().await;
    let store = Arc::new(MemoryStore::new());
    let (query, answer) = &bfcl.queries[7];

    let first = toolbox(&bfcl.specs).with_embedder(CachedEmbedder::new(client(&url), Arc::clone(&store)));
    assert!(search(&first, query).await.contains(answer));
    let texts = |from: usize| -> usize {
        server.received.lock().unwrap()[from..].iter().map(|b| b["input"].as_array().unwrap().len()).sum()
    };
    assert_eq!(texts(0), bfcl.specs.len() + 1);
    drop(first);

    let before = server.received.lock().unwrap().len();
    let restarted = toolbox(&bfcl.specs).with_embedder(CachedEmbedder::new(client(&url), Arc::clone(&store)));
    assert!(search(&restarted, query).await.contains(answer));
    // The query was kept too: nothing at all is asked.
    assert_eq!(texts(before), 0);
    let (other, _) = &bfcl.queries[8];
    search(&restarted, other).await;
    assert_eq!(texts(before), 1);
}

/// A namespace makes the index's words stale until the next search; a tool added in
/// between still gets its vector at that search, and is found by meaning at once.
#[tokio::test]
async fn a_tool_added_after_a_namespace_is_found_by_meaning_at_the_first_search() {
    use toolkit::search::Namespace;
    let bfcl = bfcl();
    let (url, server) = start().await;
    let (query, answer) = missed_by_words(&bfcl, &server.vectors);
    let (last, others): (Vec<ToolSpec>, Vec<ToolSpec>) = bfcl.specs.iter().cloned().partition(|s| s.name == answer);
    let mut tools = toolbox(&others).with_embedder(client(&url));
    tools.add_namespace(Namespace::new("maths", "Arithmetic.").with_tools([others[0].name.clone()])).unwrap();
    let tool = FnTool::new(last[0].clone().with_deferred(true), |_| async { Ok(Output::text("ok")) });
    tools.add_dynamic(tool).unwrap();
    let found = search(&tools, &query).await;
    assert!(found.contains(&answer), "{answer} not in {found:?}");
}
