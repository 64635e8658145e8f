//! The result cache: an identical call to a read-only or idempotent tool is answered
//! from the last result without running the tool.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use super::carry::{Carried, owner};
use super::store::{MemoryStore, Store};
use crate::call::Output;
use crate::digest::canonical_json;
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
/// first call fails, one of the waiting calls runs the tool in its place. Across
/// processes sharing a [`Store`] the same holds through the store: the first process to
/// miss takes a flight lock in the store (`set_if_absent`, expiring after
/// [`flight_timeout`](Cache::flight_timeout), 30 s by default); the others poll the store
/// for the entry (5 ms, doubling up to 100 ms) until it appears or the lock goes, and
/// run the tool themselves only if it does not appear within the timeout. A store error
/// while taking the lock runs the tool (fail open).
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
    flight_timeout: Duration,
    store: Arc<dyn Store>,
}

impl fmt::Debug for Cache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cache").field("name", &self.name).field("ttl", &self.ttl).finish()
    }
}

/// What the cache's own in-memory store keeps at most (see
/// [`MemoryStore::with_max_bytes`]).
const DEFAULT_MAX_BYTES: usize = 64 << 20;

impl Cache {
    /// Keeps results for `ttl`, in memory (at most 64 MiB of keys and results: the
    /// entries that expire soonest go first) unless [`store`](Cache::store) says
    /// otherwise.
    pub fn ttl(ttl: Duration) -> Self {
        Cache {
            name: Cow::Borrowed("cache"),
            ttl,
            flight_timeout: Duration::from_secs(30),
            store: Arc::new(MemoryStore::new().with_max_bytes(DEFAULT_MAX_BYTES)),
        }
    }

    /// How long calls in other processes wait for the one running the tool before they
    /// run it themselves, and how long its lock in the store lives (default 30 s; set
    /// it above the tool's usual duration).
    pub fn flight_timeout(mut self, timeout: Duration) -> Self {
        self.flight_timeout = timeout;
        self
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
/// dropped with the call's extensions), the calls waiting for it are woken, and its
/// flight lock in the store (if it took one) is released.
struct Leader {
    shared: Arc<Shared>,
    key: String,
    lock: Option<String>,
}

impl Drop for Leader {
    fn drop(&mut self) {
        let mut flights = self.shared.flights.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(flight) = flights.remove(&self.key) {
            flight.notify_waiters();
        }
        drop(flights);
        if let (Some(lock), Ok(runtime)) = (self.lock.take(), tokio::runtime::Handle::try_current()) {
            let store = Arc::clone(&self.shared.config.store);
            // Released in the background; if it fails, the lock expires.
            runtime.spawn(async move { store.delete(&lock).await });
        }
    }
}

/// What the store says about a key another process is running the tool for.
enum Remote {
    /// The entry appeared.
    Hit(Vec<u8>),
    /// This process runs the tool (it took the lock, or waited long enough).
    Run(Option<String>),
}

/// Takes the key's flight lock in the store, or waits for the process holding it.
async fn remote_flight(config: &Cache, key: &str) -> Remote {
    let lock = format!("{key}:flight");
    // `None`: a timeout longer than the clock can count, which never runs out.
    let deadline = tokio::time::Instant::now().checked_add(config.flight_timeout);
    let mut pause = Duration::from_millis(5);
    loop {
        match config.store.set_if_absent(&lock, b"1".to_vec(), Some(config.flight_timeout)).await {
            Ok(true) => return Remote::Run(Some(lock)),
            Ok(false) => {}
            // The store cannot say: run the tool (fail open).
            Err(_) => return Remote::Run(None),
        }
        if deadline.is_some_and(|deadline| tokio::time::Instant::now() >= deadline) {
            return Remote::Run(None);
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(100));
        if let Ok(Some(bytes)) = config.store.get(key).await {
            return Remote::Hit(bytes);
        }
    }
}

/// The first bytes of an entry that holds parts: a NUL, which no text entry starts
/// with... unless a tool returns one, hence the rest of the marker.
const WITH_PARTS: &[u8] = b"\0toolkit-parts\n";

/// A cache entry: the output's text as it is, or, when it has parts, the marker and the
/// text and parts as JSON (the bytes in base64), so a hit answers with the same parts.
fn entry(output: &Output) -> Vec<u8> {
    if output.parts().is_empty() {
        return output.as_str().as_bytes().to_vec();
    }
    let mut bytes = WITH_PARTS.to_vec();
    let json = serde_json::json!({"text": output.as_str(), "parts": output.parts()});
    bytes.extend_from_slice(json.to_string().as_bytes());
    bytes
}

fn cached(key: &str, bytes: Vec<u8>) -> Result<Decision, HookError> {
    if let Some(json) = bytes.strip_prefix(WITH_PARTS) {
        #[derive(serde::Deserialize)]
        struct WithParts {
            text: String,
            parts: Vec<crate::parts::Part>,
        }
        return match serde_json::from_slice::<WithParts>(json) {
            Ok(entry) => Ok(Decision::Return(Output::text(entry.text).with_parts(entry.parts))),
            Err(e) => Err(HookError::new(format!("the cache entry `{key}` could not be read: {e}"))),
        };
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Decision::Return(Output::text(text))),
        Err(_) => Err(HookError::new(format!("the cache entry `{key}` is not UTF-8 text"))),
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
        // A retry (`Recovery::Retry`) of a call this cache leads: it still leads its key
        // and runs the tool again (waiting for its own flight would wait for ever). With
        // other arguments, its old flight ends here and the new key is looked up.
        let owner = owner(&self.0);
        if let Some(leader) = Carried::<Leader>::take(call.extensions_mut(), owner) {
            if leader.key == key {
                Carried::put(call.extensions_mut(), owner, leader);
                Carried::put(call.extensions_mut(), owner, MissedKey(key));
                return HookStep::Ready(Ok(Decision::Continue));
            }
            drop(leader);
        }
        HookStep::Pending(Box::pin(async move {
            loop {
                if let Some(bytes) = config.store.get(&key).await.map_err(HookError::new)? {
                    return cached(&key, bytes);
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
                        // This call leads here; identical calls of this process wait for
                        // it. Another process may be running the tool already.
                        let mut leader = Leader { shared: Arc::clone(&self.0), key: key.clone(), lock: None };
                        match remote_flight(config, &key).await {
                            Remote::Hit(bytes) => return cached(&key, bytes),
                            Remote::Run(lock) => leader.lock = lock,
                        }
                        Carried::put(call.extensions_mut(), owner, MissedKey(key));
                        Carried::put(call.extensions_mut(), owner, leader);
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
        let text = entry(out.output());
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
