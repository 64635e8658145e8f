//! Durations as the model reads them in a block reason: `60s`, `200ms`, `12s`.

use std::fmt;
use std::time::Duration;

/// A duration written for a reader: whole milliseconds below a second, whole seconds
/// (rounded up, so "try again in" is never too early) from one second on.
pub(crate) struct Readable(pub(crate) Duration);

impl fmt::Display for Readable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        if d < Duration::from_secs(1) {
            let ms = d.as_nanos().div_ceil(1_000_000).max(1);
            return write!(f, "{ms}ms");
        }
        let secs = d.as_nanos().div_ceil(1_000_000_000);
        write!(f, "{secs}s")
    }
}

#[cfg(test)]
mod tests {
    use super::Readable;
    use std::time::Duration;

    #[test]
    fn rounds_up() {
        assert_eq!(Readable(Duration::from_secs(60)).to_string(), "60s");
        assert_eq!(Readable(Duration::from_millis(200)).to_string(), "200ms");
        assert_eq!(Readable(Duration::from_millis(11_200)).to_string(), "12s");
        assert_eq!(Readable(Duration::from_nanos(10)).to_string(), "1ms");
    }
}
