//! The checks a match must pass beyond its pattern: checksums (Luhn, IBAN mod-97,
//! national IDs), the shape of keys and tokens, and the judgement of whether
//! `name = value` holds a secret or is code, a look-up, a label or prose.

/// A number is on its own: not glued to ASCII letters or digits, and not one group of a
/// longer number (`1234 5678 9012 3456 7890`, `2024-555-0199`).
pub(super) fn isolated_number(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    if let Some(&before) = start.checked_sub(1).and_then(|i| bytes.get(i)) {
        if before.is_ascii_alphanumeric() || before == b'_' {
            return false;
        }
        let run = bytes[..start - 1].iter().rev().take_while(|b| b.is_ascii_digit()).count();
        // A time or a date before a space (`12:00:01 138...`) is not part of the number.
        let stamp = start - 1 > run && matches!(bytes[start - 2 - run], b':' | b'-' | b'/');
        let joined = match before {
            b'-' | b'.' | b'/' => run > 0,
            b' ' => run >= 2 && !stamp,
            _ => false,
        };
        if joined {
            return false;
        }
    }
    if let Some(&after) = bytes.get(end) {
        if after.is_ascii_alphanumeric() || after == b'_' {
            return false;
        }
        let next_digits = bytes[(end + 1).min(bytes.len())..].iter().take_while(|b| b.is_ascii_digit()).count();
        // A date or a time after a space (`… 2024-05-01`, `… 12:30`) is not part of it.
        let stamp =
            after == b' ' && next_digits > 0 && matches!(bytes.get(end + 1 + next_digits), Some(b'-' | b':' | b'/'));
        let joined = matches!(after, b'-' | b'.' | b'/' | b' ') && next_digits > 0 && !stamp;
        if joined {
            return false;
        }
    }
    true
}

fn digits(text: &str) -> Vec<u8> {
    text.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect()
}

/// The Luhn checksum every payment card number satisfies.
pub(super) fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 {
                let twice = d * 2;
                if twice > 9 { twice - 9 } else { twice }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// 13 to 19 digits, not all the same, passing Luhn; when written in groups, grouped as
/// cards are (4-4-4-4, 4-4-4-4-3, 4-6-5, 4-6-4) with one kind of separator.
pub(super) fn card(span: &str) -> bool {
    let d = digits(span);
    if !((13..=19).contains(&d.len()) && d.iter().any(|&x| x != d[0]) && luhn(&d)) {
        return false;
    }
    let sep = match (span.contains(' '), span.contains('-')) {
        (false, false) => return true,
        (true, true) => return false,
        (true, false) => ' ',
        (false, true) => '-',
    };
    let groups: Vec<usize> = span.split(sep).map(str::len).collect();
    match groups.as_slice() {
        [4, 6, 5] | [4, 6, 4] => true,
        [init @ .., last] => init.len() >= 3 && init.iter().all(|&g| g == 4) && (1..=4).contains(last),
        [] => false,
    }
}

/// IBAN lengths by country (the SWIFT registry).
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24),
    ("AE", 23),
    ("AL", 28),
    ("AT", 20),
    ("AZ", 28),
    ("BA", 20),
    ("BE", 16),
    ("BG", 22),
    ("BH", 22),
    ("BR", 29),
    ("CH", 21),
    ("CR", 22),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DK", 18),
    ("DO", 28),
    ("EE", 20),
    ("EG", 29),
    ("ES", 24),
    ("FI", 18),
    ("FO", 18),
    ("FR", 27),
    ("GB", 22),
    ("GE", 22),
    ("GI", 23),
    ("GL", 18),
    ("GR", 27),
    ("GT", 28),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IL", 23),
    ("IS", 26),
    ("IT", 27),
    ("JO", 30),
    ("KW", 30),
    ("KZ", 20),
    ("LB", 28),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("MC", 27),
    ("MD", 24),
    ("ME", 22),
    ("MK", 19),
    ("MR", 27),
    ("MT", 31),
    ("MU", 30),
    ("NL", 18),
    ("NO", 15),
    ("PK", 24),
    ("PL", 28),
    ("PS", 29),
    ("PT", 25),
    ("QA", 29),
    ("RO", 24),
    ("RS", 22),
    ("SA", 24),
    ("SE", 24),
    ("SI", 19),
    ("SK", 24),
    ("SM", 27),
    ("TN", 24),
    ("TR", 26),
    ("UA", 29),
    ("VG", 24),
    ("XK", 20),
];

