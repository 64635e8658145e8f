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
            b' ' => (run >= 2 && !stamp) || code_group_before(&bytes[..start - 1]),
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

/// Whether `before` ends with a group of a code, letters and digits mixed (`AA1` in the
/// UPS number `1Z 999 AA1 01 2345 6784`): a number after it is the code's next group.
fn code_group_before(before: &[u8]) -> bool {
    let group = before.iter().rev().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit()).count();
    let group = &before[before.len() - group..];
    let alone = before.len() == group.len() || before[before.len() - group.len() - 1] == b' ';
    (2..=6).contains(&group.len())
        && alone
        && group.iter().any(u8::is_ascii_digit)
        && group.iter().any(u8::is_ascii_uppercase)
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

/// A provider key's body is random: a digit, or both cases; or it is an AWS key id
/// (upper case by design).
pub(super) fn key_body(span: &str) -> bool {
    let body = span;
    body.bytes().any(|b| b.is_ascii_digit())
        || (body.bytes().any(|b| b.is_ascii_lowercase()) && body.bytes().any(|b| b.is_ascii_uppercase()))
        || aws_key_id(span)
}

/// The prefixes of AWS key ids (`AKIA` access keys, `ASIA` temporary ones, ...).
const AWS_PREFIXES: [&str; 12] =
    ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA", "ASCA"];

/// An AWS key id: a prefix and 16 characters of base32, so about one in 28 has no digit
/// (`AKIAQWERTYUIOPASDFGH`). Placeholders are not: `AKIAXXXXXXXXXXXXXXXX`,
/// `…EXAMPLE…`, or a character four times in a row.
fn aws_key_id(span: &str) -> bool {
    let bytes = span.as_bytes();
    if bytes.len() != 20 || !AWS_PREFIXES.iter().any(|p| span.starts_with(p)) {
        return false;
    }
    let body = &span[4..];
    let repeated = bytes[4..].windows(4).any(|w| w.iter().all(|&b| b == w[0]));
    body.bytes().all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b))
        && !repeated
        && !body.contains("EXAMPLE")
        && !body.contains("SAMPLE")
}

/// The token after `Bearer`: a digit and 8+ characters, or 16+ characters.
pub(super) fn bearer(token: &str) -> bool {
    token.len() >= 16 || (token.len() >= 8 && token.bytes().any(|b| b.is_ascii_digit()))
}

/// The credentials after `Basic`: base64 of printable `user:password`.
pub(super) fn basic(token: &str) -> bool {
    let Some(decoded) = base64(token.trim_end_matches('='), false) else { return false };
    let Ok(text) = std::str::from_utf8(&decoded) else { return false };
    text.len() >= 3 && text.contains(':') && !text.chars().any(char::is_control)
}

/// Where the secret of a bot token match (`start..end`) starts, if it is one: a Telegram
/// token after the `bot` of an API URL, or a Discord token whose first part is a user id
/// (17 to 20 digits, base64url); not glued to more token characters.
pub(super) fn bot_token(text: &str, start: usize, end: usize) -> Option<usize> {
    let glued = text.as_bytes().get(end).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let span = &text[start..end];
    if glued {
        return None;
    }
    if span.contains(':') {
        return Some(start + if span.starts_with("bot") { 3 } else { 0 });
    }
    let id = base64(&span[..span.find('.')?], true)?;
    ((17..=20).contains(&id.len()) && id.iter().all(u8::is_ascii_digit)).then_some(start)
}

/// A base64-encoded PEM private key: the start decodes to `-----BEGIN … PRIVATE KEY-----`
/// (not a certificate or a public key).
pub(super) fn encoded_key(span: &str) -> bool {
    let head = &span[..span.len().min(96) / 4 * 4];
    let Some(decoded) = base64(head.trim_end_matches('='), false) else { return false };
    let Some(label) = decoded.strip_prefix(b"-----BEGIN ") else { return false };
    let Some(close) = label.windows(5).position(|w| w == b"-----") else { return false };
    let label = &label[..close];
    let label = label.strip_suffix(b" BLOCK").unwrap_or(label);
    (label == b"PRIVATE KEY" || label.ends_with(b" PRIVATE KEY"))
        && label.iter().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b' ')
}

/// Base64, standard or (`url`) URL-safe, without padding; trailing bits are dropped.
fn base64(text: &str, url: bool) -> Option<Vec<u8>> {
    let value = |b: u8| match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' if !url => Some(62),
        b'/' if !url => Some(63),
        b'-' if url => Some(62),
        b'_' if url => Some(63),
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
    fn aws_key_ids_need_no_digit() {
        assert!(key_body("AKIAQWERTYUIOPASDFGH") && key_body("ASIAJTYSQFWOHXKRBDEV"));
        assert!(!key_body("AKIAXXXXXXXXXXXXXXXX") && !key_body("ASIAEXAMPLEEXAMPLEEX"));
        // Upper case alone does not make other keys.
        assert!(!key_body("GOCSPX-ABCDEFGHIJKLMNOPQRSTUVWXYZAB"));
    }

    #[test]
    fn bot_tokens_and_encoded_keys() {
        let t = "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/send";
        assert_eq!(bot_token(t, 0, t.len() - 5), Some(3));
        let t = "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs";
        assert_eq!(bot_token(t, 0, t.len()), Some(0));
        // The first part is no id (`Mxyz…` decodes to other bytes), or the token goes on.
        let t = "MzZkYWJjZGVmZ2hpamtsbW5vcA.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs";
        assert_eq!(bot_token(t, 0, t.len()), None);
        let t = "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWsX";
        assert_eq!(bot_token(t, 0, t.len() - 1), None);
        assert!(encoded_key("LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1DNENBUUF3QlFZREsy"));
        assert!(encoded_key("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBNnZMcQ=="));
        assert!(!encoded_key("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkekNDQVIyZ0F3SUJB"));
    }

    #[test]
    fn basic_credentials_decode_to_user_and_password() {
        assert!(basic("dXNlcjpwYXNzd29yZA=="));
        assert!(!basic("authentication"));
    }
}
