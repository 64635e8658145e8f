//! The process-wide hook registry (`toolkit::hook::register`, `unregister`, `list`,
//! `clear`), as CrewAI users expect it: a registered hook acts on every toolbox's calls.
//!
//! One test in a binary of its own: global hooks act on every call of the process, so
//! they must not leak into other tests.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use toolkit::Scope;
use toolkit::hook::{self, Hook};
use toolkit::prelude::*;

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Say hello.
#[tool]
fn hello() -> String {
    "hello".into()
}

#[tokio::test]
async fn global_hooks_act_on_every_toolbox_and_run_before_toolbox_and_agent_hooks() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let note = |name: &'static str| {
        let seen = Arc::clone(&seen);
        Hook::before(name, move |call: &mut BeforeCall<'_>| {
            seen.lock().unwrap().push(format!("{name}:{}", call.tool()))
        })
    };
    hook::register(note("global")).unwrap();
    assert_eq!(
        hook::register(Hook::new("global")).unwrap_err().to_string(),
        "a hook named `global` is already registered here; hook names must be unique within a registry"
    );
    hook::register(Hook::after("stamp", |out: &mut AfterCall<'_>| {
        let t = format!("{} (audited)", out.text());
        out.set_text(t);
    }))
    .unwrap();
    assert_eq!(hook::list().iter().map(|h| h.name().to_string()).collect::<Vec<_>>(), ["global", "stamp"]);

    // Two unrelated toolboxes both see the global hooks; order: global, toolbox, agent.
    let one = toolbox![add].with_hook(note("toolbox"));
    let two = toolbox![hello];
    let agent = Scope::new().with_hooks(toolkit::Hooks::new().with(note("agent")));
    assert_eq!(one.call_in(ToolCall::new("1", "add", r#"{"a":1,"b":2}"#), &agent).await.content, "3 (audited)");
    assert_eq!(two.call(ToolCall::new("2", "hello", "{}")).await.content, "hello (audited)");
    assert_eq!(*seen.lock().unwrap(), ["global:add", "toolbox:add", "agent:add", "global:hello"]);

    // Unregistered, it stops acting; cleared, none do.
    assert!(hook::unregister("stamp"));
    assert!(!hook::unregister("stamp"));
    assert_eq!(two.call(ToolCall::new("3", "hello", "{}")).await.content, "hello");
    let runs = Arc::new(AtomicUsize::new(0));
    let r = Arc::clone(&runs);
    hook::register(Hook::before("count", move |_: &mut BeforeCall<'_>| {
        r.fetch_add(1, Ordering::SeqCst);
    }))
    .unwrap();
    two.call(ToolCall::new("4", "hello", "{}")).await;
    hook::clear();
    assert!(hook::list().is_empty());
    two.call(ToolCall::new("5", "hello", "{}")).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(seen.lock().unwrap().len(), 6, "`global` ran for calls 3 and 4, then was cleared");
}
