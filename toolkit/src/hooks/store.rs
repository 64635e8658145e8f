//! Where the stateful built-ins keep their state: [`RateLimit`](super::RateLimit)'s
//! windows, [`CircuitBreaker`](super::CircuitBreaker)'s counters, [`Cache`](super::Cache)'s
//! entries.
//!
//! [`MemoryStore`] (the default) serves one process. When several processes serve the
//! same tools, implement [`Store`] over a shared server; every operation maps onto one
//! Redis command or one small script:
//!
//! | operation | Redis |
//! |---|---|
//! | [`hit`](Store::hit) | a sorted set per key, scored by time, in one Lua script (atomic): `ZREMRANGEBYSCORE key -inf now-window`, `ZCARD key`; under the limit, `ZADD key now <unique member>` and `PEXPIRE key window`; at the limit, `ZRANGE key 0 0 WITHSCORES` gives the oldest hit, and `retry_after = oldest + window - now` |
//! | [`incr`](Store::incr) | `INCR key`, then `PEXPIRE key ttl` (in `MULTI`) |
//! | [`get`](Store::get) | `GET key` |
//! | [`set`](Store::set) | `SET key value PX ttl` (no `PX` without a TTL) |
//! | [`set_if_absent`](Store::set_if_absent) | `SET key value NX PX ttl` |
//! | [`delete`](Store::delete) | `DEL key` |
//! | [`repeat`](Store::repeat) | one Lua script: `GET key`; the count plus one if the stored value is the same, else 1; `SET key "count\nvalue" PX ttl` |
//!
//! Keys are built by the hooks as `toolkit:{hook name}:{tool}:…`, so one server can
//! hold several hooks' state; a counter is stored as its decimal text, as `INCR` does.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use futures_util::future::BoxFuture;

/// The answer to a [`Store::hit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// Under the limit: the hit was recorded; `count` hits are now in the window,
    /// this one included.
    Allowed {
        /// Hits in the window, this one included.
        count: u32,
    },
    /// At the limit: the hit was *not* recorded; the oldest hit leaves the window in
    /// `retry_after`.
    Limited {
        /// When the next hit would be allowed.
        retry_after: Duration,
    },
}

/// A store could not be reached or refused an operation. A hook that gets one has
/// failed, and its failure policy applies (a before hook fails closed by default).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the hook store failed: {0}")]
pub struct StoreError(String);

impl StoreError {
    /// An error with this description.
    pub fn new(message: impl fmt::Display) -> Self {
        StoreError(message.to_string())
    }
}

/// Shared state for hooks: sliding windows, counters and values with a time to live.
/// Every operation is atomic for its key.
///
/// Methods return boxed futures so that a networked implementation (Redis; see the
/// [module](self) documentation for the mapping) fits the same trait.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolkit::hooks::store::{Hit, MemoryStore, Store};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let store = MemoryStore::new();
/// let (window, now) = (Duration::from_secs(60), SystemTime::now());
/// assert_eq!(store.hit("k", window, 1, now).await.unwrap(), Hit::Allowed { count: 1 });
/// assert!(matches!(store.hit("k", window, 1, now).await.unwrap(), Hit::Limited { .. }));
///
/// store.set("c", b"cached".to_vec(), Some(Duration::from_secs(5))).await.unwrap();
/// assert_eq!(store.get("c").await.unwrap().as_deref(), Some(&b"cached"[..]));
/// assert_eq!(store.incr("n", None).await.unwrap(), 1);
/// # }
/// ```
pub trait Store: Send + Sync + 'static {
    /// Records a hit at `now` in the sliding window of `key` if fewer than `limit` hits
    /// happened in the `window` before it.
    fn hit<'a>(
        &'a self,
        key: &'a str,
        window: Duration,
        limit: u32,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Hit, StoreError>>;

    /// Adds one to the counter `key` (a missing key counts as 0) and returns the new
    /// value; the key expires `ttl` after this increment (never, with `None`).
    fn incr<'a>(&'a self, key: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<u64, StoreError>>;

    /// The value of `key`, unless it is missing or expired.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>>;

    /// Sets `key`, expiring after `ttl` (never, with `None`).
    fn set<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Sets `key` only if it is missing or expired; `true` if it was set.
    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Removes `key`.
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Reads and removes `key` in one step: of several callers taking one key at once,
    /// exactly one gets its value (the store of paused runs hands a run to one resumer
    /// with it). `GETDEL key` on Redis.
    ///
    /// The default implementation refuses: a `get` then a `delete` would let two callers
    /// take one value.
    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        let _ = key;
        Box::pin(std::future::ready(Err(StoreError::new("this store cannot take a key atomically (`Store::take`)"))))
    }

    /// The live keys that start with `prefix`, in no particular order (the store of
    /// paused runs lists them with it). `SCAN MATCH prefix*` on Redis.
    ///
    /// The default implementation refuses.
    fn keys<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        let _ = prefix;
        Box::pin(std::future::ready(Err(StoreError::new("this store cannot list its keys (`Store::keys`)"))))
    }

    /// Records `value` as the latest under `key` and returns how many times in a row it
    /// has now been recorded (1 when it differs from the one before, or none was); the
    /// key expires `ttl` after this call. [`LoopGuard`](super::LoopGuard) counts repeated
    /// calls with it.
    ///
    /// The default implementation is a `get` then a `set`, not atomic: two processes
    /// recording at once may both count from the same previous value. [`MemoryStore`]
    /// and the Redis store do it atomically.
    fn repeat<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> BoxFuture<'a, Result<u32, StoreError>> {
        Box::pin(async move {
            let times = repeated(self.get(key).await?.as_deref(), value);
            self.set(key, repeat_record(times, value), Some(ttl)).await?;
            Ok(times)
        })
    }
}

