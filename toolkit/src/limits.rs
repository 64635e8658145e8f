//! The [`Limits`] a toolbox applies to every call.

use std::time::Duration;

/// Limits a toolbox applies to every call.
///
/// ```
/// use std::time::Duration;
/// let limits = toolkit::Limits { concurrency: 8, default_timeout: Some(Duration::from_secs(30)), ..Default::default() };
/// let tools = toolkit::Toolbox::new().with_limits(limits);
/// assert_eq!(tools.limits().concurrency, 8);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest arguments string accepted, in bytes (default 1 MiB).
    pub max_argument_bytes: usize,
    /// How many calls of one [`Toolbox::call_all`](crate::Toolbox::call_all) run at once
    /// (default 16).
    pub concurrency: usize,
    /// The timeout of tools that declare none (default: none).
    pub default_timeout: Option<Duration>,
    /// How many times an error hook's [`Recovery::Retry`](crate::hook::Recovery::Retry)
    /// may re-run a call (default 2; only tools declared `read_only` or `idempotent` are
    /// retried). A tool's declared [`RetryPolicy`](crate::RetryPolicy) may go past it:
    /// its `retries` are its own limit.
    pub max_retries: u32,
    /// The largest result accepted from a tool, in bytes: its text and the bytes of its
    /// [parts](crate::parts) together (default 20 MiB, under every provider's request
    /// limit). A larger result is an [`ErrorKind::ResultTooLarge`](crate::ErrorKind::ResultTooLarge)
    /// the model reads.
    pub max_result_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_argument_bytes: 1 << 20,
            concurrency: 16,
            default_timeout: None,
            max_retries: 2,
            max_result_bytes: 20 << 20,
        }
    }
}

impl Limits {
    /// No size limit: for arguments a hook rewrote (the size limit is the model's only).
    pub(crate) const UNLIMITED: Limits = Limits {
        max_argument_bytes: usize::MAX,
        concurrency: 16,
        default_timeout: None,
        max_retries: 2,
        max_result_bytes: 20 << 20,
    };
}
