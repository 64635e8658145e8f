//! Durations written in attributes: `timeout = "10s"`, `backoff = "200ms"`.

/// The units a `timeout` takes, as the `#[tool]` and `#[hook]` docs list them.
pub const TIMEOUT_UNITS: &str = "`ms`, `s` (or `sec`, `secs`), `m` (or `min`, `mins`) or `h`";

/// `"10s"`, `"250ms"`, `"1.5s"`, `"2m"`, `"2 min"`, `"1h"` → milliseconds: a positive
/// number (decimals allowed) and one of [`TIMEOUT_UNITS`], a space between them or not;
/// at least a millisecond.
pub fn parse_timeout(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "ms" => 1.0,
        "s" | "sec" | "secs" => 1_000.0,
        "m" | "min" | "mins" => 60_000.0,
        "h" => 3_600_000.0,
        _ => return None,
    };
    let ms = number * scale;
    (ms.is_finite() && ms >= 1.0 && ms <= u64::MAX as f64).then_some(ms.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts() {
        assert_eq!(parse_timeout("10s"), Some(10_000));
        assert_eq!(parse_timeout("250ms"), Some(250));
        assert_eq!(parse_timeout("1.5s"), Some(1_500));
        assert_eq!(parse_timeout("2m"), Some(120_000));
        assert_eq!(parse_timeout("10 sec"), Some(10_000));
        assert_eq!(parse_timeout("2 min"), Some(120_000));
        assert_eq!(parse_timeout("3secs"), Some(3_000));
        assert_eq!(parse_timeout("1h"), Some(3_600_000));
        assert_eq!(parse_timeout("10 seconds"), None);
        assert_eq!(parse_timeout("1 hour"), None);
        assert_eq!(parse_timeout("0s"), None);
        assert_eq!(parse_timeout("ten seconds"), None);
        assert_eq!(parse_timeout("10"), None);
    }
}