/// How many times in a row `value` has been recorded, given the stored record.
pub(crate) fn repeated(stored: Option<&[u8]>, value: &[u8]) -> u32 {
    let Some(stored) = stored else { return 1 };
    let Some(newline) = stored.iter().position(|&b| b == b'\n') else { return 1 };
    if &stored[newline + 1..] != value {
        return 1;
    }
    std::str::from_utf8(&stored[..newline]).ok().and_then(|n| n.parse::<u32>().ok()).map_or(1, |n| n.saturating_add(1))
}

/// The stored record of [`Store::repeat`]: `count\nvalue`.
pub(crate) fn repeat_record(times: u32, value: &[u8]) -> Vec<u8> {
    let mut record = times.to_string().into_bytes();
    record.push(b'\n');
    record.extend_from_slice(value);
    record
}

/// A shared store is a store (`Arc<dyn Store>` can be handed to several hooks).
impl<S: Store + ?Sized> Store for Arc<S> {
    fn hit<'a>(
        &'a self,
        key: &'a str,
        window: Duration,
        limit: u32,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Hit, StoreError>> {
        (**self).hit(key, window, limit, now)
    }
    fn incr<'a>(&'a self, key: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<u64, StoreError>> {
        (**self).incr(key, ttl)
    }
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        (**self).get(key)
    }
    fn set<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).set(key, value, ttl)
    }
    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).set_if_absent(key, value, ttl)
    }
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).delete(key)
    }
    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        (**self).take(key)
    }
    fn keys<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        (**self).keys(prefix)
    }
    fn repeat<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> BoxFuture<'a, Result<u32, StoreError>> {
        (**self).repeat(key, value, ttl)
    }
}

/// A [`Store`] in this process's memory: a map behind a mutex. Expired entries are
/// dropped when they are next read, and all of them every 1024 operations, so keys that
/// are never read again (a finished session's window) do not pile up.
///
/// Clones share the same map.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use toolkit::hooks::{Cache, RateLimit, store::{MemoryStore, Store}};
///
/// let shared: Arc<dyn Store> = Arc::new(MemoryStore::new());
/// let cache = Cache::ttl(Duration::from_secs(60)).store(Arc::clone(&shared));
/// let limit = RateLimit::per_tool(10, Duration::from_secs(60)).store(shared);
/// # drop((cache, limit));
/// ```
#[derive(Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Entries>>,
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore").field("entries", &self.lock().map.len()).finish()
    }
}

#[derive(Default)]
struct Entries {
    map: HashMap<String, Entry>,
    ops: u32,
    /// The most bytes of keys and values to keep ([`MemoryStore::with_max_bytes`]).
    max_bytes: Option<usize>,
    /// Bytes of keys and values written with `set` since the store's size was last
    /// counted (an overestimate of what it holds: removals are not subtracted).
    written: usize,
}

impl Entries {
    /// Counts what the store holds; past `max`, drops the entries that expire soonest
    /// (those that never expire last) until it holds three quarters of `max`.
    fn shrink(&mut self, max: usize, now: Instant) {
        self.map.retain(|_, e| e.live(now));
        let size = |key: &String, e: &Entry| {
            key.len()
                + match &e.data {
                    Data::Bytes(bytes) => bytes.len(),
                    Data::Window(hits) => hits.len() * std::mem::size_of::<SystemTime>(),
                }
        };
        let mut total: usize = self.map.iter().map(|(k, e)| size(k, e)).sum();
        if total > max {
            let mut order: Vec<(Option<Instant>, String, usize)> =
                self.map.iter().map(|(k, e)| (e.expires, k.clone(), size(k, e))).collect();
            order.sort_unstable_by_key(|(expires, _, _)| (expires.is_none(), *expires));
            for (_, key, bytes) in order {
                if total <= max / 4 * 3 {
                    break;
                }
                self.map.remove(&key);
                total -= bytes;
            }
        }
        self.written = total;
    }
}

