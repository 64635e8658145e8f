//! `#[arg(format = "...")]`: the formats checked when parsing, each by its grammar.
//!
//! Only formats with a short, exact grammar are checked: `date-time`, `date` and `time`
//! (RFC 3339 section 5.6, as JSON Schema defines them), `ipv4` and `ipv6` (the standard
//! library's parsers, which follow RFC 2673 and RFC 4291) and `uuid` (RFC 9562's hex
//! form). Any other format (`email`, `uri`, `hostname`, ...) is only published in the
//! schema: a check that is not exact would refuse values the tool could take.
//!
//! The macro crate repeats these grammars (`toolkit-macros/src/tool/formats.rs`) to check
//! a literal `default` at compile time; `tests/format_grammars.rs` holds the two to one
//! text.

#![allow(missing_docs)]

#[allow(unused_imports)]
use super::*;

/// A checked format: what it is called in a message, an example, and its test.
struct Format {
    name: &'static str,
    what: &'static str,
    example: &'static str,
    test: fn(&str) -> bool,
}

const CHECKED: &[Format] = &[
    Format { name: "date-time", what: "an RFC 3339 date-time", example: "2024-05-01T09:30:00Z", test: is_date_time },
    Format { name: "date", what: "an RFC 3339 date", example: "2024-05-01", test: is_date },
    Format { name: "time", what: "an RFC 3339 time with its offset", example: "09:30:00Z", test: is_time },
    Format { name: "ipv4", what: "an IPv4 address", example: "192.0.2.1", test: is_ipv4 },
    Format { name: "ipv6", what: "an IPv6 address", example: "2001:db8::1", test: is_ipv6 },
    Format { name: "uuid", what: "a UUID", example: "67e55044-10b1-426f-9247-bb680e5fe0c8", test: is_uuid },
];

/// `format`: the string is in the format, when the format is one that is checked (see
/// the module's documentation); any other format passes.
pub fn check_format<T: Text>(field: &'static str, value: &T, format: &str) -> Result<(), Violation> {
    let (Some(s), Some(f)) = (value.text(), CHECKED.iter().find(|f| f.name == format)) else {
        return Ok(());
    };
    if (f.test)(s) {
        return Ok(());
    }
    Err(Violation { field, rule: format!("must be {} like {} (got {s:?})", f.what, f.example) })
}

// grammar: begin. This text, to `grammar: end`, is the same in toolkit-macros/src/tool/formats.rs
// and toolkit/src/__private/formats.rs (tests/format_grammars.rs checks it): change both.
/// `n` ASCII digits at the start of `s`, as a number, and the rest.
fn digits(s: &[u8], n: usize) -> Option<(u32, &[u8])> {
    if s.len() < n || !s[..n].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = s[..n].iter().fold(0, |v, d| v * 10 + u32::from(d - b'0'));
    Some((value, &s[n..]))
}

/// `s` without its first byte, if that is `byte`.
fn expect(s: &[u8], byte: u8) -> Option<&[u8]> {
    s.split_first().filter(|(b, _)| **b == byte).map(|(_, rest)| rest)
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a day that exists in that month.
fn full_date(s: &[u8]) -> Option<&[u8]> {
    let (year, s) = digits(s, 4)?;
    let (month, s) = digits(expect(s, b'-')?, 2)?;
    let (day, s) = digits(expect(s, b'-')?, 2)?;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&day).then_some(s)
}

/// RFC 3339 `full-time`: `HH:MM:SS[.frac]` and an offset (`Z` or `±HH:MM`). A leap
/// second (`:60`) is valid only at 23:59 UTC.
fn full_time(s: &[u8]) -> Option<()> {
    let (hour, s) = digits(s, 2)?;
    let (minute, s) = digits(expect(s, b':')?, 2)?;
    let (second, mut s) = digits(expect(s, b':')?, 2)?;
    if let Some(frac) = expect(s, b'.') {
        let n = frac.iter().take_while(|b| b.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        s = &frac[n..];
    }
    let offset: i64 = match s {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let (h, rest) = digits(rest, 2)?;
            let (m, rest) = digits(expect(rest, b':')?, 2)?;
            if !rest.is_empty() || h > 23 || m > 59 {
                return None;
            }
            let minutes = i64::from(h * 60 + m);
            if *sign == b'+' { minutes } else { -minutes }
        }
        _ => return None,
    };
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    if second == 60 {
        let utc = (i64::from(hour * 60 + minute) - offset).rem_euclid(24 * 60);
        if utc != 23 * 60 + 59 {
            return None;
        }
    }
    Some(())
}

