//! `toolkit::testing`: trajectory assertions over the records of a real agent run
//! (a scripted model, the tools run for real): exact, in order, unordered, argument
//! values and predicates, arguments ignored or not, outcomes, and the failure output.

use toolkit::agent::Agent;
use toolkit::model::{ScriptedModel, Turn};
use toolkit::prelude::*;
use toolkit::testing::{assert_exact, assert_in_order, assert_unordered, call, exact, in_order, unordered};
use toolkit::{Decision, Hook, Outcome};

/// Look up a city's weather.
#[tool(read_only)]
fn weather(city: String, unit: Option<String>) -> String {
    format!("{city}: 21 {}", unit.unwrap_or_else(|| "celsius".into()))
}

/// Book a flight.
#[tool(destructive)]
fn book(to: String, seats: u32) -> String {
    format!("booked {seats} to {to}")
}

/// Runs a scripted trip: two weather lookups in one turn, a booking a hook blocks (too
/// many seats), another that goes through, then the answer. The run's records.
async fn trip() -> Vec<std::sync::Arc<toolkit::CallRecord>> {
    let model = ScriptedModel::new([
        Turn::calls([("weather", r#"{"city": "Oslo"}"#), ("weather", r#"{"city": "Rome", "unit": "fahrenheit"}"#)]),
        Turn::call("book", r#"{"to": "Rome", "seats": 12}"#),
        Turn::call("book", r#"{"to": "Rome", "seats": 2}"#),
        Turn::text("booked"),
    ]);
    let at_most_nine = Hook::before("at_most_nine", |c: &mut toolkit::BeforeCall<'_>| {
        match c.arguments().get("seats").and_then(|s| s.as_u64()) {
            Some(n) if n > 9 => Decision::Block("at most 9 seats".into()),
            _ => Decision::Continue,
        }
    });
    let tools = toolbox![weather, book].with_hook(at_most_nine);
    let agent = Agent::builder(model, tools).build().unwrap();
    agent.run("a trip to Rome").await.unwrap().records
}

#[tokio::test]
async fn the_three_checks_pass_on_the_trajectory_they_describe() {
    let records = trip().await;
    let seats_under_ten = |v: &serde_json::Value| v.as_u64().is_some_and(|n| n < 10);
    assert_exact(
        &records,
        &[
            call("weather").arg("city", "Oslo").only(),
            call("weather").arg("city", "Rome").arg("unit", "fahrenheit").only(),
            call("book").arg("seats", 12).outcome(Outcome::Blocked),
            call("book").arg_where("seats", "under 10", seats_under_ten).outcome(Outcome::Ok),
        ],
    );
    assert_in_order(&records, &[call("weather").arg("city", "Oslo"), call("book").outcome(Outcome::Ok)]);
    assert_unordered(
        &records,
        &[call("book").outcome(Outcome::Ok), call("weather").arg("city", "Rome"), call("weather")],
    );
}

#[tokio::test]
async fn each_check_fails_where_the_trajectory_differs_and_says_where() {
    let records = trip().await;

    // Exact: a call too many, a wrong argument, an ignored argument that `only` forbids.
    let short = exact(&records, &[call("weather"), call("weather"), call("book")]).unwrap_err();
    assert_eq!(short.summary, "exact: 3 calls expected, 4 happened");
    let wrong = exact(&records, &[call("weather").arg("city", "Paris"), call("weather"), call("book"), call("book")])
        .unwrap_err();
    assert_eq!(wrong.summary, "exact: expected call 0 did not happen");
    assert_eq!(wrong.expected[0], r#"0: weather(city: "Paris", ..)  <- call 0 has `city` is "Oslo""#);
    let only =
        exact(&records, &[call("weather"), call("weather").arg("city", "Rome").only(), call("book"), call("book")])
            .unwrap_err();
    assert!(only.expected[1].ends_with("<- call 1 has an argument `unit` besides the expected"), "{only}");

    // In order: the booking that went through came after the blocked one, not before.
    let order =
        in_order(&records, &[call("book").outcome(Outcome::Ok), call("book").outcome(Outcome::Blocked)]).unwrap_err();
    assert_eq!(order.expected[1], "1: book(..) -> blocked  <- not found from call 4 on");

    // Unordered: two successful bookings were expected, one happened; a loose expectation
    // does not steal the only call a strict one fits.
    let twice =
        unordered(&records, &[call("book").outcome(Outcome::Ok), call("book").outcome(Outcome::Ok)]).unwrap_err();
    assert_eq!(twice.summary, "unordered: 1 of 2 expected calls did not happen");
    assert!(unordered(&records, &[call("weather"), call("weather").arg("unit", "fahrenheit")]).is_ok());

    // The side-by-side output a failing assert prints.
    let printed = wrong.to_string();
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines[0], "exact: expected call 0 did not happen");
    assert!(lines[1].trim_start().starts_with("expected") && lines[1].ends_with("| actual"), "{printed}");
    assert!(
        lines[2].contains(r#"0: weather(city: "Paris", ..)"#)
            && lines[2].contains(r#"| 0: weather({"city": "Oslo"}) -> ok"#),
        "{printed}"
    );
    assert!(lines[4].ends_with(r#"| 2: book({"to": "Rome", "seats": 12}) -> blocked"#), "{printed}");
    let panicked = std::panic::catch_unwind(|| assert_exact(&records, &[call("book")])).unwrap_err();
    let message = panicked.downcast_ref::<String>().unwrap();
    assert!(message.starts_with("exact: expected call 0 did not happen"), "{message}");
}

/// The trip of [`trip`] with its calls written to an audit log, a hook that rewrites
/// the city's case (so the log holds what the model sent beside what the tool got).
async fn logged_trip(path: &std::path::Path) {
    let log = toolkit::hooks::AuditLog::builder().to_file(path).unwrap();
    let model = ScriptedModel::new([
        Turn::calls([("weather", r#"{"city": "oslo"}"#), ("weather", r#"{"city": "Rome", "unit": "fahrenheit"}"#)]),
        Turn::call("book", r#"{"to": "Rome", "seats": 12}"#),
        Turn::call("book", r#"{"to": "Rome", "seats": 2}"#),
        Turn::text("booked"),
    ]);
    let tools = production_tools().with_sink(log.clone());
    let agent = Agent::builder(model, tools).build().unwrap();
    agent.run("a trip to Rome").await.unwrap();
    log.flush().unwrap();
}

fn capitalize() -> Hook {
    Hook::before("capitalize", |c: &mut toolkit::BeforeCall<'_>| {
        let city = c.arguments().get("city").and_then(|v| v.as_str()).map(str::to_owned);
        if let Some(city) = city.filter(|c| c.starts_with(char::is_lowercase)) {
            let mut chars = city.chars();
            let upper: String = chars.next().into_iter().flat_map(char::to_uppercase).chain(chars).collect();
            c.arguments_mut().insert("city".into(), upper.into());
        }
        Decision::Continue
    })
}

fn at_most(seats: u64) -> Hook {
    Hook::before("at_most", move |c: &mut toolkit::BeforeCall<'_>| {
        match c.arguments().get("seats").and_then(|s| s.as_u64()) {
            Some(n) if n > seats => Decision::Block(format!("at most {seats} seats")),
            _ => Decision::Continue,
        }
    })
}

fn production_tools() -> Toolbox {
    toolbox![weather, book].with_hook(capitalize()).with_hook(at_most(9))
}

#[tokio::test]
async fn an_audit_log_replays_as_a_regression_test_and_shows_what_changed() {
    use toolkit::testing::Replay;
    let path = std::env::temp_dir().join(format!("toolkit-replay-{}.jsonl", std::process::id()));
    logged_trip(&path).await;
    let text = std::fs::read_to_string(&path).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["arguments"], serde_json::json!({"city": "Oslo"}), "what the tool got");
    assert_eq!(first["model_arguments"], serde_json::json!({"city": "oslo"}), "what the model sent");

    // The same tools: the replay does what production did, result text included.
    let replay = Replay::from_audit(&path).unwrap().compare_results(true);
    assert_eq!(replay.len(), 4);
    let agent = Agent::builder(replay.model(), production_tools()).build().unwrap();
    let run = agent.run("replay").await.unwrap();
    replay.assert(&run.records);
    // The model sent what the model had sent: the hook rewrote it again.
    assert_eq!(run.records[0].arguments, r#"{"city":"oslo"}"#);
    assert_eq!(run.records[0].effective_arguments(), r#"{"city":"Oslo"}"#);

    // A stricter policy: the replay shows the booking that is now blocked.
    let stricter = toolbox![weather, book].with_hook(capitalize()).with_hook(at_most(1));
    let model = ScriptedModel::from_audit(&path).unwrap();
    let run = Agent::builder(model, stricter).build().unwrap().run("replay").await.unwrap();
    // With result text compared, the first booking's reason changed too ("at most 1").
    assert_eq!(replay.diff(&run.records).unwrap_err().changed(), 2);
    let diff = Replay::from_audit(&path).unwrap().diff(&run.records).unwrap_err();
    assert_eq!(diff.changed(), 1);
    let text = diff.to_string();
    let row = text.lines().find(|l| l.starts_with(" !")).unwrap();
    assert!(row.contains("book ok") && row.ends_with("book blocked"), "{text}");

    // Fewer calls than logged is a difference too.
    assert_eq!(replay.diff(&run.records[..2]).unwrap_err().changed(), 2);
    std::fs::remove_file(&path).ok();
}

#[test]
fn a_file_that_is_not_an_audit_log_is_refused_with_its_line() {
    use toolkit::testing::{Replay, ReplayError};
    let err =
        Replay::parse("{\"call_id\": \"1\", \"tool\": \"a\", \"arguments\": {}, \"outcome\": \"ok\"}\nnot json\n")
            .unwrap_err();
    assert!(matches!(err, ReplayError::Line { line: 2, .. }), "{err}");
    assert!(
        Replay::from_audit("/nonexistent/audit.jsonl").unwrap_err().to_string().contains("cannot read the audit log")
    );
}