struct Entry {
    data: Data,
    /// `None`: never (no time to live, or one longer than the clock can count).
    expires: Option<Instant>,
}

enum Data {
    Bytes(Vec<u8>),
    /// The times of the hits in a window, oldest first.
    Window(VecDeque<SystemTime>),
}

impl Entry {
    fn live(&self, at: Instant) -> bool {
        self.expires.is_none_or(|e| e > at)
    }
}

const SWEEP_EVERY: u32 = 1024;

impl MemoryStore {
    /// An empty store, unbounded (expired entries still go).
    pub fn new() -> Self {
        MemoryStore::default()
    }

    /// Keeps at most about `bytes` of keys and values: when more has been written, the
    /// entries that expire soonest (those that never expire last) are dropped until it
    /// holds three quarters of `bytes`. [`Cache`](crate::hooks::Cache)'s own store keeps
    /// 64 MiB. For a store of counters and windows shared with a rate limit, leave it
    /// unbounded: dropping a window would forget its hits.
    pub fn with_max_bytes(self, bytes: usize) -> Self {
        self.lock().max_bytes = Some(bytes);
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // The map is consistent after every operation, so a poisoned lock is usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the live entry of `key` (expired ones are removed first).
    fn with<R>(&self, key: &str, f: impl FnOnce(&mut HashMap<String, Entry>, Instant) -> R) -> R {
        self.with_entries(key, |entries, now| f(&mut entries.map, now))
    }

    /// Runs `f` on the entries under the lock, `key` gone if it has expired (and every
    /// expired entry, every [`SWEEP_EVERY`] operations).
    fn with_entries<R>(&self, key: &str, f: impl FnOnce(&mut Entries, Instant) -> R) -> R {
        let mut entries = self.lock();
        let now = Instant::now();
        entries.ops += 1;
        if entries.ops >= SWEEP_EVERY {
            entries.ops = 0;
            entries.map.retain(|_, e| e.live(now));
        } else if entries.map.get(key).is_some_and(|e| !e.live(now)) {
            entries.map.remove(key);
        }
        f(&mut entries, now)
    }

    fn hit_now(&self, key: &str, window: Duration, limit: u32, now: SystemTime) -> Result<Hit, StoreError> {
        self.with(key, |map, at| {
            let entry = map
                .entry(key.to_owned())
                .or_insert_with(|| Entry { data: Data::Window(VecDeque::new()), expires: None });
            if !matches!(entry.data, Data::Window(_)) {
                entry.data = Data::Window(VecDeque::new());
            }
            let Data::Window(hits) = &mut entry.data else { unreachable!("just made a window") };
            // A window too long for the clock (`Duration::MAX`) keeps every hit.
            while hits.front().is_some_and(|&t| t.checked_add(window).is_some_and(|end| end <= now)) {
                hits.pop_front();
            }
            if hits.len() >= limit as usize {
                let oldest = hits.front().copied().unwrap_or(now);
                let retry_after =
                    oldest.checked_add(window).map_or(Duration::MAX, |end| end.duration_since(now).unwrap_or_default());
                return Ok(Hit::Limited { retry_after });
            }
            hits.push_back(now);
            entry.expires = at.checked_add(window);
            Ok(Hit::Allowed { count: hits.len() as u32 })
        })
    }

    fn incr_now(&self, key: &str, ttl: Option<Duration>) -> Result<u64, StoreError> {
        self.with(key, |map, at| {
            let entry =
                map.entry(key.to_owned()).or_insert_with(|| Entry { data: Data::Bytes(b"0".to_vec()), expires: None });
            let Data::Bytes(bytes) = &mut entry.data else {
                return Err(StoreError::new(format!("`{key}` holds a window, not a counter")));
            };
            let n: u64 = std::str::from_utf8(bytes)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| StoreError::new(format!("`{key}` does not hold a counter")))?;
            let n = n + 1;
            *bytes = n.to_string().into_bytes();
            entry.expires = ttl.and_then(|ttl| at.checked_add(ttl));
            Ok(n)
        })
    }

    fn get_now(&self, key: &str) -> Option<Vec<u8>> {
        self.with(key, |map, _| match map.get(key) {
            Some(Entry { data: Data::Bytes(bytes), .. }) => Some(bytes.clone()),
            _ => None,
        })
    }

