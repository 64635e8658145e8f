//! The agent loop with a scripted model: the invariants of the transcript, tool choice,
//! limits, hooks, events, and errors that keep the run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolkit::agent::{Agent, AgentBuildError, AgentError, AgentEvent};
use toolkit::model::{Message, ModelError, ScriptedModel, ToolChoice, Turn};
use toolkit::prelude::*;
use toolkit::{Outcome, hook};

/// Add two integers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Read a file (fails for a missing one).
#[tool(read_only)]
fn read_file(path: String) -> Result<String, std::io::Error> {
    if path == "report.md" { Ok("revenue grew 12%".into()) } else { Err(std::io::ErrorKind::NotFound.into()) }
}

/// Wait far longer than allowed.
#[tool(timeout = "20ms")]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(30)).await;
    "never".into()
}

/// Panic.
#[tool]
fn explode() -> String {
    panic!("boom")
}

/// Delete everything (a hook blocks it).
#[tool(destructive)]
fn wipe() -> String {
    "wiped".into()
}

static SEARCH_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Search, with every parameter optional.
#[tool(read_only)]
fn search(
    /// Query.
    #[arg(default)]
    query: String,
    /// Results.
    #[arg(default = 5)]
    limit: u32,
) -> String {
    SEARCH_RUNS.fetch_add(1, Ordering::SeqCst);
    format!("{limit} results for {query:?}")
}

/// Destructive tools never run.
#[hook(before)]
fn no_destruction(call: &mut BeforeCall<'_>) -> Decision {
    if call.spec().is_some_and(|s| s.annotations.destructive) {
        return Decision::Block(format!("`{}` is destructive and disabled here", call.tool()));
    }
    Decision::Continue
}

/// A friendly message for a missing file.
#[hook(error, tools = [read_file])]
fn missing_file(_err: &mut ErrorCall<'_>) -> Recovery {
    Recovery::Message("no such file; call list_files to see what exists".into())
}

fn tools() -> Toolbox {
    toolbox![add, read_file, slow, explode, wipe, search].with_hooks(hooks![no_destruction, missing_file])
}

