//! A [`Store`] on Redis (feature `redis`): the stateful hooks' state shared by every
//! process that points at the same server.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use futures_util::future::BoxFuture;
use redis::aio::MultiplexedConnection;
use redis::{Client, RedisError, Script};

use super::store::{Hit, Store, StoreError};

/// The longest time Redis is asked to keep anything, in milliseconds: 100 years. A
/// longer one (`Duration::MAX` as "forever") is clamped to it, since Redis refuses an
/// expiry past its clock's range; the window's scores stay exact doubles too.
const LONGEST_MS: u64 = 100 * 365 * 24 * 3600 * 1000;

/// `d` as Redis milliseconds: at least 1 (Redis refuses 0), at most [`LONGEST_MS`].
pub(super) fn redis_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).clamp(1, LONGEST_MS)
}

/// The sliding window of [`Store::hit`], in one round trip: trim, count, add, expire.
/// Times are the Redis server's clock (microseconds), so replicas on machines whose
/// clocks differ still share one window.
const HIT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1]) * 1000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return {1, count + 1}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
";

/// [`Store::incr`] and its expiry, in one round trip.
const INCR: &str = r"
local v = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return v
";

/// [`Store::repeat`], in one round trip.
const REPEAT: &str = r"
local cur = redis.call('GET', KEYS[1])
local n = 1
if cur then
  local sep = string.find(cur, '\n', 1, true)
  if sep and string.sub(cur, sep + 1) == ARGV[1] then
    n = (tonumber(string.sub(cur, 1, sep - 1)) or 0) + 1
  end
end
redis.call('SET', KEYS[1], n .. '\n' .. ARGV[1], 'PX', ARGV[2])
return n
";

/// Shared state on a Redis server (or Valkey, or anything speaking RESP).
///
/// Every operation is one round trip and atomic: the sliding window of
/// [`RateLimit`](super::RateLimit) is one Lua script (trim, count, add, expire, on the
/// server's clock), a counter with its expiry another, the repeat count of
/// [`LoopGuard`](super::LoopGuard) a third; the rest are single commands (`GET`,
/// `SET PX`, `SET NX PX`, `DEL`). Scripts are sent once and then called by SHA.
///
/// - **Keys** are the hooks' own (`toolkit:{hook}:{tool}:…`), behind an optional prefix
///   ([`with_prefix`](RedisStore::with_prefix)) so several deployments can share one
///   server. Each operation touches one key, so Redis Cluster works without hash tags.
/// - **Every key expires**: a value the hook stores without a time to live gets
///   [`with_default_ttl`](RedisStore::with_default_ttl) (24 h by default), so the
///   server never grows without bound.
/// - **Bounded waits**: each operation gives up after
///   [`with_timeout`](RedisStore::with_timeout) (50 ms by default) with a
///   [`StoreError`]; no call waits longer than that on the store, whether Redis is
///   down, restarting or slow. The hook then follows its failure policy: the circuit
///   breaker and the cache fail open (the call goes on), the rate limit fails closed
///   (the call is blocked) unless its hook is given `on_failure(OnFailure::Continue)`;
///   the call's record shows the hook as failed, with the store's error.
/// - **Reconnection** is automatic: one multiplexed connection is shared by all calls;
///   when it breaks it is dropped, and the next operation connects again (within its
///   timeout). Opening the store does not need Redis to be up, and the first call after
///   Redis returns works (there is no backoff to wait out).
///
/// ```no_run
/// use std::time::Duration;
/// use toolkit::hooks::{Cache, CircuitBreaker, RateLimit, RedisStore};
///
/// # fn run() -> Result<(), toolkit::hooks::store::StoreError> {
/// let redis = RedisStore::open("redis://127.0.0.1:6379/")?.with_prefix("myapp");
/// let limit = RateLimit::per_tool(100, Duration::from_secs(60)).store(redis.clone());
/// let breaker = CircuitBreaker::after(5).store(redis.clone());
/// let cache = Cache::ttl(Duration::from_secs(300)).store(redis);
/// # drop((limit, breaker, cache)); Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    link: Arc<Link>,
    prefix: Arc<str>,
    timeout: Duration,
    default_ttl: Duration,
    scripts: Arc<Scripts>,
}

/// The client and its current connection (none until the first operation, and after a
/// connection error).
struct Link {
    client: Client,
    connection: tokio::sync::Mutex<Option<MultiplexedConnection>>,
}

impl Link {
    async fn connection(&self) -> Result<MultiplexedConnection, RedisError> {
        let mut current = self.connection.lock().await;
        if let Some(connection) = current.as_ref() {
            return Ok(connection.clone());
        }
        let connection = self.client.get_multiplexed_async_connection().await?;
        *current = Some(connection.clone());
        Ok(connection)
    }

    /// Forgets a connection that failed, so the next operation makes a new one.
    async fn failed(&self, error: &RedisError) {
        if error.is_io_error()
            || error.is_connection_dropped()
            || error.is_connection_refusal()
            || error.is_unrecoverable_error()
        {
            *self.connection.lock().await = None;
        }
    }
}

