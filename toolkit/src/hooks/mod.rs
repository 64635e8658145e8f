//! Built-in hooks: ready-made policies for tool calls (DESIGN §5).
//!
//! Each is configured with a small builder and becomes an ordinary [`Hook`](crate::Hook) through
//! `From` (pass it straight to [`Toolbox::with_hook`](crate::Toolbox::with_hook), or
//! `Hook::from(x)` to change its priority, failure policy, timeout or tool filter). Each
//! has a default name, changed with its `.name(..)` method.
//!
//! | built-in | events | name | priority | when it fails |
//! |---|---|---|---|---|
//! | [`CircuitBreaker`] | before, after, error | `circuit_breaker` | 60 | continue (its store is down: calls go on) |
//! | [`Retry`] | error | `retry` (`retries` for the tools that declare a policy) | 55 | continue |
//! | [`NormalizePaths`] | before | `normalize_paths` | 50 | block |
//! | [`PathSandbox`] | before | `path_sandbox` | 40 | block |
//! | [`LoopGuard`] | before | `loop_guard` | 35 | continue (its store is down: calls go on) |
//! | [`RateLimit`] | before | `rate_limit` | 30 | block (its store is down: calls wait for it) |
//! | [`Redactor`] | after | `redact` | 20 | block (unredacted text never reaches the model) |
//! | [`Truncate`] | after | `truncate` | -20 | continue |
//! | [`ApprovalGate`] | before | `approval` | -50 | block (no approver, no call) |
//! | [`Cache`] | before, after | `cache` | -100 | continue (a cache outage is a miss) |
//! | [`EffectLedger`] | before, after; error | `effect_ledger`; `effect_ledger:errors` | lowest; highest | block (no ledger, no promise of at most once) |
//!
//! Hooks run highest priority first, so the defaults give this order: a paused tool is
//! refused before anything else is spent on it; paths are made absolute, then checked;
//! repeats and rates are counted on the final arguments; a person is asked only about a
//! call every automatic check let through; the cache is keyed on the arguments as every
//! other before hook left them; the effect ledger writes "started" last of all, just
//! before the tool runs. On the way back, secrets are removed before the text is cut, so
//! a cut never leaves half a secret behind, and the ledger records the text last, as the
//! model sees it.
//!
//! The [`AuditLog`] is not a hook but a [`RecordSink`](crate::RecordSink): it must see
//! every call, including those a hook blocked and those naming no tool.
//!
//! Rate limit, circuit breaker, cache and effect ledger keep their state behind a
//! [`store::Store`]: in memory by default ([`MemoryStore`]), in a directory that outlives
//! the process ([`FileStore`]), shared (Redis) when several processes serve the same
//! tools.
//!
//! ```
//! use std::time::Duration;
//! use toolkit::prelude::*;
//! use toolkit::hooks::{Cache, PathSandbox, Redactor, Truncate};
//!
//! /// Read a file.
//! #[tool(read_only)]
//! fn read_file(path: String) -> String { format!("contents of {path}") }
//!
//! let tools = toolbox![read_file]
//!     .with_hook(PathSandbox::new().allow(std::env::temp_dir()))
//!     .with_hook(Cache::ttl(Duration::from_secs(60)))
//!     .with_hook(Redactor::new())
//!     .with_hook(Truncate::chars(10_000));
//! assert_eq!(tools.hooks().names(), ["path_sandbox", "redact", "truncate", "cache"]);
//! ```

mod approval;
mod audit_log;
mod cache;
mod carry;
mod circuit_breaker;
mod duration_text;
mod file_store;
mod ledger;
mod loop_guard;
mod normalize;
mod path_fields;
mod path_sandbox;
mod rate_limit;
mod redact;
#[cfg(feature = "redis")]
mod redis_approvals;
#[cfg(feature = "redis")]
mod redis_store;
mod retry;
#[cfg(feature = "fs")]
mod safe_dir;
pub mod store;
mod truncate;

pub use approval::{
    Approval, ApprovalError, ApprovalGate, ApprovalRequest, ApprovalResponder, Approver, ChannelApprover,
    ConsoleApprover, DenyAll,
};
pub use audit_log::{AuditError, AuditLog, AuditLogBuilder, Fsync, Rfc3339};
pub use cache::Cache;
pub use circuit_breaker::CircuitBreaker;
pub use file_store::FileStore;
pub use ledger::{EffectLedger, InDoubt, Reconciled};
pub use loop_guard::LoopGuard;
pub use normalize::NormalizePaths;
pub use path_fields::DEFAULT_PATH_FIELDS;
pub use path_sandbox::PathSandbox;
pub use rate_limit::RateLimit;
pub use redact::{PatternError, Redactor};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use redis_approvals::{PendingApproval, RedisApprovals};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use redis_store::RedisStore;
pub use retry::Retry;
pub(crate) use retry::{DECLARED as DECLARED_RETRY, Waited};
#[cfg(feature = "fs")]
#[cfg_attr(docsrs, doc(cfg(feature = "fs")))]
pub use safe_dir::{DirEntry, SafeDir};
pub use store::MemoryStore;
pub use truncate::Truncate;