    fn set_now(&self, key: &str, value: Vec<u8>, ttl: Option<Duration>, only_if_absent: bool) -> bool {
        self.with_entries(key, |entries, at| {
            if only_if_absent && entries.map.contains_key(key) {
                return false;
            }
            let written = key.len() + value.len();
            entries.map.insert(
                key.to_owned(),
                Entry { data: Data::Bytes(value), expires: ttl.and_then(|ttl| at.checked_add(ttl)) },
            );
            if let Some(max) = entries.max_bytes {
                entries.written = entries.written.saturating_add(written);
                if entries.written > max {
                    entries.shrink(max, at);
                }
            }
            true
        })
    }
}

impl Store for MemoryStore {
    fn hit<'a>(
        &'a self,
        key: &'a str,
        window: Duration,
        limit: u32,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Hit, StoreError>> {
        let hit = self.hit_now(key, window, limit, now);
        Box::pin(std::future::ready(hit))
    }

    fn incr<'a>(&'a self, key: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<u64, StoreError>> {
        let n = self.incr_now(key, ttl);
        Box::pin(std::future::ready(n))
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        let value = self.get_now(key);
        Box::pin(std::future::ready(Ok(value)))
    }

    fn set<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>> {
        self.set_now(key, value, ttl, false);
        Box::pin(std::future::ready(Ok(())))
    }

    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let set = self.set_now(key, value, ttl, true);
        Box::pin(std::future::ready(Ok(set)))
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.lock().map.remove(key);
        Box::pin(std::future::ready(Ok(())))
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        let taken = self.with(key, |map, _| match map.remove(key) {
            Some(Entry { data: Data::Bytes(bytes), .. }) => Some(bytes),
            Some(other) => {
                // A window is no value: leave it where it was.
                map.insert(key.to_owned(), other);
                None
            }
            None => None,
        });
        Box::pin(std::future::ready(Ok(taken)))
    }

    fn keys<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        let now = Instant::now();
        let keys = self
            .lock()
            .map
            .iter()
            .filter(|(k, e)| k.starts_with(prefix) && e.live(now))
            .map(|(k, _)| k.clone())
            .collect();
        Box::pin(std::future::ready(Ok(keys)))
    }

    fn repeat<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> BoxFuture<'a, Result<u32, StoreError>> {
        let times = self.with(key, |map, at| {
            let stored = match map.get(key) {
                Some(Entry { data: Data::Bytes(bytes), .. }) => Some(bytes.as_slice()),
                _ => None,
            };
            let times = repeated(stored, value);
            map.insert(
                key.to_owned(),
                Entry { data: Data::Bytes(repeat_record(times, value)), expires: at.checked_add(ttl) },
            );
            times
        });
        Box::pin(std::future::ready(Ok(times)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now<T>(f: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(f).expect("the memory store never waits")
    }

    #[test]
    fn a_sliding_window_admits_up_to_the_limit_and_says_when_to_retry() {
        let store = MemoryStore::new();
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let w = Duration::from_secs(60);
        assert_eq!(now(store.hit("k", w, 2, t0)).unwrap(), Hit::Allowed { count: 1 });
        assert_eq!(now(store.hit("k", w, 2, t0 + Duration::from_secs(10))).unwrap(), Hit::Allowed { count: 2 });
        assert_eq!(
            now(store.hit("k", w, 2, t0 + Duration::from_secs(20))).unwrap(),
            Hit::Limited { retry_after: Duration::from_secs(40) }
        );
        // The first hit has left the window; the refused one was never counted.
        assert_eq!(now(store.hit("k", w, 2, t0 + Duration::from_secs(60))).unwrap(), Hit::Allowed { count: 2 });
        assert_eq!(now(store.hit("other", w, 2, t0)).unwrap(), Hit::Allowed { count: 1 });
    }

    #[test]
    fn counters_and_values_expire() {
        let store = MemoryStore::new();
        assert_eq!(now(store.incr("n", None)).unwrap(), 1);
        assert_eq!(now(store.incr("n", None)).unwrap(), 2);
        assert_eq!(now(store.get("n")).unwrap().as_deref(), Some(&b"2"[..]));
        assert!(now(store.set_if_absent("p", vec![1], Some(Duration::ZERO))).unwrap());
        // A zero TTL has already expired: the key is absent again.
        assert_eq!(now(store.get("p")).unwrap(), None);
        assert!(now(store.set_if_absent("p", vec![1], None)).unwrap());
        assert!(!now(store.set_if_absent("p", vec![2], None)).unwrap());
        now(store.delete("p")).unwrap();
        assert_eq!(now(store.get("p")).unwrap(), None);
    }
}