fn is_date_time(s: &str) -> bool {
    full_date(s.as_bytes())
        .and_then(|rest| rest.split_first())
        .is_some_and(|(t, time)| matches!(t, b'T' | b't') && full_time(time).is_some())
}

fn is_date(s: &str) -> bool {
    full_date(s.as_bytes()).is_some_and(<[u8]>::is_empty)
}

fn is_time(s: &str) -> bool {
    full_time(s.as_bytes()).is_some()
}

fn is_ipv4(s: &str) -> bool {
    s.parse::<std::net::Ipv4Addr>().is_ok()
}

fn is_ipv6(s: &str) -> bool {
    s.parse::<std::net::Ipv6Addr>().is_ok()
}

/// `8-4-4-4-12` hexadecimal digits, either case.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_times() {
        for ok in [
            "1963-06-19T08:30:06.283185Z",
            "1963-06-19T08:30:06Z",
            "1937-01-01T12:00:27.87+00:20",
            "1990-12-31T15:59:50.123-08:00",
            "1998-12-31T23:59:60Z",
            "1998-12-31T15:59:60.123-08:00",
            "1963-06-19t08:30:06.283185z",
            "2020-02-29T00:00:00Z",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "1998-12-31T23:58:60Z",
            "1998-12-31T22:59:60Z",
            "1990-02-31T15:59:59.123-08:00",
            "1990-12-31T15:59:59-24:00",
            "1963-06-19T08:30:06.Z",
            "1963-06-19 08:30:06Z",
            "1963-06-19T08:30:06",
            "06/19/1963 08:30:06 PST",
            "2013-350T01:01:01",
            "1963-6-19T08:30:06.283185Z",
            "1963-06-1\u{09ea}T00:00:00Z",
            "2021-02-29T00:00:00Z",
            "1963-06-19T08:30:06Z+00:30",
            "",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }

    #[test]
    fn dates_and_times() {
        assert!(is_date("2020-01-31") && is_date("2020-02-29") && is_date("2000-02-29"));
        for bad in ["2021-02-29", "1900-02-29", "2020-13-01", "2020-04-31", "1998-1-20", "2013-W01", "2020-01-01T"] {
            assert!(!is_date(bad), "{bad}");
        }
        for ok in ["08:30:06Z", "23:59:60Z", "01:29:60+01:30", "15:59:60-08:00", "00:29:60-23:30", "08:30:06.5z"] {
            assert!(is_time(ok), "{ok}");
        }
        for bad in ["22:59:60Z", "23:59:60+01:00", "01:02:03+24:00", "01:02:03+00:60", "12:00:00", "01:01:01,1111"] {
            assert!(!is_time(bad), "{bad}");
        }
    }

    #[test]
    fn addresses_and_uuids() {
        assert!(is_ipv4("192.168.0.1") && !is_ipv4("087.10.0.1") && !is_ipv4("192.168.0.0/24"));
        assert!(is_ipv6("::1") && is_ipv6("::ffff:192.0.2.1") && !is_ipv6("fe80::a%eth1") && !is_ipv6("12345::"));
        assert!(is_uuid("2EB8AA08-AA98-11EA-B4AA-73B441D16380") && is_uuid("2eb8aa08-aa98-11ea-b4aa-73b441d16380"));
        assert!(!is_uuid("2eb8aa08aa9811eab4aa73b441d16380") && !is_uuid("2eb8aa08-aa98-11ea-b4aa-73b441d1638g"));
    }
    // grammar: end

    #[test]
    fn the_message_names_the_format_and_an_example() {
        let v = check_format("when", &String::from("tomorrow"), "date-time").unwrap_err();
        assert_eq!(v.to_string(), r#"`when` must be an RFC 3339 date-time like 2024-05-01T09:30:00Z (got "tomorrow")"#);
        assert!(check_format("mail", &String::from("not an address"), "email").is_ok());
        assert!(check_format("when", &None::<String>, "date").is_ok());
    }
}
