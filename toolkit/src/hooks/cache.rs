//! The result cache: an identical call to a read-only or idempotent tool is answered
//! from the last result without running the tool.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use super::canonical::canonical_json;
use super::carry::{Carried, owner};
use super::store::{MemoryStore, Store};
use crate::call::Output;
use crate::hook::{AfterCall, AfterHook, BeforeCall, BeforeHook, Decision, Hook, HookError, HookStep, OnFailure};

/// A hook (before and after) that answers a repeated call from a cache.
///
/// The key is the tool's name and its arguments *as the earlier before hooks left them*
/// (normalized paths, defaults filled in), with object keys sorted so that the model's
/// key order does not matter. That is why the cache has priority -100: its before hook
/// runs after every before hook of default priority. On a hit, the call is answered
/// with the cached text (the tool does not run; after hooks still do, on the cached
/// text; the record's outcome is `cached`; [`AfterCall::raw`] is `None`). On a miss,
/// the after hook of the same call stores the tool's own output (before other after
/// hooks' rewrites, which run again on every hit) for the TTL.
///
/// Only tools declared `read_only` or `idempotent` are cached; calls of any other tool
/// pass through untouched, since running them may matter even with the same arguments.
/// Entries live in a [`Store`] (in memory unless [`store`](Cache::store) says
/// otherwise); keys hold the whole canonical arguments, not a hash, so two different
/// calls never share an entry.
///
/// Concurrent identical calls run the tool once (single flight): the first to miss runs
/// it, the others wait for it and are answered from the cache (outcome `cached`); if the
/// first call fails, one of the waiting calls runs the tool in its place. This holds
/// within one process, per cache hook; across processes sharing a [`Store`] each
/// process runs the tool at most once per burst.
///
/// Named `cache`, priority -100. It fails open: if its store cannot answer, the call
/// runs as on a miss (an outage must not stop the tools).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::time::Duration;
/// use toolkit::prelude::*;
/// use toolkit::hooks::Cache;
///
/// static RUNS: AtomicUsize = AtomicUsize::new(0);
///
/// /// Look a word up.
/// #[tool(read_only)]
/// fn define(word: String) -> String {
///     RUNS.fetch_add(1, Ordering::Relaxed);
///     format!("{word}: a word")
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![define].with_hook(Cache::ttl(Duration::from_secs(60)));
/// for _ in 0..3 {
///     let r = tools.call(ToolCall::new("1", "define", r#"{"word": "cache"}"#)).await;
///     assert_eq!(r.content, "cache: a word");
/// }
/// assert_eq!(RUNS.load(Ordering::Relaxed), 1);
/// # }
/// ```
#[derive(Clone)]
pub struct Cache {
    name: Cow<'static, str>,
    ttl: Duration,
    store: Arc<dyn Store>,
}

impl fmt::Debug for Cache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cache").field("name", &self.name).field("ttl", &self.ttl).finish()
    }
}

impl Cache {
    /// Keeps results for `ttl`.
    pub fn ttl(ttl: Duration) -> Self {
        Cache { name: Cow::Borrowed("cache"), ttl, store: Arc::new(MemoryStore::new()) }
    }

    /// Keeps the entries in `store` (shared with other hooks or processes).
    pub fn store(mut self, store: impl Store) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Sets the hook's name (default `cache`); it is also part of the store keys.
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }
}

/// The store key of a call that missed, carried to the after hook of the same call.
struct MissedKey(String);

struct Shared {
    config: Cache,
    /// The keys whose tool is running now, and how to wake the calls waiting for it.
    flights: Mutex<HashMap<String, Arc<Notify>>>,
}

/// The call that runs the tool for a key: when the call ends, however it ends (this is
/// dropped with the call's extensions), the calls waiting for it are woken.
struct Leader {
    shared: Arc<Shared>,
    key: String,
}

impl Drop for Leader {
    fn drop(&mut self) {
        let mut flights = self.shared.flights.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(flight) = flights.remove(&self.key) {
            flight.notify_waiters();
        }
    }
}

#[derive(Clone)]
struct Handle(Arc<Shared>);

impl BeforeHook for Handle {
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        let cacheable = call.spec().is_some_and(|s| s.annotations.repeatable());
        if !cacheable {
            return HookStep::Ready(Ok(Decision::Continue));
        }
        let config = &self.0.config;
        let key = format!("toolkit:{}:{}:{}", config.name, call.tool(), canonical_json(call.arguments()));
        HookStep::Pending(Box::pin(async move {
            loop {
                if let Some(bytes) = config.store.get(&key).await.map_err(HookError::new)? {
                    return match String::from_utf8(bytes) {
                        Ok(text) => Ok(Decision::Return(Output::text(text))),
                        Err(_) => Err(HookError::new(format!("the cache entry `{key}` is not UTF-8 text"))),
                    };
                }
                // A miss: run the tool, unless an identical call is running it already;
                // then wait for that one and look again.
                let waiting = {
                    let mut flights = self.0.flights.lock().unwrap_or_else(|e| e.into_inner());
                    match flights.get(&key) {
                        Some(flight) => {
                            let mut notified = Box::pin(Arc::clone(flight).notified_owned());
                            // Registered before the lock is released: the wake-up cannot
                            // be missed.
                            notified.as_mut().enable();
                            Some(notified)
                        }
                        None => {
                            flights.insert(key.clone(), Arc::new(Notify::new()));
                            None
                        }
                    }
                };
                match waiting {
                    Some(notified) => notified.await,
                    None => {
                        let owner = owner(&self.0);
                        Carried::put(call.extensions_mut(), owner, MissedKey(key.clone()));
                        Carried::put(call.extensions_mut(), owner, Leader { shared: Arc::clone(&self.0), key });
                        return Ok(Decision::Continue);
                    }
                }
            }
        }))
    }
}

impl AfterHook for Handle {
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()> {
        let Some(MissedKey(key)) = Carried::take(out.extensions_mut(), owner(&self.0)) else {
            return HookStep::Ready(Ok(()));
        };
        if out.is_cached() {
            // Another hook answered the call; that is not this tool's output.
            return HookStep::Ready(Ok(()));
        }
        let text = out.output().as_str().as_bytes().to_vec();
        let config = &self.0.config;
        HookStep::Pending(Box::pin(async move {
            config.store.set(&key, text, Some(config.ttl)).await.map_err(HookError::new)
        }))
    }
}

impl From<Cache> for Hook {
    fn from(cache: Cache) -> Hook {
        let name = cache.name.clone();
        let handle = Handle(Arc::new(Shared { config: cache, flights: Mutex::default() }));
        // A cache that cannot answer must not stop the call: it fails open.
        Hook::new(name).priority(-100).on_failure(OnFailure::Continue).on_before(handle.clone()).on_after(handle)
    }
}
