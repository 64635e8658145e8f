//! `retries = N` and `backoff = "..."`: the retry policy of a tool, which only a tool
//! that is safe to run again may have.

use super::parse::ToolOptions;
use crate::errors::Errors;
use crate::shared::duration::{TIMEOUT_UNITS, parse_timeout};

/// The pause before a first retry when `backoff` is not given.
const DEFAULT_BACKOFF_MS: u64 = 200;

/// `retries = N` and `backoff = "..."`: a policy only a tool that is safe to run again
/// may have.
pub fn retry_policy(options: &ToolOptions, errors: &mut Errors) -> Option<(u32, u64)> {
    let backoff_ms = options.backoff.as_ref().and_then(|lit| match parse_timeout(&lit.value()) {
        Some(ms) => Some(ms),
        None => {
            errors.at(
                lit,
                format!("invalid `backoff`: write a positive number and a unit, {TIMEOUT_UNITS}, such as \"200ms\" or \"1s\""),
            );
            None
        }
    });
    let Some(lit) = &options.retries else {
        if let Some(backoff) = &options.backoff {
            errors.at(backoff, "`backoff` is the pause before a retry, and this tool has no `retries`: add `retries = 3` (or remove `backoff`)");
        }
        return None;
    };
    let retries = match lit.base10_parse::<u32>() {
        Ok(0) => {
            errors
                .at(lit, "`retries = 0` retries nothing: remove it, or give how many times a failed call is run again");
            return None;
        }
        Ok(n) if n > MAX_RETRIES => {
            errors.at(lit, format!("`retries = {n}` is more than {MAX_RETRIES}: a call that failed that often will not succeed by waiting; retry less and let the model decide"));
            return None;
        }
        Ok(n) => n,
        Err(_) => {
            errors.at(lit, "`retries` is a whole number of retries, like `retries = 3`");
            return None;
        }
    };
    if options.destructive.is_present() {
        errors.at(lit, "a `destructive` tool is never retried: running it again could destroy more; remove `retries`");
        return None;
    }
    if !options.read_only.is_present() && !options.idempotent.is_present() {
        errors.at(
            lit,
            "`retries` runs a failed call again, which is safe only for a tool without effects or whose effect happens once: declare it `read_only` or `idempotent` if it is, or remove `retries`",
        );
        return None;
    }
    Some((retries, backoff_ms.unwrap_or(DEFAULT_BACKOFF_MS)))
}

/// The most retries a tool may declare.
const MAX_RETRIES: u32 = 10;
