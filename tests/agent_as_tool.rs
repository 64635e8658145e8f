//! Agents as tools: an agent in another agent's toolbox, with its own hooks, records
//! and labels (its records carry the outer call's id), a depth limit, and its failures
//! reaching the outer model as the call's error.

use std::sync::{Arc, Mutex};

use toolkit::agent::{Agent, AgentTool};
use toolkit::model::{ScriptedModel, Turn};
use toolkit::prelude::*;
use toolkit::{DynTool, ErrorKind, Outcome};

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Delete everything.
#[tool]
fn wipe() -> String {
    "wiped".into()
}

type Seen = Arc<Mutex<Vec<CallRecord>>>;

fn collecting(tools: Toolbox) -> (Toolbox, Seen) {
    let seen: Seen = Arc::default();
    let sink = Arc::clone(&seen);
    (tools.with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone())), seen)
}

#[tokio::test]
async fn an_inner_agent_runs_under_its_own_hooks_and_its_records_carry_the_outer_call() {
    let (inner_tools, inner_seen) = collecting(toolbox![add, wipe]);
    let no_wipe = Hook::before("no_wipe", |call: &mut BeforeCall<'_>| {
        if call.tool() == "wipe" { Decision::Block("not allowed".into()) } else { Decision::Continue }
    });
    let math = Agent::builder(
        ScriptedModel::new([Turn::calls([("add", r#"{"a": 2, "b": 3}"#), ("wipe", "{}")]), Turn::text("5")]),
        inner_tools,
    )
    .name("math")
    .hook(no_wipe)
    .build()
    .unwrap();
    let mut outer_tools = Toolbox::new();
    outer_tools.add_dynamic(AgentTool::new(math, "ask_math", "Answers arithmetic questions.")).unwrap();
    let boss = Agent::builder(
        ScriptedModel::new([
            Turn::tool_calls([ToolCall::new("outer-1", "ask_math", r#"{"input": "2 + 3?"}"#)]),
            Turn::text("It is 5."),
        ]),
        outer_tools,
    )
    .name("boss")
    .build()
    .unwrap();
    let run = boss.run("What is 2 + 3?").await.unwrap();
    assert_eq!(run.text, "It is 5.");
    assert_eq!(run.records.len(), 1);
    assert_eq!(run.records[0].content, "5");
    assert_eq!(run.records[0].parent, None, "the outer call is made at the top");

    let inner = inner_seen.lock().unwrap().clone();
    let tools: Vec<&str> = inner.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(tools, ["add", "wipe"]);
    for record in &inner {
        assert_eq!(record.parent.as_deref(), Some("outer-1"), "{record:?}");
        assert_eq!(record.agent.as_deref(), Some("math"));
    }
    assert_eq!(inner[1].outcome, Outcome::Blocked, "the inner agent's own hook acted");
}

fn relay(name: &str, next: Option<AgentTool>, last: Turn) -> Agent {
    let mut tools = Toolbox::new();
    let model = match next {
        Some(next) => {
            let call = Turn::call(next.spec().name.clone(), r#"{"input": "go on"}"#);
            tools.add_dynamic(next).unwrap();
            ScriptedModel::new([call, last])
        }
        None => ScriptedModel::new([last]),
    };
    Agent::builder(model, tools).name(name.to_string()).build().unwrap()
}

#[tokio::test]
async fn agents_calling_agents_stop_at_the_depth_limit_with_a_message() {
    // top -> a -> b -> c: with a limit of 2, `c` is one too deep.
    let c = relay("c", None, Turn::text("from c"));
    let b = relay(
        "b",
        Some(AgentTool::new(c, "ask_c", "C.").max_depth(2)),
        Turn::with(|request| {
            let (_, content) = request.tool_results()[0];
            Turn::text(format!("b saw: {content}"))
        }),
    );
    let a = relay(
        "a",
        Some(AgentTool::new(b, "ask_b", "B.").max_depth(2)),
        Turn::with(|request| {
            let (_, content) = request.tool_results()[0];
            Turn::text(format!("a saw: {content}"))
        }),
    );
    let top = relay(
        "top",
        Some(AgentTool::new(a, "ask_a", "A.").max_depth(2)),
        Turn::with(|request| {
            let (_, content) = request.tool_results()[0];
            Turn::text(content.to_string())
        }),
    );
    let run = top.run("start").await.unwrap();
    assert!(
        run.text.starts_with("a saw: b saw: `ask_c` cannot be called here: agents are already 2 deep (the limit is 2)"),
        "{}",
        run.text
    );
}

#[tokio::test]
async fn an_inner_failure_is_the_outer_calls_error() {
    let broken = Agent::builder(ScriptedModel::new([]), Toolbox::new()).build().unwrap();
    let mut tools = Toolbox::new();
    tools.add_dynamic(AgentTool::new(broken, "ask", "Asks.")).unwrap();
    let outer = Agent::builder(
        ScriptedModel::new([
            Turn::call("ask", r#"{"input": "hi"}"#),
            Turn::with(|request| Turn::text(request.tool_results()[0].1.to_string())),
        ]),
        tools,
    )
    .build()
    .unwrap();
    let run = outer.run("go").await.unwrap();
    assert!(run.text.starts_with("the agent `ask` failed: "), "{}", run.text);
    assert_eq!(run.records[0].outcome, Outcome::Failed(ErrorKind::ToolFailed));
}
