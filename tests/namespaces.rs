//! Namespaces: named groups of tools. `search_tools` names them and finds a tool by its
//! namespace's words; the OpenAI Responses client with tool search sends each as one
//! `namespace` tool beside the hosted `tool_search`, and reads the API's search back.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use toolkit::agent::Agent;
use toolkit::model::OpenAiResponses;
use toolkit::prelude::*;
use toolkit::search::{Namespace, SEARCH_TOOLS};

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// List the open orders of an account.
#[tool(defer, read_only)]
fn list_open_orders(
    /// The account's id.
    account: String,
) -> String {
    format!("{account}: order 7 is open")
}

/// Give the money of an order back.
#[tool(defer, destructive)]
fn refund_order(
    /// The order number.
    order_id: u64,
) -> String {
    format!("refunded {order_id}")
}

/// The current weather for a city.
#[tool(defer, read_only)]
fn get_weather(
    /// The city, such as `Paris`.
    city: String,
) -> String {
    format!("{city}: 21 °C, sunny")
}

fn crm() -> Namespace {
    Namespace::new("crm", "Customer records: look customers up and manage their orders.")
        .with_tools(["list_open_orders", "refund_order"])
}

fn tools() -> Toolbox {
    toolbox![add, list_open_orders, refund_order, get_weather].with_namespace(crm())
}

async fn search(tools: &Toolbox, query: &str) -> Value {
    let args = json!({ "query": query }).to_string();
    let result = tools.call(ToolCall::new("s", SEARCH_TOOLS, args)).await;
    assert!(!result.is_error(), "{}", result.content);
    serde_json::from_str(&result.content).unwrap()
}