/// The end of the IBAN that starts the span: its country's length in characters (single
/// spaces between groups allowed), a valid mod-97 checksum, and nothing alphanumeric
/// glued after it.
pub(super) fn iban(text: &str, start: usize, end: usize) -> Option<usize> {
    let span = &text.as_bytes()[start..end];
    let want = IBAN_LENGTHS.iter().find(|(cc, _)| cc.as_bytes() == &span[..2])?.1;
    let mut chars = Vec::with_capacity(want);
    let mut at = 0;
    while chars.len() < want && at < span.len() {
        if span[at] != b' ' {
            chars.push(span[at]);
        }
        at += 1;
    }
    if chars.len() < want || text.as_bytes().get(start + at).is_some_and(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    // Grouped IBANs are grouped by four from the start.
    if span[..at].contains(&b' ') && span[..at].split(|&b| b == b' ').rev().skip(1).any(|group| group.len() != 4) {
        return None;
    }
    let rearranged = chars[4..].iter().chain(&chars[..4]);
    let mut rest = 0u32;
    for &c in rearranged {
        let value = if c.is_ascii_digit() { u32::from(c - b'0') } else { u32::from(c - b'A') + 10 };
        rest = if value >= 10 { (rest * 100 + value) % 97 } else { (rest * 10 + value) % 97 };
    }
    (rest == 1).then_some(start + at)
}

/// An 18-character Chinese resident ID: ISO 7064 MOD 11-2 check character.
pub(super) fn cn_id(span: &str) -> bool {
    const WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let bytes = span.as_bytes();
    let sum: u32 = bytes[..17].iter().zip(WEIGHTS).map(|(&b, w)| u32::from(b - b'0') * w).sum();
    let check = b"10X98765432"[(sum % 11) as usize];
    bytes[17].to_ascii_uppercase() == check
}

/// A US social security number in the issued ranges (area not 000, 666 or 9xx; group
/// not 00; serial not 0000).
pub(super) fn ssn(span: &str) -> bool {
    let (area, rest) = span.split_at(3);
    let (group, serial) = (&rest[1..3], &rest[4..]);
    area != "000" && area != "666" && !area.starts_with('9') && group != "00" && serial != "0000"
}

/// A Brazilian CPF with both check digits right (and not all digits the same).
pub(super) fn cpf(span: &str) -> bool {
    let d: Vec<u32> = digits(span).into_iter().map(u32::from).collect();
    let check = |n: usize| {
        let sum: u32 = d[..n].iter().enumerate().map(|(i, x)| x * (n as u32 + 1 - i as u32)).sum();
        (sum * 10 % 11) % 10
    };
    d.iter().any(|&x| x != d[0]) && check(9) == d[9] && check(10) == d[10]
}

/// A Spanish DNI (8 digits and a letter) or NIE (X/Y/Z, 7 digits and a letter) with the
/// right control letter.
pub(super) fn dni(span: &str) -> bool {
    let span = span.replace('-', "");
    let (prefix, rest) = match span.as_bytes()[0] {
        b'X' => (0, &span[1..]),
        b'Y' => (1, &span[1..]),
        b'Z' => (2, &span[1..]),
        _ => (-1, &span[..]),
    };
    let (number, letter) = rest.split_at(rest.len() - 1);
    let expected_len = if prefix >= 0 { 7 } else { 8 };
    let Ok(n) = number.parse::<u64>() else { return false };
    if number.len() != expected_len {
        return false;
    }
    let n = if prefix >= 0 { prefix as u64 * 10_000_000 + n } else { n };
    b"TRWAGMYFPDXBNJZSQVHLCKE"[(n % 23) as usize] == letter.as_bytes()[0]
}

/// Between `min` and `max` digits.
pub(super) fn phone(span: &str, min: u8, max: u8) -> bool {
    let n = span.bytes().filter(u8::is_ascii_digit).count();
    (usize::from(min)..=usize::from(max)).contains(&n)
}

/// A provider key's body is random: a digit, or both cases.
pub(super) fn key_body(span: &str) -> bool {
    let body = span;
    body.bytes().any(|b| b.is_ascii_digit())
        || (body.bytes().any(|b| b.is_ascii_lowercase()) && body.bytes().any(|b| b.is_ascii_uppercase()))
}

/// The token after `Bearer`: a digit and 8+ characters, or 16+ characters.
pub(super) fn bearer(token: &str) -> bool {
    token.len() >= 16 || (token.len() >= 8 && token.bytes().any(|b| b.is_ascii_digit()))
}

/// The credentials after `Basic`: base64 of printable `user:password`.
pub(super) fn basic(token: &str) -> bool {
    let Some(decoded) = base64(token.trim_end_matches('=')) else { return false };
    let Ok(text) = std::str::from_utf8(&decoded) else { return false };
    text.len() >= 3 && text.contains(':') && !text.chars().any(char::is_control)
}

fn base64(text: &str) -> Option<Vec<u8>> {
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for b in text.bytes() {
        acc = (acc << 6) | u32::from(value(b)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// File extensions that follow `@` in asset names (`icon@2x.png`), not top-level domains.
const NOT_TLDS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "js", "mjs", "cjs", "ts", "tsx", "jsx", "css", "scss",
    "less", "json", "yaml", "yml", "toml", "lock", "html", "htm", "xml", "zip", "gz", "tar", "txt", "log", "pdf",
    "exe", "dll", "so", "wasm", "map",
];

/// An e-mail address, not an scp-style remote (`git@github.com:org/repo`) or an asset.
pub(super) fn email(text: &str, start: usize, end: usize) -> bool {
    let span = &text[start..end];
    // `https://deploy@git.example.com/...`: a user name in a URL.
    if text[..start].ends_with("://") {
        return false;
    }
    let Some((local, domain)) = span.rsplit_once('@') else { return false };
    if local.starts_with('.') || local.ends_with('.') || local.contains("..") {
        return false;
    }
    let tld = domain.rsplit('.').next().unwrap_or_default().to_ascii_lowercase();
    if NOT_TLDS.contains(&tld.as_str()) {
        return false;
    }
    let rest = &text.as_bytes()[end..];
    !(rest.first() == Some(&b':') && rest.get(1).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'/' || *b == b'~'))
}

/// Why a name is secret, which decides how random an unquoted value must look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Secret {
    /// A password: any real value.
    Password,
    /// A token, secret or key: an unquoted value must look random.
    Token,
    /// One of `Redactor::redact_keys` (index into them): any real value.
    Custom(usize),
}

/// The words of an identifier, lower case: split on `_`, `-`, `.`, spaces and camelCase.
pub(super) fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if matches!(c, '_' | '-' | '.' | ' ') {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let boundary = c.is_uppercase()
            && i > 0
            && (chars[i - 1].is_lowercase()
                || chars[i - 1].is_ascii_digit()
                || (chars[i - 1].is_uppercase() && chars.get(i + 1).is_some_and(|n| n.is_lowercase())));
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

const PASSWORD_WORDS: &[&str] = &["password", "passwd", "pwd", "pass", "passphrase", "passwort", "passcode"];
const TOKEN_WORDS: &[&str] = &["secret", "token", "apikey", "credential", "credentials", "authorization"];
/// Words before `key` that make it a secret key (`api_key`, `signingKey`).
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "access",
    "secret",
    "private",
    "signing",
    "encryption",
    "master",
    "client",
    "auth",
    "app",
    "account",
    "license",
    "session",
    "subscription",
];
/// Words before `token` that make it a position, not a secret (`next_page_token`).
const NOT_SECRET_TOKENS: &[&str] = &["page", "next", "continuation", "sync", "cursor", "max", "csrf"];

/// Whether `name` names a secret, and of which kind. `custom` are the extra keys, lower
/// case with `_` between words.
pub(super) fn secret_name(name: &str, custom: &[String]) -> Option<Secret> {
    if !name.is_ascii() {
        return super::parse::LABELS.iter().any(|label| name.ends_with(label)).then_some(Secret::Password);
    }
    let words = words(name);
    let joined = words.join("_");
    if let Some(i) = custom.iter().position(|key| joined == *key || joined.ends_with(&format!("_{key}"))) {
        return Some(Secret::Custom(i));
    }
    let (last, before) = match words.as_slice() {
        [.., before, last] => (last.as_str(), Some(before.as_str())),
        [last] => (last.as_str(), None),
        [] => return None,
    };
    if PASSWORD_WORDS.contains(&last) {
        return Some(Secret::Password);
    }
    if last == "token" && before.is_some_and(|w| NOT_SECRET_TOKENS.contains(&w)) {
        return None;
    }
    if TOKEN_WORDS.contains(&last) || (last == "key" && before.is_some_and(|w| KEY_QUALIFIERS.contains(&w))) {
        return Some(Secret::Token);
    }
    None
}

/// Values that say something about a secret rather than being one: types, statuses,
/// placeholders.
const NOT_VALUES: &[&str] = &[
    "string",
    "str",
    "bool",
    "boolean",
    "int",
    "integer",
    "number",
    "float",
    "double",
    "char",
    "bytes",
    "byte",
    "any",
    "object",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "isize",
    "usize",
    "f32",
    "f64",
    "vec",
    "option",
    "secret",
    "secretstring",
    "secretbox",
    "securestring",
    "sensitive",
    "redacted",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "required",
    "optional",
    "empty",
    "unset",
    "missing",
    "hidden",
    "masked",
    "invalid",
    "incorrect",
    "expired",
    "changed",
    "reset",
    "updated",
    "ok",
    "yes",
    "no",
    "n/a",
    "tbd",
    "todo",
    "placeholder",
    "example",
    "sample",
    "default",
    "text",
    "password",
    "token",
    "changeme",
    "provided",
    "set",
    "revoked",
    "disabled",
    "enabled",
    "valid",
    "wrong",
];

/// Words of a placeholder value (one with no digit).
const PLACEHOLDER_WORDS: &[&str] = &[
    "your",
    "here",
    "example",
    "placeholder",
    "dummy",
    "sample",
    "changeme",
    "insert",
    "replace",
    "fake",
    "xxx",
    "xxxx",
];

/// Words of prose or of an instruction, in a quoted value.
const PROSE_WORDS: &[&str] = &[
    "your",
    "the",
    "enter",
    "please",
    "must",
    "should",
    "least",
    "characters",
    "is",
    "are",
    "will",
    "to",
    "of",
    "for",
    "with",
    "and",
    "not",
    "be",
    "here",
    "this",
];

/// Whether `value`, assigned to a secret-named `name`, is a secret rather than code, a
/// look-up, a template, a type, a placeholder or prose. `after` is the character after
/// an unquoted value.
pub(super) fn assigned_secret(name: &str, value: &str, quoted: bool, after: Option<char>, kind: Secret) -> bool {
    let trimmed = value.trim();
    let lower = trimmed.to_ascii_lowercase();
    if trimmed.is_empty()
        || trimmed.chars().all(|c| c == trimmed.chars().next().unwrap_or(' '))
        || trimmed.starts_with(['$', '%', '<'])
        || trimmed.contains("{{")
        || lower.starts_with("bearer ")
        || lower.starts_with("basic ")
        || lower == name.to_ascii_lowercase()
        || NOT_VALUES.contains(&lower.as_str())
    {
        return false;
    }
    // `YOUR_API_KEY`, `DB_PASSWORD`: the name of a variable, not its value.
    let screaming =
        trimmed.contains('_') && trimmed.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    if screaming {
        return false;
    }
    // `your-api-key-here`, `<insert token>`, `changeme`.
    let placeholder = !trimmed.bytes().any(|b| b.is_ascii_digit())
        && words(&lower).iter().any(|w| PLACEHOLDER_WORDS.contains(&w.as_str()));
    if placeholder {
        return false;
    }
    // A variable of a secret-sounding name (`access_token`, `apiKey`, `db_pass`).
    let identifier =
        trimmed.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') && !trimmed.as_bytes()[0].is_ascii_digit();
    if identifier && words(trimmed).len() > 1 && secret_name(trimmed, &[]).is_some() {
        return false;
    }
    if quoted {
        // Prose: several words, one of them a function word, and no digit.
        let words: Vec<&str> = lower.split_whitespace().collect();
        let prose = words.len() >= 2
            && !trimmed.bytes().any(|b| b.is_ascii_digit())
            && words.iter().any(|w| PROSE_WORDS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())));
        return !prose;
    }
    // Code: a call, an index or a generic (`read_secret(path)`, `environ["X"]`,
    // `Option<String>`), a path (`process.env.KEY`, `std::env::var`).
    if matches!(after, Some('(' | '[' | '<' | '{')) || trimmed.contains("::") {
        return false;
    }
    let dotted = trimmed.contains('.')
        && trimmed.split('.').all(|part| {
            !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
                && !part.as_bytes()[0].is_ascii_digit()
        })
        && !trimmed.bytes().any(|b| b.is_ascii_digit());
    if dotted {
        return false;
    }
    // Prose or an instruction after a label: `Password: please enter ...`.
    let letters = trimmed.bytes().all(|b| b.is_ascii_alphabetic());
    if letters && after.is_some_and(|c| c == ' ' || c == '\t') {
        return false;
    }
    match kind {
        Secret::Password | Secret::Custom(_) => trimmed.len() >= 4,
        Secret::Token => {
            let has_letter = trimmed.bytes().any(|b| b.is_ascii_alphabetic());
            let has_digit = trimmed.bytes().any(|b| b.is_ascii_digit());
            trimmed.len() >= 8 && ((has_letter && has_digit) || entropy(trimmed) >= 3.0)
        }
    }
}