struct Scripts {
    hit: Script,
    incr: Script,
    repeat: Script,
    /// Makes each window entry unique (with the server's time).
    members: AtomicU64,
    process: u64,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .field("default_ttl", &self.default_ttl)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store on the server at `url` (`redis://host:port/db`, `rediss://` for TLS if the
    /// `redis` crate is built with it). Connects in the background: this fails only for
    /// a malformed URL, not when the server is down.
    pub fn open(url: &str) -> Result<RedisStore, StoreError> {
        let client = Client::open(url).map_err(|e| StoreError::new(format!("invalid Redis URL `{url}`: {e}")))?;
        let timeout = Duration::from_millis(50);
        let link = Arc::new(Link { client, connection: tokio::sync::Mutex::new(None) });
        let process = u64::from(std::process::id()) << 32
            ^ SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        Ok(RedisStore {
            link,
            prefix: Arc::from(""),
            timeout,
            default_ttl: Duration::from_secs(24 * 3600),
            scripts: Arc::new(Scripts {
                hit: Script::new(HIT),
                incr: Script::new(INCR),
                repeat: Script::new(REPEAT),
                members: AtomicU64::new(0),
                process,
            }),
        })
    }

    /// Puts `prefix:` before every key (default: none; the hooks' keys start with
    /// `toolkit:`).
    pub fn with_prefix(mut self, prefix: impl AsRef<str>) -> Self {
        let prefix = prefix.as_ref();
        self.prefix = if prefix.is_empty() { Arc::from("") } else { Arc::from(format!("{prefix}:")) };
        self
    }

    /// How long one operation may take before it fails (default 50 ms).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The time to live of values stored without one (default 24 h).
    pub fn with_default_ttl(mut self, ttl: Duration) -> Self {
        self.default_ttl = ttl;
        self
    }

    pub(super) fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    fn ttl_ms(&self, ttl: Option<Duration>) -> u64 {
        redis_ms(ttl.unwrap_or(self.default_ttl))
    }

    /// Runs one operation (connecting first if needed) within the store's timeout.
    pub(super) async fn bounded<T, F, Fut>(&self, what: &str, op: F) -> Result<T, StoreError>
    where
        F: FnOnce(MultiplexedConnection) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        let attempt = async {
            let connection = self.link.connection().await?;
            op(connection).await
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => {
                self.link.failed(&e).await;
                Err(StoreError::new(format!("Redis {what} failed: {e}")))
            }
            Err(_) => Err(StoreError::new(format!("Redis {what} did not answer within {:?}", self.timeout))),
        }
    }
}

impl Store for RedisStore {
    fn hit<'a>(
        &'a self,
        key: &'a str,
        window: Duration,
        limit: u32,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<Hit, StoreError>> {
        Box::pin(async move {
            let member = self.scripts.members.fetch_add(1, Ordering::Relaxed);
            let mut invocation = self.scripts.hit.key(self.key(key));
            invocation.arg(self.ttl_ms(Some(window))).arg(limit).arg(format!("{:x}-{member}", self.scripts.process));
            let (allowed, value): (i64, i64) =
                self.bounded("hit", |mut c| async move { invocation.invoke_async(&mut c).await }).await?;
            Ok(if allowed == 1 {
                Hit::Allowed { count: u32::try_from(value).unwrap_or(u32::MAX) }
            } else {
                Hit::Limited { retry_after: Duration::from_micros(u64::try_from(value).unwrap_or(0)) }
            })
        })
    }

    fn incr<'a>(&'a self, key: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(async move {
            let mut invocation = self.scripts.incr.key(self.key(key));
            invocation.arg(self.ttl_ms(ttl));
            self.bounded("incr", |mut c| async move { invocation.invoke_async(&mut c).await }).await
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        Box::pin(async move {
            let command = redis::cmd("GET").arg(self.key(key)).to_owned();
            self.bounded("get", |mut c| async move { command.query_async(&mut c).await }).await
        })
    }

    fn set<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let command = redis::cmd("SET").arg(self.key(key)).arg(value).arg("PX").arg(self.ttl_ms(ttl)).to_owned();
            self.bounded("set", |mut c| async move { command.query_async(&mut c).await }).await
        })
    }

    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let command =
                redis::cmd("SET").arg(self.key(key)).arg(value).arg("NX").arg("PX").arg(self.ttl_ms(ttl)).to_owned();
            let set: Option<String> =
                self.bounded("set_if_absent", |mut c| async move { command.query_async(&mut c).await }).await?;
            Ok(set.is_some())
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let command = redis::cmd("DEL").arg(self.key(key)).to_owned();
            self.bounded("delete", |mut c| async move { command.query_async::<i64>(&mut c).await }).await.map(|_| ())
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        Box::pin(async move {
            let command = redis::cmd("GETDEL").arg(self.key(key)).to_owned();
            self.bounded("take", |mut c| async move { command.query_async(&mut c).await }).await
        })
    }

    fn keys<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            // The prefix as a glob: its own `*`, `?`, `[`, `]` and `\` match themselves.
            let mut pattern = String::new();
            for c in self.key(prefix).chars() {
                if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                    pattern.push('\\');
                }
                pattern.push(c);
            }
            pattern.push('*');
            let mut keys = Vec::new();
            let mut cursor: u64 = 0;
            // Each page within the timeout; at most 100,000 pages.
            for _ in 0..100_000 {
                let command =
                    redis::cmd("SCAN").arg(cursor).arg("MATCH").arg(&pattern).arg("COUNT").arg(1000).to_owned();
                let (next, page): (u64, Vec<String>) =
                    self.bounded("keys", |mut c| async move { command.query_async(&mut c).await }).await?;
                keys.extend(page.into_iter().filter_map(|k| k.strip_prefix(&*self.prefix).map(str::to_owned)));
                if next == 0 {
                    keys.sort_unstable();
                    keys.dedup();
                    return Ok(keys);
                }
                cursor = next;
            }
            Err(StoreError::new("Redis keys: the scan did not end"))
        })
    }

    fn repeat<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> BoxFuture<'a, Result<u32, StoreError>> {
        Box::pin(async move {
            let mut invocation = self.scripts.repeat.key(self.key(key));
            invocation.arg(value).arg(self.ttl_ms(Some(ttl)));
            self.bounded("repeat", |mut c| async move { invocation.invoke_async(&mut c).await }).await
        })
    }
}