fn tool_messages(messages: &[Message]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { tool_call_id, content, .. } => Some((tool_call_id.clone(), content.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn every_call_gets_exactly_one_tool_message_in_order_whatever_happened() {
    let model = ScriptedModel::new([
        Turn::calls([
            ("add", r#"{"a": 1, "b": 2}"#),
            ("wipe", "{}"),
            ("read_file", r#"{"path": "missing.md"}"#),
            ("slow", "{}"),
            ("add", r#"{"a": 1, "#),
            ("get_forecast", r#"{"city": "Paris"}"#),
            ("explode", "{}"),
            ("add", r#"{"a": "one", "b": 2}"#),
        ]),
        Turn::text("done"),
    ]);
    let agent = Agent::builder(model.clone(), tools()).build().unwrap();
    let run = agent.run("do everything").await.unwrap();

    let ids: Vec<String> = (1..=8).map(|i| format!("call_{i}")).collect();
    let messages = tool_messages(&run.messages);
    assert_eq!(messages.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(), ids, "one per id, in call order");
    let content = |i: usize| messages[i].1.as_str();
    assert_eq!(content(0), "3");
    assert_eq!(content(1), "blocked: `wipe` is destructive and disabled here");
    assert_eq!(content(2), "no such file; call list_files to see what exists");
    assert!(content(3).starts_with("`slow` did not finish within 20ms"), "{}", content(3));
    assert!(content(4).starts_with("the arguments are not valid JSON"), "{}", content(4));
    assert!(content(5).starts_with("unknown tool `get_forecast`"), "{}", content(5));
    assert!(content(6).starts_with("`explode` failed with an internal error"), "{}", content(6));
    assert!(content(7).contains("invalid type"), "{}", content(7));

    // One record per call, in call order, each with its outcome.
    let outcomes: Vec<Outcome> = run.records.iter().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Ok,
            Outcome::Blocked,
            Outcome::Recovered(ErrorKind::ToolFailed),
            Outcome::Failed(ErrorKind::TimedOut),
            Outcome::Failed(ErrorKind::MalformedJson),
            Outcome::Failed(ErrorKind::UnknownTool),
            Outcome::Failed(ErrorKind::Panicked),
            Outcome::Failed(ErrorKind::InvalidType),
        ]
    );
    assert_eq!(run.records.iter().map(|r| r.call_id.clone()).collect::<Vec<_>>(), ids);

    // The model heard all of it: the second request ends with the eight tool messages.
    let requests = model.requests();
    let heard: Vec<(String, String)> =
        requests[1].tool_results().into_iter().map(|(id, c)| (id.to_string(), c.to_string())).collect();
    assert_eq!(heard, messages);
}

/// A reply asking for more calls than `max_calls_per_turn` runs that many; the rest are
/// blocked, each with a result saying why and a record (before, every call of a reply
/// ran: one reply of 100,000 calls of a destructive tool ran them all).
#[tokio::test]
async fn calls_past_the_turn_limit_are_blocked_each_with_its_result_and_record() {
    let asked: Vec<(String, String)> =
        (0..7).map(|i| ("add".to_string(), format!(r#"{{"a": {i}, "b": 1}}"#))).collect();
    let model = ScriptedModel::new([Turn::calls(asked), Turn::text("done")]);
    let agent = Agent::builder(model, tools()).max_calls_per_turn(5).build().unwrap();
    let run = agent.run("add them all").await.unwrap();
    let messages = tool_messages(&run.messages);
    assert_eq!(messages.len(), 7, "one result per call");
    let contents: Vec<&str> = messages.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(contents[..5], ["1", "2", "3", "4", "5"]);
    for blocked in &contents[5..] {
        assert_eq!(
            *blocked,
            "blocked: not run: this reply asked for 7 tool calls and at most 5 run per reply; ask for it again"
        );
    }
    let outcomes: Vec<Outcome> = run.records.iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, [[Outcome::Ok; 5].as_slice(), &[Outcome::Blocked; 2]].concat());
}

#[tokio::test]
async fn malformed_arguments_are_never_dispatched_as_an_empty_object() {
    let model = ScriptedModel::new([
        Turn::calls([("search", r#"{"query": "rust"#), ("search", "not json"), ("search", "[1, 2]")]),
        Turn::text("sorry"),
    ]);
    let run = Agent::builder(model, tools()).build().unwrap().run("search").await.unwrap();
    assert_eq!(SEARCH_RUNS.load(Ordering::SeqCst), 0, "the tool takes `{{}}` but must not run");
    for (_, content) in tool_messages(&run.messages) {
        assert!(content.contains("expected {query?: string, limit?: integer}"), "{content}");
    }
}

#[tokio::test]
async fn a_model_that_keeps_calling_tools_ends_at_max_iterations_with_the_transcript() {
    let model = ScriptedModel::new((0..5).map(|i| Turn::call("add", format!(r#"{{"a": {i}, "b": 1}}"#)).usage(10, 2)));
    let agent = Agent::builder(model, tools()).max_iterations(3).build().unwrap();
    let err = agent.run("count forever").await.unwrap_err();
    let AgentError::MaxIterations { limit: 3, run } = &err else { panic!("{err:?}") };
    assert_eq!(err.to_string(), "the model was still calling tools after 3 turns (max_iterations)");
    assert_eq!(run.iterations, 3);
    assert_eq!(run.records.len(), 3);
    assert_eq!(tool_messages(&run.messages).len(), 3);
    assert_eq!(run.messages.len(), 1 + 3 * 2, "user, then (assistant, tool) three times");
    assert_eq!(run.usage.total_tokens, 36);
    assert_eq!(run.text, "");
}

#[tokio::test]
async fn tool_choice_required_binds_the_first_turn_then_auto_lets_the_model_answer() {
    let model = ScriptedModel::new([Turn::call("add", r#"{"a":1,"b":1}"#), Turn::text("2")]);
    let agent = Agent::builder(model.clone(), tools()).tool_choice(ToolChoice::Required).build().unwrap();
    agent.run("1+1").await.unwrap();
    let choices: Vec<ToolChoice> = model.requests().into_iter().map(|r| r.tool_choice).collect();
    assert_eq!(choices, [ToolChoice::Required, ToolChoice::Auto]);

    let model = ScriptedModel::new([Turn::text("no tools needed")]);
    let agent = Agent::builder(model.clone(), tools()).tool_choice(ToolChoice::None).build().unwrap();
    assert_eq!(agent.run("hi").await.unwrap().text, "no tools needed");
    assert_eq!(model.requests()[0].tool_choice, ToolChoice::None);
    assert_eq!(model.requests()[0].tool_names(), ["add", "read_file", "slow", "explode", "wipe", "search"]);

    let err =
        Agent::builder(ScriptedModel::new([]), tools()).tool_choice(ToolChoice::Tool("get_weather".into())).build();
    let Err(AgentBuildError::UnknownToolChoice { name, available }) = err else { panic!("{err:?}") };
    assert_eq!(name, "get_weather");
    assert!(available.contains("`add`"), "{available}");
    assert_eq!(
        Agent::builder(ScriptedModel::new([]), tools()).max_iterations(0).build().unwrap_err(),
        AgentBuildError::NoIterations
    );
}

static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static MOST_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Wait a little, counting how many run at once.
#[tool]
async fn nap() -> String {
    let now = IN_FLIGHT.fetch_add(1, Ordering::SeqCst) + 1;
    MOST_IN_FLIGHT.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(30)).await;
    IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    "rested".into()
}

#[tokio::test]
async fn parallel_calls_overlap_and_sequential_calls_do_not() {
    let script = || ScriptedModel::new([Turn::calls([("nap", "{}"), ("nap", "{}"), ("nap", "{}")]), Turn::text("ok")]);
    let model = script();
    let agent = Agent::builder(model.clone(), toolbox![nap]).parallel_tool_calls(false).build().unwrap();
    agent.run("nap").await.unwrap();
    assert_eq!(MOST_IN_FLIGHT.swap(0, Ordering::SeqCst), 1, "one at a time");
    assert!(!model.requests()[0].parallel_tool_calls);

    let parallel = Agent::builder(script(), toolbox![nap]).build().unwrap();
    let run = parallel.run("nap").await.unwrap();
    assert_eq!(MOST_IN_FLIGHT.load(Ordering::SeqCst), 3, "all three at once");
    assert_eq!(tool_messages(&run.messages).len(), 3);
}

#[tokio::test]
async fn events_follow_the_run_and_a_panicking_callback_changes_nothing() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let model = ScriptedModel::new([
        Turn::calls([("add", r#"{"a":1,"b":2}"#), ("wipe", "{}")]).usage(100, 20),
        Turn::text("3").usage(150, 5),
    ]);
    let agent = Agent::builder(model, tools())
        .on_event(move |e| {
            let line = match e {
                AgentEvent::TurnStarted { iteration } => format!("turn {iteration}"),
                AgentEvent::ModelReplied { finish_reason, .. } => format!("replied {finish_reason}"),
                AgentEvent::ToolCallStarted { call } => format!("start {}", call.id),
                AgentEvent::ToolCallFinished { record } => format!("done {} {}", record.call_id, record.outcome),
                AgentEvent::FinalAnswer { text } => format!("answer {text}"),
                _ => "other".into(),
            };
            log.lock().unwrap().push(line);
            panic!("a UI bug");
        })
        .build()
        .unwrap();
    let run = agent.run("add").await.unwrap();
    assert_eq!(run.text, "3");
    assert_eq!(run.usage.prompt_tokens, 250);
    assert_eq!(run.usage.total_tokens, 275);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            "turn 1",
            "replied tool_calls",
            "start call_1",
            "start call_2",
            "done call_1 ok",
            "done call_2 blocked",
            "turn 2",
            "replied stop",
            "answer 3"
        ]
    );
}

/// Interns may only read.
#[hook(before)]
fn interns_read_only(call: &mut BeforeCall<'_>) -> Decision {
    match call.agent() {
        Some("intern") if !call.spec().is_some_and(|s| s.annotations.read_only) => {
            Decision::Block("interns may only use read-only tools".into())
        }
        _ => Decision::Continue,
    }
}

#[tokio::test]
async fn agent_hooks_and_labels_act_on_that_agents_calls_only() {
    let shared = Arc::new(toolbox![add, explode]);
    let intern =
        Agent::builder(ScriptedModel::new([Turn::call("explode", "{}"), Turn::text("ok")]), Arc::clone(&shared))
            .name("intern")
            .hooks(hooks![interns_read_only])
            .build()
            .unwrap();
    let senior =
        Agent::builder(ScriptedModel::new([Turn::call("explode", "{}"), Turn::text("ok")]), Arc::clone(&shared))
            .name("senior")
            .build()
            .unwrap();
    let run = intern.run("go").session("s-1").task("triage").await.unwrap();
    assert_eq!(run.records[0].outcome, Outcome::Blocked);
    assert_eq!(tool_messages(&run.messages)[0].1, "blocked: interns may only use read-only tools");
    assert_eq!(run.records[0].agent.as_deref(), Some("intern"));
    assert_eq!(run.records[0].session.as_deref(), Some("s-1"));
    assert_eq!(run.records[0].task.as_deref(), Some("triage"));
    assert_eq!(&*run.session, "s-1");

    let run = senior.run("go").await.unwrap();
    assert_eq!(run.records[0].outcome, Outcome::Failed(ErrorKind::Panicked), "the hook is the intern's only");
    let other = senior.run("go again").await.unwrap_err();
    assert_ne!(run.session, other.run().session, "each run has its own session id");

    let dup = Agent::builder(ScriptedModel::new([]), toolbox![add])
        .hook(interns_read_only::hook())
        .hook(interns_read_only::hook())
        .build();
    assert!(matches!(dup, Err(AgentBuildError::DuplicateHook(_))), "{dup:?}");
}

#[tokio::test]
async fn a_model_error_mid_run_keeps_the_transcript_and_records() {
    let model = ScriptedModel::new([
        Turn::call("add", r#"{"a":1,"b":2}"#),
        Turn::fail(ModelError::Script("the provider went away".into())),
    ]);
    let agent = Agent::builder(model, tools()).system_prompt("Be brief.").build().unwrap();
    let err = agent.run("1+2").await.unwrap_err();
    let AgentError::Model { iteration: 2, run, .. } = &err else { panic!("{err:?}") };
    assert_eq!(run.records.len(), 1);
    assert_eq!(run.messages.len(), 4, "system, user, assistant, tool");
    assert!(err.to_string().starts_with("turn 2: scripted model: the provider went away"), "{err}");
}

#[tokio::test]
async fn a_conversation_continues_from_history_and_the_system_prompt_is_not_repeated() {
    let model = ScriptedModel::new([Turn::text("Hello!"), Turn::text("You said hi.")]);
    let agent = Agent::builder(model.clone(), tools()).system_prompt("Be brief.").build().unwrap();
    let first = agent.run("hi").await.unwrap();
    // A transcript stored as JSON reads back as it was.
    let stored = serde_json::to_string(&first.messages).unwrap();
    let history: Vec<Message> = serde_json::from_str(&stored).unwrap();
    assert_eq!(history, first.messages);
    let second = agent.run("what did I say?").history(history).await.unwrap();
    let roles: Vec<&str> = second.messages.iter().map(Message::role).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user", "assistant"]);
    assert_eq!(model.requests()[1].messages.len(), 4);
}

#[tokio::test]
async fn the_scripted_model_reports_where_the_conversation_left_the_script() {
    let model = ScriptedModel::new([Turn::call("add", r#"{"a":1,"b":2}"#)
        .expect(|req| if req.tools.len() == 6 { Ok(()) } else { Err(format!("{} tools", req.tools.len())) })]);
    let agent = Agent::builder(model.clone(), tools()).build().unwrap();
    let err = agent.run("1+2").await.unwrap_err();
    assert!(err.to_string().contains("request 2 has no turn: the script has 1"), "{err}");

    let checked =
        ScriptedModel::new([Turn::text("hi").expect(|req| match req.messages.last().and_then(Message::text) {
            Some("hello") => Ok(()),
            other => Err(format!("expected `hello`, got {other:?}")),
        })]);
    let err = Agent::builder(checked, tools()).build().unwrap().run("bye").await.unwrap_err();
    assert!(err.to_string().contains(r#"turn 1: expected `hello`, got Some("bye")"#), "{err}");
}

#[tokio::test]
async fn a_computed_turn_quotes_the_tool_result_and_tool_calls_read_back_from_json() {
    let model = ScriptedModel::new([
        Turn::call("read_file", r#"{"path":"report.md"}"#),
        Turn::with(|req| {
            Turn::text(format!("The report says: {}", req.messages.last().and_then(Message::text).unwrap()))
        }),
    ]);
    let run = Agent::builder(model, tools()).build().unwrap().run("summarize").await.unwrap();
    assert_eq!(run.text, "The report says: revenue grew 12%");
    let wire = serde_json::to_string(&run.messages).unwrap();
    assert_eq!(serde_json::from_str::<Vec<Message>>(&wire).unwrap(), run.messages);
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Total {
    total: i64,
}

/// A typed answer that never fits ends with `BadAnswer` after the retries, each retry
/// telling the model what was wrong.
#[tokio::test]
async fn a_typed_answer_that_never_fits_is_an_error_after_the_retries() {
    let model = toolkit::model::ScriptedModel::new([
        toolkit::model::Turn::text("five"),
        toolkit::model::Turn::text("{\"total\": \"five\"}"),
        toolkit::model::Turn::text("{}"),
    ]);
    let agent = toolkit::agent::Agent::builder(model, Toolbox::new()).answer_retries(2).build().unwrap();
    let err = agent.run_typed::<Total>("2 + 3?").await.unwrap_err();
    let toolkit::agent::AgentError::BadAnswer { attempts, problem, run } = &err else { panic!("{err:?}") };
    assert_eq!(*attempts, 3);
    assert!(problem.starts_with("missing required field `total`"), "{problem}");
    let corrections: Vec<&str> = run
        .messages
        .iter()
        .filter(|m| m.role() == "user")
        .filter_map(|m| m.text())
        .filter(|t| t.starts_with("Your answer does not fit"))
        .collect();
    assert_eq!(corrections.len(), 2);
    assert!(corrections[1].contains("invalid type for `total`: got \"five\", expected an integer"), "{corrections:?}");
    assert!(corrections[0].contains("not valid JSON"), "{corrections:?}");
}