/// The model reads the namespaces in `search_tools`' description, and a search finds a
/// tool by its namespace's words (neither tool of `crm` says "customer" itself) and says
/// which namespace it is in.
#[tokio::test]
async fn search_tools_names_the_namespaces_and_finds_tools_by_them() {
    let tools = tools();
    let description = &tools.spec(SEARCH_TOOLS).unwrap().description;
    assert!(
        description
            .ends_with("grouped in namespaces:\n- crm: Customer records: look customers up and manage their orders."),
        "{description}"
    );
    let found = search(&tools, "customer").await;
    let names: Vec<&str> = found["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"refund_order") && names.contains(&"list_open_orders"), "{found}");
    assert!(found["tools"].as_array().unwrap().iter().all(|t| t["namespace"] == "crm"), "{found}");
    let weather = search(&tools, "weather in Paris").await;
    assert_eq!(weather["tools"][0], json!({"name": "get_weather", "description": "The current weather for a city."}));
    assert_eq!(tools.namespace_of("refund_order").map(Namespace::name), Some("crm"));
    assert_eq!(tools.namespace_of("get_weather"), None);
}

/// A namespace that names a tool the toolbox lacks, reuses a name, takes a tool from
/// another namespace or has a bad name is refused, and the toolbox is as it was.
#[test]
fn a_wrong_namespace_is_refused_and_changes_nothing() {
    let mut tools = tools();
    let before = tools.spec(SEARCH_TOOLS).unwrap().description.clone();
    let cases = [
        (
            Namespace::new("billing", "Invoices").with_tools(["add", "invoice"]),
            "namespace `billing` names `invoice`, which is not in this toolbox: add the tool first",
        ),
        (Namespace::new("crm", "again"), "a namespace named `crm` is already in this toolbox"),
        (
            Namespace::new("money", "Refunds").with_tools(["refund_order"]),
            "`refund_order` is in namespace `crm` already: a tool is in one namespace at most",
        ),
        (
            Namespace::new("a b", "spaces"),
            "`a b` is not a valid tool name: use 1 to 64 ASCII letters, digits, `_` or `-`",
        ),
    ];
    for (namespace, message) in cases {
        let error = tools.add_namespace(namespace).unwrap_err();
        assert_eq!(error.to_string(), message);
    }
    assert_eq!(tools.namespaces(), [crm()]);
    assert_eq!(tools.spec(SEARCH_TOOLS).unwrap().description, before);
    assert_eq!(tools.namespace_of("add"), None);
}

/// A namespace of tools that are all sent in full is not named to `search_tools` (it
/// finds deferred tools only); the tools are still grouped for the Responses API.
#[test]
fn search_tools_names_only_namespaces_with_deferred_tools() {
    let tools = toolbox![add, get_weather].with_namespace(Namespace::new("math", "Arithmetic.").with_tools(["add"]));
    assert!(!tools.spec(SEARCH_TOOLS).unwrap().description.contains("math"));
    assert_eq!(tools.namespaces().len(), 1);
}

fn responses(output: Value) -> support::provider::Canned {
    support::provider::ok(
        json!({"status": "completed", "output": output, "usage": {"input_tokens": 40, "output_tokens": 9}}),
    )
}

/// Shapes the Responses API checks: a deferred tool needs `tool_search` in the request,
/// a namespace has a name, a description and tools, and every namespaced call sent
/// back names its namespace.
fn check_request(body: &Value) -> Result<(), String> {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let searching = tools.iter().any(|t| t["type"] == "tool_search");
    for tool in &tools {
        let members = if tool["type"] == "namespace" {
            if tool["name"].as_str().is_none() || tool["description"].as_str().is_none() {
                return Err(format!("a namespace needs a name and a description: {tool}"));
            }
            tool["tools"].as_array().cloned().ok_or("a namespace needs tools")?
        } else {
            vec![tool.clone()]
        };
        if members.iter().any(|m| m["defer_loading"] == true) && !searching {
            return Err("defer_loading needs the tool_search tool".into());
        }
    }
    for item in body["input"].as_array().into_iter().flatten() {
        if item["type"] == "function_call" && item["name"] == "refund_order" && item["namespace"] != "crm" {
            return Err(format!("a call to a namespaced function names its namespace: {item}"));
        }
    }
    Ok(())
}

/// With tool search on, the Responses client sends every tool: `add` in full, the
/// `crm` namespace holding its deferred tools, `get_weather` deferred on its own, and the
/// hosted `tool_search` instead of toolkit's `search_tools`. The API's search items and
/// the namespaced call go back exactly as they came, the output names the namespace,
/// and the tools sent do not change between turns.
#[tokio::test]
async fn responses_with_tool_search_sends_namespaces_and_reads_the_search_back() {
    use support::provider::Provider;
    let searched = json!([
        {"type": "tool_search_call", "id": "ts_1", "call_id": null, "execution": "server", "status": "completed",
         "arguments": {"paths": ["crm"]}},
        {"type": "tool_search_output", "id": "tso_1", "call_id": null, "execution": "server", "status": "completed",
         "tools": [{"type": "namespace", "name": "crm", "description": "Customer records.", "tools": [
             {"type": "function", "name": "refund_order", "description": "Give the money of an order back.",
              "parameters": {"type": "object", "properties": {"order_id": {"type": "integer"}}, "required": ["order_id"]}}]}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "namespace": "crm", "name": "refund_order",
         "arguments": "{\"order_id\": 7}", "status": "completed"}
    ]);
    let done =
        json!([{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Refunded."}]}]);
    let server =
        Provider::start_checked("/v1/responses", [responses(searched.clone()), responses(done)], check_request).await;
    let model = OpenAiResponses::builder()
        .base_url(format!("{}/v1", server.base_url))
        .api_key("sk-test")
        .model("gpt-5.4")
        .tool_search(true)
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap();
    let run = Agent::builder(model, tools()).build().unwrap().run("Refund order 7").await.unwrap();
    assert_eq!(run.text, "Refunded.");
    assert_eq!(run.records[0].tool, "refund_order");
    let received = server.received();
    let sent = &received[0].body["tools"];
    let shape: Vec<(String, String)> = sent
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["type"].as_str().unwrap().to_owned(), t["name"].as_str().unwrap_or("").to_owned()))
        .collect();
    let shape: Vec<(&str, &str)> = shape.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(shape, [("function", "add"), ("namespace", "crm"), ("function", "get_weather"), ("tool_search", "")]);
    assert!(sent[0].get("defer_loading").is_none());
    assert_eq!(sent[1]["description"], "Customer records: look customers up and manage their orders.");
    let members: Vec<&str> = sent[1]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(members, ["list_open_orders", "refund_order"]);
    assert!(sent[1]["tools"].as_array().unwrap().iter().all(|t| t["defer_loading"] == true));
    assert_eq!(sent[2]["defer_loading"], true);
    let second = &received[1].body;
    assert_eq!(second["tools"], received[0].body["tools"], "the same tools every turn");
    let input = second["input"].as_array().unwrap();
    assert_eq!(input[1..4], searched.as_array().unwrap()[..], "the API's items go back as they came");
    assert_eq!(input[4]["type"], "function_call_output");
    assert_eq!(input[4]["call_id"], "call_1");
    assert_eq!(input[4]["namespace"], "crm");
    assert_eq!(input[4]["output"], "refunded 7");
}

/// Without tool search (the default: older models have none), the same toolbox goes as
/// flat functions with toolkit's `search_tools`: no namespace, no `defer_loading`.
#[tokio::test]
async fn responses_without_tool_search_sends_flat_tools_and_search_tools() {
    use support::provider::Provider;
    let done = json!([{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi."}]}]);
    let server = Provider::start_checked("/v1/responses", [responses(done)], check_request).await;
    let model =
        OpenAiResponses::builder().base_url(format!("{}/v1", server.base_url)).api_key("sk-test").build().unwrap();
    Agent::builder(model, tools()).build().unwrap().run("Hi").await.unwrap();
    let body = &server.received()[0].body;
    let names: Vec<&str> = body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", SEARCH_TOOLS]);
    assert!(
        body["tools"].as_array().unwrap().iter().all(|t| t["type"] == "function" && t.get("defer_loading").is_none())
    );
}
