//! The loop guard: a model that repeats the same call is told to stop.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::store::Store;
use crate::digest::canonical_json;
use crate::hook::{BeforeCall, BeforeHook, Decision, Hook, HookError, HookStep, OnFailure};

/// A before hook that blocks a call identical to the previous `n` ones: the same tool
/// with the same arguments (compared as JSON, whatever the key order), `n` times in a
/// row. The model is told why and what to do:
/// ``blocked: you have called `search` with the same arguments 3 times in a row; the
/// result will not change — use the previous result or change the arguments``.
///
/// A different call resets the count. Calls are tracked per session (the
/// [`Scope`](crate::Scope)'s session label), else per agent, else per task; calls with
/// none of these labels share one history per hook (that is, per toolbox it was added
/// to). In memory, at most 10,000 histories are kept; the least recently used is
/// dropped first. With a [`store`](LoopGuard::store) (Redis, for replicas that serve
/// one session in turn), each history is one key counted atomically
/// ([`Store::repeat`]) and expires an hour after its last call.
///
/// Named `loop_guard`, priority 35 (after paths are normalized, so `a.txt` and
/// `/data/a.txt` count as the same call). It fails open: if its store cannot answer,
/// the call goes on.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::LoopGuard;
///
/// /// Search the web.
/// #[tool]
/// fn search(query: String) -> String { format!("results for {query}") }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![search].with_hook(LoopGuard::max_repeats(2));
/// let call = || ToolCall::new("1", "search", r#"{"query": "rust"}"#);
/// assert_eq!(tools.call(call()).await.content, "results for rust");
/// assert_eq!(tools.call(call()).await.content, "results for rust");
/// assert!(tools.call(call()).await.content.starts_with("blocked: you have called `search` with the same arguments 2 times"));
/// # }
/// ```
#[derive(Clone)]
pub struct LoopGuard {
    name: Cow<'static, str>,
    max: u32,
    histories: Arc<Mutex<HashMap<String, Last>>>,
    store: Option<Arc<dyn Store>>,
}

impl std::fmt::Debug for LoopGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopGuard").field("name", &self.name).field("max_repeats", &self.max).finish_non_exhaustive()
    }
}

/// The last call of one history and how many times in a row it was made.
struct Last {
    tool: String,
    arguments: String,
    times: u32,
    seen: Instant,
}

const MAX_HISTORIES: usize = 10_000;

impl LoopGuard {
    /// Lets the same call run at most `max` times in a row (at least 1).
    pub fn max_repeats(max: u32) -> Self {
        LoopGuard { name: Cow::Borrowed("loop_guard"), max: max.max(1), histories: Arc::default(), store: None }
    }

    /// Keeps the histories in `store` (shared by processes) instead of this process's
    /// memory.
    pub fn store(mut self, store: impl Store) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// Sets the hook's name (default `loop_guard`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }
}

impl BeforeHook for LoopGuard {
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        let history = match (call.session(), call.agent(), call.task()) {
            (Some(s), _, _) => format!("session:{s}"),
            (None, Some(a), _) => format!("agent:{a}"),
            (None, None, Some(t)) => format!("task:{t}"),
            (None, None, None) => String::new(),
        };
        let tool = call.tool();
        let arguments = canonical_json(call.arguments());
        if let Some(store) = &self.store {
            let key = format!("toolkit:{}:{history}", self.name);
            let value = format!("{tool}\n{arguments}");
            return HookStep::Pending(Box::pin(async move {
                let times = store.repeat(&key, value.as_bytes(), HISTORY_TTL).await.map_err(HookError::new)?;
                Ok(self.decide(tool, times))
            }));
        }
        let now = Instant::now();
        let mut histories = self.histories.lock().unwrap_or_else(|e| e.into_inner());
        if !histories.contains_key(&history) && histories.len() >= MAX_HISTORIES {
            let oldest = histories.iter().min_by_key(|(_, last)| last.seen).map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                histories.remove(&oldest);
            }
        }
        let last = histories.entry(history).or_insert_with(|| Last {
            tool: String::new(),
            arguments: String::new(),
            times: 0,
            seen: now,
        });
        last.seen = now;
        if last.tool == tool && last.arguments == arguments {
            last.times = last.times.saturating_add(1);
        } else {
            *last = Last { tool: tool.to_owned(), arguments, times: 1, seen: now };
        }
        let times = last.times;
        drop(histories);
        HookStep::Ready(Ok(self.decide(tool, times)))
    }

    fn is_sync(&self) -> bool {
        self.store.is_none()
    }
}

impl LoopGuard {
    /// The decision for the `times`-th identical call in a row.
    fn decide(&self, tool: &str, times: u32) -> Decision {
        if times <= self.max {
            return Decision::Continue;
        }
        let made = match times - 1 {
            1 => format!("just called `{tool}` with these arguments"),
            n => format!("called `{tool}` with the same arguments {n} times in a row"),
        };
        Decision::Block(format!(
            "you have {made}; the result will not change — use the previous result or change the arguments"
        ))
    }
}

/// How long a history lives in a store after its last call.
const HISTORY_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

impl From<LoopGuard> for Hook {
    fn from(guard: LoopGuard) -> Hook {
        // A guard against loops must not stop the tools when its store is down.
        Hook::new(guard.name.clone()).priority(35).on_failure(OnFailure::Continue).on_before(guard)
    }
}
