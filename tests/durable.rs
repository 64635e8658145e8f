//! Durable runs in one process: pausing on a deferred call, the state as data, resuming
//! with decisions bound to the arguments shown, and the effect ledger that keeps a call
//! from taking effect twice however the state is resumed or replayed. The same across
//! processes, killed at every point, is `tests/durable_crash.rs`.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolkit::agent::{Agent, AgentError, ResumeError};
use toolkit::durable::{CallDecision, RunState, RunStore, StateError};
use toolkit::hooks::store::Store;
use toolkit::hooks::{ApprovalGate, EffectLedger, FileStore, MemoryStore, Reconciled};
use toolkit::model::{Message, ScriptedModel, Turn};
use toolkit::prelude::*;

use toolkit::{CallRecord, Effect, ErrorKind, FnTool, Outcome, Output, ToolResult, ToolSpec, Toolbox};

mod support;

/// The effects of one test's `pay` tool: every call's arguments, in order.
#[derive(Clone, Default)]
struct Effects(Arc<Mutex<Vec<Value>>>);

impl Effects {
    fn count(&self) -> usize {
        self.0.lock().unwrap().len()
    }

    fn all(&self) -> Vec<Value> {
        self.0.lock().unwrap().clone()
    }
}

/// A destructive `pay` tool that records each effect, and a read-only `balance`.
fn tools(effects: &Effects, lookups: &Arc<AtomicUsize>) -> Toolbox {
    let pay_spec = ToolSpec::new(
        "pay",
        "Pay an amount.",
        json!({"type": "object", "properties": {"cents": {"type": "integer"}, "to": {"type": "string"}}, "required": ["cents"]}),
    )
    .with_annotations(toolkit::Annotations { destructive: true, ..Default::default() });
    let effects = effects.clone();
    let pay = FnTool::new(pay_spec, move |args| {
        let effects = effects.clone();
        async move {
            let cents = args["cents"].as_i64().unwrap_or(0);
            if cents < 0 {
                return Err(ToolError::new(ErrorKind::ToolFailed, "a payment cannot be negative"));
            }
            effects.0.lock().unwrap().push(Value::Object(args));
            Ok(Output::text(format!("paid {cents}")))
        }
    });
    let balance_spec = ToolSpec::new("balance", "The balance.", json!({"type": "object", "properties": {}}))
        .with_annotations(toolkit::Annotations { read_only: true, ..Default::default() });
    let lookups = Arc::clone(lookups);
    let balance = FnTool::new(balance_spec, move |_| {
        lookups.fetch_add(1, Ordering::SeqCst);
        async { Ok(Output::text("1000")) }
    });
    let mut tools = Toolbox::new().with_hook(ApprovalGate::deferring().destructive());
    tools.add_dynamic(pay).unwrap();
    tools.add_dynamic(balance).unwrap();
    tools
}

