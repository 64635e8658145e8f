//! Rate limiting: at most `n` calls of a tool per sliding window.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::duration_text::Readable;
use super::store::{Hit, MemoryStore, Store};
use crate::hook::{BeforeCall, BeforeHook, CallInfo, Decision, Hook, HookError, HookStep};

type KeyFn = dyn Fn(&CallInfo<'_>) -> String + Send + Sync;

/// A before hook that lets at most `n` calls of each tool through per sliding window
/// and blocks the rest with a reason that says when to try again:
/// ``rate limit: at most 5 calls to `search` per 60s; try again in 12s``.
///
/// Each tool has its own window; [`per_key`](RateLimit::per_key) splits them further
/// (per session, per agent, per user). A blocked call does not count. The windows live
/// in a [`Store`] (in memory unless [`store`](RateLimit::store) says otherwise); if the
/// store fails, the hook fails, and as a before hook it fails closed (the call is
/// blocked) unless the hook's policy is changed with
/// [`Hook::on_failure`](crate::Hook::on_failure).
///
/// Named `rate_limit`, priority 30.
///
/// ```
/// use std::time::Duration;
/// use toolkit::prelude::*;
/// use toolkit::hooks::RateLimit;
///
/// /// Search the web.
/// #[tool]
/// fn search(query: String) -> String { format!("results for {query}") }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![search].with_hook(RateLimit::per_tool(1, Duration::from_secs(60)));
/// let call = || ToolCall::new("1", "search", r#"{"query": "rust"}"#);
/// assert_eq!(tools.call(call()).await.content, "results for rust");
/// let second = tools.call(call()).await.content;
/// assert!(second.starts_with("blocked: rate limit: at most 1 call to `search` per 60s; try again in "), "{second}");
/// # }
/// ```
#[derive(Clone)]
pub struct RateLimit {
    name: Cow<'static, str>,
    limit: u32,
    window: Duration,
    key: Option<Arc<KeyFn>>,
    store: Arc<dyn Store>,
}

impl fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimit")
            .field("name", &self.name)
            .field("limit", &self.limit)
            .field("window", &self.window)
            .field("per_key", &self.key.is_some())
            .finish()
    }
}

impl RateLimit {
    /// At most `limit` calls of each tool in any `window`.
    pub fn per_tool(limit: u32, window: Duration) -> Self {
        RateLimit { name: Cow::Borrowed("rate_limit"), limit, window, key: None, store: Arc::new(MemoryStore::new()) }
    }

    /// Keeps a separate window per value of `key` (and tool).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::hooks::RateLimit;
    /// let per_user = RateLimit::per_tool(5, Duration::from_secs(60))
    ///     .per_key(|call| call.agent().unwrap_or("anonymous").to_owned());
    /// # drop(per_user);
    /// ```
    pub fn per_key<F>(mut self, key: F) -> Self
    where
        F: Fn(&CallInfo<'_>) -> String + Send + Sync + 'static,
    {
        self.key = Some(Arc::new(key));
        self
    }

    /// A window per session (the [`Scope`](crate::Scope)'s session label; calls without
    /// one share a window).
    pub fn per_session(self) -> Self {
        self.per_key(|call| call.session().unwrap_or_default().to_owned())
    }

    /// A window per agent (the [`Scope`](crate::Scope)'s agent label).
    pub fn per_agent(self) -> Self {
        self.per_key(|call| call.agent().unwrap_or_default().to_owned())
    }

    /// Keeps the windows in `store` (shared with other hooks or processes).
    pub fn store(mut self, store: impl Store) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Sets the hook's name (default `rate_limit`); it is also part of the store keys.
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }
}

impl BeforeHook for RateLimit {
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        let tool = call.tool();
        let mut key = format!("toolkit:{}:{tool}", self.name);
        if let Some(extra) = &self.key {
            key.push(':');
            key.push_str(&extra(call));
        }
        let now = SystemTime::now();
        HookStep::Pending(Box::pin(async move {
            match self.store.hit(&key, self.window, self.limit, now).await.map_err(HookError::new)? {
                Hit::Allowed { .. } => Ok(Decision::Continue),
                Hit::Limited { retry_after } => Ok(Decision::Block(format!(
                    "rate limit: at most {} call{} to `{tool}` per {}; try again in {}",
                    self.limit,
                    if self.limit == 1 { "" } else { "s" },
                    Readable(self.window),
                    Readable(retry_after)
                ))),
            }
        }))
    }
}

impl From<RateLimit> for Hook {
    fn from(limit: RateLimit) -> Hook {
        Hook::new(limit.name.clone()).priority(30).on_before(limit)
    }
}