/// Shannon entropy in bits per byte.
fn entropy(text: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in text.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = text.len() as f64;
    counts.iter().filter(|&&c| c > 0).map(|&c| f64::from(c) / n).map(|p| -p * p.log2()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_accepts_test_card_numbers_only() {
        let d = |s: &str| digits(s);
        assert!(luhn(&d("4111111111111111")));
        assert!(luhn(&d("5555555555554444")));
        assert!(luhn(&d("378282246310005")));
        assert!(!luhn(&d("4111111111111112")));
        assert!(!luhn(&d("1234567890123456")));
    }

    #[test]
    fn checksums_of_ids() {
        assert!(cn_id("11010519491231002X"));
        assert!(!cn_id("110105194912310021"));
        assert!(cpf("529.982.247-25"));
        assert!(!cpf("529.982.247-26"));
        assert!(dni("12345678Z"));
        assert!(!dni("12345678A"));
        assert!(dni("X1234567L"));
        let t = "DE89 3704 0044 0532 0130 00";
        assert_eq!(iban(t, 0, t.len()), Some(t.len()));
        let t = "GB82WEST12345698765432";
        assert_eq!(iban(t, 0, t.len()), Some(t.len()));
        let t = "GB82WEST12345698765433";
        assert_eq!(iban(t, 0, t.len()), None);
    }

    #[test]
    fn names() {
        for name in [
            "DB_PASSWORD",
            "X_SIGNING_SECRET",
            "SECRET_TOKEN",
            "x-api-key",
            "AWS_SECRET_ACCESS_KEY",
            "clientSecret",
            "apiKey",
            "Authorization",
            "password",
        ] {
            assert!(secret_name(name, &[]).is_some(), "{name}");
        }
        for name in [
            "max_tokens",
            "token_count",
            "password_min_length",
            "secret_name",
            "token_type",
            "next_page_token",
            "monkey",
            "key_id",
        ] {
            assert_eq!(secret_name(name, &[]), None, "{name}");
        }
        assert_eq!(words("XMLHttpRequest"), ["xml", "http", "request"]);
    }

    #[test]
    fn basic_credentials_decode_to_user_and_password() {
        assert!(basic("dXNlcjpwYXNzd29yZA=="));
        assert!(!basic("authentication"));
    }
}