/// The first turn: a balance lookup and a payment, in one reply.
fn first_turn() -> Turn {
    Turn::calls([("balance", "{}"), ("pay", r#"{"cents": 500, "to": "ACME"}"#)])
}

fn agent(tools: &Arc<Toolbox>, turns: Vec<Turn>, store: Option<Arc<dyn Store>>) -> Agent {
    let builder = Agent::builder(ScriptedModel::new(turns), Arc::clone(tools)).name("payer");
    match store {
        Some(store) => builder.durable(store),
        None => builder,
    }
    .build()
    .unwrap()
}

struct Setup {
    tools: Arc<Toolbox>,
    effects: Effects,
    lookups: Arc<AtomicUsize>,
}

fn setup() -> Setup {
    let (effects, lookups) = (Effects::default(), Arc::new(AtomicUsize::new(0)));
    Setup { tools: Arc::new(tools(&effects, &lookups)), effects, lookups }
}

async fn paused(agent: &Agent) -> RunState {
    match agent.run("Pay ACME 5 dollars").await {
        Err(AgentError::Paused { state, .. }) => *state,
        other => panic!("expected a pause, got {other:?}"),
    }
}

fn done() -> Vec<Turn> {
    vec![Turn::text("Paid.")]
}

#[tokio::test]
async fn a_run_pauses_after_the_calls_that_can_finish_and_lists_what_waits() {
    let s = setup();
    let state = paused(&agent(&s.tools, vec![first_turn()], None)).await;

    assert_eq!(s.lookups.load(Ordering::SeqCst), 1, "the read-only call of the turn finished");
    assert_eq!(s.effects.count(), 0, "the payment waits");
    let [pending] = state.pending() else { panic!("one pending call: {:?}", state.pending()) };
    assert_eq!(pending.tool(), "pay");
    assert_eq!(pending.reason(), "it needs a person's approval");
    assert_eq!(serde_json::from_str::<Value>(pending.arguments()).unwrap(), json!({"cents": 500, "to": "ACME"}));
    assert_eq!(pending.digest().len(), 64);
    assert_eq!(state.agent(), Some("payer"));
    assert_eq!(state.iterations(), 1);
    // Every call has its record; the deferred one says so.
    let outcomes: Vec<Outcome> = state.records().iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, [Outcome::Ok, Outcome::Deferred]);
    // The conversation ends with the assistant's calls: no tool message yet.
    assert!(matches!(state.messages().last(), Some(Message::Assistant(_))));
}

#[tokio::test]
async fn approve_runs_the_call_once_and_the_turn_keeps_call_order() {
    let s = setup();
    let state = paused(&agent(&s.tools, vec![first_turn()], None)).await;
    let approve = state.pending()[0].approve();
    let run = agent(&s.tools, done(), None).resume(state, [approve]).await.unwrap();

    assert_eq!(run.text, "Paid.");
    assert_eq!(s.effects.all(), [json!({"cents": 500, "to": "ACME"})]);
    assert_eq!(s.lookups.load(Ordering::SeqCst), 1, "the finished call is not run again");
    let tool_messages: Vec<(&str, &str)> = run
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { tool_call_id, content, .. } => Some((tool_call_id.as_str(), content.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(tool_messages.len(), 2);
    assert_eq!(tool_messages[0].1, "1000", "the balance first, as the model asked");
    assert_eq!(tool_messages[1].1, "paid 500");
    // Three records: the lookup, the deferral, the approved payment.
    let last = run.records.last().unwrap();
    assert_eq!(last.outcome, Outcome::Ok);
    assert!(last.hooks.iter().any(|h| h.effect == Effect::Decided && h.detail.as_deref() == Some("approved")));
    assert_eq!(run.records.len(), 3);
}

#[tokio::test]
async fn approve_with_edited_arguments_runs_the_edit() {
    let s = setup();
    let state = paused(&agent(&s.tools, vec![first_turn()], None)).await;
    let edit = state.pending()[0].approve_with(json!({"cents": 300, "to": "ACME"}).as_object().unwrap().clone());
    let run = agent(&s.tools, done(), None).resume(state, [edit]).await.unwrap();
    assert_eq!(s.effects.all(), [json!({"cents": 300, "to": "ACME"})]);
    assert_eq!(run.records.last().unwrap().rewritten_arguments.as_deref(), Some(r#"{"cents":300,"to":"ACME"}"#));
}

#[tokio::test]
async fn deny_tells_the_model_and_runs_nothing() {
    let s = setup();
    let state = paused(&agent(&s.tools, vec![first_turn()], None)).await;
    let deny = state.pending()[0].deny("not this month");
    let model = Arc::new(ScriptedModel::new([Turn::text("I did not pay.")]));
    let resumer = Agent::builder(Arc::clone(&model), Arc::clone(&s.tools)).name("payer").build().unwrap();
    let run = resumer.resume(state, [deny]).await.unwrap();
    assert_eq!(s.effects.count(), 0);
    assert_eq!(run.records.last().unwrap().outcome, Outcome::Blocked);
    let seen = model.requests()[0].tool_results().into_iter().map(|(_, c)| c.to_owned()).collect::<Vec<_>>();
    assert_eq!(seen, ["1000", "blocked: the user rejected this call: not this month"]);
}

#[tokio::test]
async fn a_call_without_a_decision_keeps_the_run_paused() {
    let s = setup();
    let state = paused(&agent(&s.tools, vec![first_turn()], None)).await;
    let again = match agent(&s.tools, done(), None).resume(state, []).await {
        Err(AgentError::Paused { state, .. }) => state,
        other => panic!("expected a pause, got {other:?}"),
    };
    assert_eq!(again.pending().len(), 1);
    assert_eq!(s.effects.count(), 0);
    assert_eq!(s.lookups.load(Ordering::SeqCst), 1);
    // It still resumes.
    let approve = again.pending()[0].approve();
    agent(&s.tools, done(), None).resume(*again, [approve]).await.unwrap();
    assert_eq!(s.effects.count(), 1);
}

#[tokio::test]
async fn resuming_twice_never_runs_the_call_twice() {
    for durable in [false, true] {
        let s = setup();
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let store = durable.then_some(store);
        let state = paused(&agent(&s.tools, vec![first_turn()], store.clone())).await;
        let approve = state.pending()[0].approve();
        // One agent resumes twice (in memory), or two agents over one store.
        let first = agent(&s.tools, vec![Turn::text("Paid."), Turn::text("Paid.")], store.clone());
        let second = if durable { agent(&s.tools, done(), store.clone()) } else { first.clone() };
        let a = first.resume(state.clone(), [approve.clone()]).await.unwrap();
        let b = second.resume(state, [approve]).await.unwrap();
        assert_eq!(s.effects.count(), 1, "durable: {durable}");
        assert_eq!(a.records.last().unwrap().outcome, Outcome::Ok);
        let replayed = b.records.last().unwrap();
        assert_eq!(replayed.outcome, Outcome::Replayed, "durable: {durable}");
        assert_eq!(replayed.content, "paid 500", "the recorded result");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn resuming_concurrently_runs_the_call_exactly_once() {
    let s = setup();
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let state = paused(&agent(&s.tools, vec![first_turn()], Some(Arc::clone(&store)))).await;
    let approve = state.pending()[0].approve();
    let resumes = (0..8).map(|_| {
        let agent = agent(&s.tools, done(), Some(Arc::clone(&store)));
        let (state, approve) = (state.clone(), approve.clone());
        tokio::spawn(async move { agent.resume(state, [approve]).await.unwrap() })
    });
    let runs = futures_util::future::join_all(resumes).await;
    assert_eq!(s.effects.count(), 1);
    let outcomes: Vec<Outcome> = runs.into_iter().map(|r| r.unwrap().records.last().unwrap().outcome).collect();
    assert_eq!(outcomes.iter().filter(|o| **o == Outcome::Ok).count(), 1, "{outcomes:?}");
    // The others got the recorded result, or were told the call is running elsewhere.
    assert!(
        outcomes.iter().all(|o| matches!(o, Outcome::Ok | Outcome::Replayed | Outcome::Failed(ErrorKind::InDoubt))),
        "{outcomes:?}"
    );
}

#[tokio::test]
async fn a_decision_for_other_arguments_is_refused_before_anything_runs() {
    let s = setup();
    let state = paused(&agent(&s.tools, vec![first_turn()], None)).await;
    let approve = state.pending()[0].approve();

    // The shown arguments changed after the decision.
    let mut json: Value = serde_json::from_str(&state.to_json()).unwrap();
    json["pending"][0]["arguments"] = json!(r#"{"cents":50000,"to":"ACME"}"#);
    let tampered = RunState::from_json(&json.to_string()).unwrap();
    let refused = agent(&s.tools, done(), None).resume(tampered, [approve.clone()]).await.unwrap_err();
    assert!(matches!(refused, AgentError::Resume { error: ResumeError::ArgumentsChanged { .. }, .. }), "{refused}");
    assert!(refused.to_string().contains("made for other arguments"), "{refused}");

    // The decision's digest changed.
    let forged = CallDecision { digest: "0".repeat(64), ..approve.clone() };
    let refused = agent(&s.tools, done(), None).resume(state.clone(), [forged]).await.unwrap_err();
    assert!(matches!(refused, AgentError::Resume { error: ResumeError::ArgumentsChanged { .. }, .. }));

    // A decision for a call that is not pending.
    let stray = CallDecision { call_id: "call_99".into(), ..approve.clone() };
    let refused = agent(&s.tools, done(), None).resume(state.clone(), [stray]).await.unwrap_err();
    assert!(matches!(refused, AgentError::Resume { error: ResumeError::UnknownCall(_), .. }));

    // The arguments the call runs with changed (the turn), the shown ones did not: the
    // decision does not answer it, and the run pauses again with the new arguments shown.
    let mut json: Value = serde_json::from_str(&state.to_json()).unwrap();
    json["turn"][1]["call"]["arguments"] = json!(r#"{"cents": 50000, "to": "ACME"}"#);
    let tampered = RunState::from_json(&json.to_string()).unwrap();
    let again = agent(&s.tools, done(), None).resume(tampered, [approve]).await.unwrap_err().into_paused().unwrap();
    assert_eq!(serde_json::from_str::<Value>(again.pending()[0].arguments()).unwrap()["cents"], 50000);
    assert_eq!(s.effects.count(), 0, "nothing ran");

    // Another agent's state.
    let other = Agent::builder(ScriptedModel::new(done()), Arc::clone(&s.tools)).name("other").build().unwrap();
    let approve = state.pending()[0].approve();
    let refused = other.resume(state, [approve]).await.unwrap_err();
    assert!(matches!(refused, AgentError::Resume { error: ResumeError::OtherAgent { .. }, .. }));
    assert_eq!(s.effects.count(), 0);
}

#[tokio::test]
async fn the_state_round_trips_and_a_newer_version_is_refused() {
    let s = setup();
    let state = paused(&agent(&s.tools, vec![first_turn().usage(120, 30)], None)).await;
    let json = state.to_json();
    assert!(json.starts_with(r#"{"version":1,"#), "{json}");
    let back = RunState::from_json(&json).unwrap();
    assert_eq!(back, state);
    assert_eq!(back.usage().total_tokens, 150);
    assert_eq!(serde_json::to_string(&back).unwrap(), json, "serde and to_json agree");

    let mut newer: Value = serde_json::from_str(&json).unwrap();
    newer["version"] = json!(2);
    newer["messages"] = json!("a shape version 1 never had");
    let error = RunState::from_json(&newer.to_string()).unwrap_err();
    assert!(matches!(error, StateError::UnknownVersion { found: 2, known: 1 }), "{error}");
    assert!(error.to_string().contains("resume it with a build that knows version 2"), "{error}");
    // Through serde too, whatever the rest holds.
    let through_serde = serde_json::from_value::<RunState>(newer).unwrap_err().to_string();
    assert!(through_serde.contains("format version 2"), "{through_serde}");
    assert!(matches!(RunState::from_json(r#"{"run_id": "x"}"#), Err(StateError::Malformed(_))));
    // Its Debug shows no arguments.
    assert!(!format!("{state:?}").contains("ACME"), "{state:?}");
}

#[tokio::test]
async fn results_and_records_serialize_and_come_back_equal() {
    let s = setup();
    let result = s.tools.call(ToolCall::new("c1", "pay", r#"{"cents": -1}"#)).await;
    let back: ToolResult = serde_json::from_str(&serde_json::to_string(&result).unwrap()).unwrap();
    assert_eq!(back, result);
    assert_eq!(back.kind(), Some(ErrorKind::Deferred));
    let ok = ToolResult::ok("c2", "balance", "1000");
    assert_eq!(serde_json::to_value(&ok).unwrap(), json!({"call_id": "c2", "name": "balance", "content": "1000"}));

    let state = paused(&agent(&s.tools, vec![first_turn()], None)).await;
    for record in state.records() {
        let text = serde_json::to_string(&**record).unwrap();
        let back: CallRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(&back, &**record);
    }
}

#[tokio::test]
async fn the_idempotency_key_is_the_same_before_and_after_a_pause() {
    let keys = Arc::new(Mutex::new(Vec::new()));
    // A hook reads each call's key before the pause and after it.
    let hook_keys = Arc::clone(&keys);
    let observe = toolkit::Hook::before("observe", move |call| {
        if call.tool() == "pay" {
            hook_keys.lock().unwrap().push(call.idempotency_key());
        }
        toolkit::Decision::Continue
    })
    .priority(100);
    let s = setup();
    let mut tools = tools(&s.effects, &s.lookups);
    tools.add_hook(observe).unwrap();
    let tools = Arc::new(tools);
    let state = paused(&agent(&tools, vec![first_turn()], None)).await;
    let approve = state.pending()[0].approve();
    let run_id = state.run_id().to_owned();
    let call_id = state.pending()[0].call_id().to_owned();
    agent(&tools, done(), None).resume(state, [approve]).await.unwrap();
    let keys = keys.lock().unwrap().clone();
    // Deferred, then resumed: one key, made of the run, the call and its arguments.
    let expected = toolkit::durable::idempotency_key(Some(&run_id), &call_id, r#"{"to":"ACME","cents":500}"#);
    assert_eq!(keys, [expected.clone(), expected]);
}

#[tokio::test]
async fn the_ledger_replays_reports_in_doubt_and_asks_reconcile() {
    let runs = Arc::new(AtomicUsize::new(0));
    let make = |reconcile: Option<Reconciled>, runs: &Arc<AtomicUsize>| {
        let spec = ToolSpec::new("ship", "Ship.", json!({"type": "object", "properties": {"n": {"type": "integer"}}}))
            .with_annotations(toolkit::Annotations { destructive: true, ..Default::default() });
        let runs = Arc::clone(runs);
        let died = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ship = FnTool::new(spec, move |args| {
            runs.fetch_add(1, Ordering::SeqCst);
            // The first run of n = 0 dies before it can report: a crash, as the ledger
            // sees it.
            let dies = args["n"] == 0 && !died.swap(true, Ordering::SeqCst);
            async move {
                if dies {
                    panic!("the process died here");
                }
                Ok(Output::text(format!("shipped {}", args["n"])))
            }
        });
        let store = MemoryStore::new();
        let mut ledger = EffectLedger::new(store);
        if let Some(answer) = reconcile {
            ledger = ledger.reconcile(move |_| {
                let answer = answer.clone();
                async move { answer }
            });
        }
        let mut tools = Toolbox::new().with_hooks(ledger);
        tools.add_dynamic(ship).unwrap();
        tools
    };
    let call = |n: u32| ToolCall::new("c1", "ship", format!(r#"{{"n": {n}}}"#));

    let tools = make(None, &runs);
    assert_eq!(tools.call(call(1)).await.content, "shipped 1");
    assert_eq!(tools.call(call(1)).await.content, "shipped 1", "replayed");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(tools.call(call(0)).await.kind(), Some(ErrorKind::Panicked));
    let doubt = tools.call(call(0)).await;
    assert_eq!(doubt.kind(), Some(ErrorKind::InDoubt));
    assert!(doubt.content.contains("may already have taken effect"), "{}", doubt.content);
    assert_eq!(runs.load(Ordering::SeqCst), 2, "not run again");

    for (answer, content, ran) in [
        (Reconciled::Happened("shipped 0 (found downstream)".into()), "shipped 0 (found downstream)", 1),
        (Reconciled::DidNotHappen, "shipped 0", 2),
    ] {
        runs.store(0, Ordering::SeqCst);
        let tools = make(Some(answer), &runs);
        assert_eq!(tools.call(call(0)).await.kind(), Some(ErrorKind::Panicked));
        assert_eq!(tools.call(call(0)).await.content, content);
        assert_eq!(runs.load(Ordering::SeqCst), ran);
    }
}

#[tokio::test]
async fn paused_runs_wait_in_a_run_store_and_one_resumer_takes_each() {
    let dir = support::scratch("run-store");
    for store in [RunStore::new(MemoryStore::new()), RunStore::new(FileStore::open(&dir).unwrap())] {
        let s = setup();
        let first = paused(&agent(&s.tools, vec![first_turn()], None)).await;
        let second = paused(&agent(&s.tools, vec![first_turn()], None)).await;
        store.put(&first).await.unwrap();
        store.put(&second).await.unwrap();
        let listed: Vec<String> = store.list().await.unwrap().iter().map(|r| r.run_id().to_owned()).collect();
        assert_eq!(listed, [first.run_id(), second.run_id()]);
        assert_eq!(store.get(first.run_id()).await.unwrap().as_ref(), Some(&first));
        let takers = (0..6).map(|_| store.take(first.run_id()));
        let taken = futures_util::future::join_all(takers).await;
        assert_eq!(taken.into_iter().filter(|t| t.as_ref().unwrap().is_some()).count(), 1);
        assert_eq!(store.list().await.unwrap().len(), 1);
        assert!(store.take(second.run_id()).await.unwrap().is_some());
        assert!(store.list().await.unwrap().is_empty());
    }
}

/// One step of a property test's history, after a run paused on an approved payment.
#[derive(Debug, Clone)]
enum Step {
    /// Resume the paused state with the approval (a new agent over the shared store, as
    /// another process would).
    Resume,
    /// Two resumes of the state at once.
    ResumeTwiceAtOnce,
    /// Resume it while the tool dies mid-call: after its effect, or before it.
    ResumeAndCrash { after_effect: bool },
    /// The same call again straight through a toolbox with the ledger, as an engine's
    /// retry would send it.
    Replay,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever sequence of resumes, crashes and replays follows an approval, the approved
    /// call takes effect at most once.
    #[test]
    fn an_approved_call_never_takes_effect_twice(steps in proptest::collection::vec(
        prop_oneof![
            Just(Step::Resume),
            Just(Step::ResumeTwiceAtOnce),
            any::<bool>().prop_map(|after_effect| Step::ResumeAndCrash { after_effect }),
            Just(Step::Replay),
        ],
        1..8,
    )) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let effects = Arc::new(AtomicUsize::new(0));
            // 0: no crash; 1: die before the effect; 2: die after it.
            let crash = Arc::new(AtomicUsize::new(0));
            let pay = || {
                let spec = ToolSpec::new("pay", "Pay.", json!({"type": "object", "properties": {"cents": {"type": "integer"}}}))
                    .with_annotations(toolkit::Annotations { destructive: true, ..Default::default() });
                let (e, c) = (Arc::clone(&effects), Arc::clone(&crash));
                FnTool::new(spec, move |_| {
                    let crash = c.swap(0, Ordering::SeqCst);
                    if crash != 1 {
                        e.fetch_add(1, Ordering::SeqCst);
                    }
                    async move {
                        if crash != 0 { panic!("killed"); }
                        Ok(Output::text("paid"))
                    }
                })
            };
            let mut tools = Toolbox::new().with_hook(ApprovalGate::deferring().destructive());
            tools.add_dynamic(pay()).unwrap();
            let tools = Arc::new(tools);
            let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
            let mut bare = Toolbox::new().with_hooks(EffectLedger::shared(Arc::clone(&store)));
            bare.add_dynamic(pay()).unwrap();
            let agent = |turns: Vec<Turn>| Agent::builder(ScriptedModel::new(turns), Arc::clone(&tools))
                .durable(Arc::clone(&store)).build().unwrap();
            let state = agent(vec![Turn::call("pay", r#"{"cents": 5}"#)]).run("pay").await.unwrap_err().into_paused().unwrap();
            let approve = state.pending()[0].approve();
            let resume = || {
                let (agent, state, approve) = (agent(done()), state.clone(), approve.clone());
                async move { agent.resume(state, [approve]).await }
            };
            for step in steps {
                match step {
                    Step::Resume => {
                        let _ = resume().await;
                    }
                    Step::ResumeTwiceAtOnce => {
                        let _ = futures_util::future::join(resume(), resume()).await;
                    }
                    Step::ResumeAndCrash { after_effect } => {
                        crash.store(if after_effect { 2 } else { 1 }, Ordering::SeqCst);
                        let _ = resume().await;
                        crash.store(0, Ordering::SeqCst);
                    }
                    Step::Replay => {
                        let scope = toolkit::Scope::new().with_run(state.run_id().to_owned());
                        let call = ToolCall::new(state.pending()[0].call_id(), "pay", r#"{"cents": 5}"#);
                        let _ = bare.call_in(call, &scope).await;
                    }
                }
            }
            prop_assert!(effects.load(Ordering::SeqCst) <= 1, "effects: {}", effects.load(Ordering::SeqCst));
            Ok(())
        })?;
    }
}
