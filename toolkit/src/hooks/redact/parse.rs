//! The parts of a match, found by hand: the rules' shapes are simple enough, and this
//! is far cheaper than resolving capture groups. Offsets are into the match; each
//! function is given a match of its rule's pattern.

/// `scheme://user:password@host`: the password, from the first `:` after the scheme to
/// the last `@`.
pub(super) fn url_password(span: &str) -> Option<(usize, usize)> {
    let authority = span.find("://")? + 3;
    let at = span.rfind('@')?;
    let colon = authority + span[authority..at].find(':')?;
    Some((colon + 1, at))
}

/// `-u user:password` or `--user=user:password`: the password.
pub(super) fn curl_password(span: &str) -> Option<(usize, usize)> {
    let flag = span.find("-u").or_else(|| span.find("--user"))?;
    let colon = flag + span[flag..].find(':')?;
    Some((colon + 1, span.len()))
}

/// An AWS key id (20 characters) and the secret access key (40) after it; the match may
/// end with one character past the secret.
pub(super) fn aws_pair(span: &str) -> Option<((usize, usize), (usize, usize))> {
    let key_char = |b: u8| b.is_ascii_alphanumeric() || b == b'/' || b == b'+';
    let last = *span.as_bytes().last()?;
    let end = if key_char(last) { span.len() } else { span.len() - span.chars().next_back()?.len_utf8() };
    Some(((0, 20), (end.checked_sub(40)?, end)))
}

/// The last word (`Bearer xyz` → `xyz`, `Authorization: Bot xyz` → `xyz`).
pub(super) fn last_word(span: &str) -> (usize, usize) {
    let token = span.rfind([' ', '\t']).map_or(0, |blank| blank + 1);
    (token, span.len())
}

/// The name and value of an assignment.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Assignment {
    pub name: (usize, usize),
    pub value: (usize, usize),
    pub quoted: bool,
}

/// Labels in other languages the assignment rule knows.
pub(super) const LABELS: &[&str] = &["密码", "密碼", "密钥", "密鑰", "秘钥", "口令", "令牌", "パスワード", "비밀번호"];

/// `name ["'] [ ] (: | = | := | => | ： | 是 | 为) [ ] ("value" | 'value' | value)`.
pub(super) fn assignment(span: &str) -> Option<Assignment> {
    let bytes = span.as_bytes();
    let name_end = match LABELS.iter().find(|label| span.starts_with(*label)) {
        Some(label) => label.len(),
        None => bytes.iter().position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')))?,
    };
    let mut i = name_end;
    if matches!(bytes.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let blank = |i: &mut usize| {
        while matches!(bytes.get(*i), Some(b' ' | b'\t')) {
            *i += 1;
        }
    };
    blank(&mut i);
    match bytes.get(i)? {
        b':' | b'=' => {
            i += 1;
            if bytes.get(i) == Some(&b'=') {
                i += 1;
            }
            if bytes.get(i) == Some(&b'>') {
                i += 1;
            }
        }
        _ => {
            let sep = ["：", "是", "为", "為"].iter().find(|s| span[i..].starts_with(*s))?;
            i += sep.len();
        }
    }
    blank(&mut i);
    let quoted = matches!(bytes.get(i), Some(b'"' | b'\''));
    let value = if quoted { (i + 1, span.len() - 1) } else { (i, span.len()) };
    (value.0 < value.1).then_some(Assignment { name: (0, name_end), value, quoted })
}

/// The end of a PEM private key whose `-----BEGIN … PRIVATE KEY-----` line ends at
/// `from`, reading no further than `to`: past its `-----END … PRIVATE KEY-----` line when
/// one follows the body, else past the last line of its base64 body (a key cut short
/// ends where its base64 ends, not at some later key's END line). `None` when no base64
/// (16 characters or more) follows the header.
///
/// The body is runs of base64 between separators: line breaks (real or escaped, `\n`),
/// blanks, quotes and the marks of comments, block scalars and string concatenation
/// (`>#*|;,'"`, a lone `+` or `//`), after optional header lines (`Proc-Type: …`). A
/// cut body ends after its last full line (as long as the first) and the shorter line
/// after it, if that one ends its line: `Thanks!` after a cut key is text.
pub(super) fn pem_body(text: &str, from: usize, to: usize) -> Option<usize> {
    let bytes = &text.as_bytes()[..to];
    let mut i = skip_pem_separators(bytes, from).0;
    // Header lines (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`, `Version: …`), a few and short.
    for _ in 0..8 {
        let name = bytes[i..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'-').count();
        if name == 0 || bytes.get(i + name) != Some(&b':') || !bytes[i].is_ascii_alphabetic() {
            break;
        }
        let line = bytes[i..].iter().take(256).take_while(|b| !matches!(b, b'\r' | b'\n' | b'\\')).count();
        if line == 256 {
            return None;
        }
        i = skip_pem_separators(bytes, i + line).0;
    }
    let first = base64_run(bytes, i);
    if first < 16 {
        return None;
    }
    // Runs of the body: (start, end, a line break before it).
    let mut runs = vec![(i, i + first, true)];
    let mut at = i + first;
    loop {
        let (next, broke) = skip_pem_separators(bytes, at);
        if let Some(end) = pem_footer(bytes, next) {
            return Some(end);
        }
        let run = base64_run(bytes, next);
        if run == 0 {
            break;
        }
        runs.push((next, next + run, broke));
        at = next + run;
    }
    // No END line: the base64 body is the first run, every run as long as it after it,
    // and one shorter run that ends its line.
    let width = first;
    let mut end = i + first;
    for pair in runs.windows(2) {
        let ((s0, e0, _), (s1, e1, broke)) = (pair[0], pair[1]);
        let len = e1 - s1;
        if e0 - s0 != width || len > width {
            break;
        }
        if len < width && !ends_line(bytes, e1, broke) {
            break;
        }
        end = e1;
    }
    Some(end)
}

/// The length of the run of base64 characters at `at`.
fn base64_run(bytes: &[u8], at: usize) -> usize {
    bytes[at..].iter().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')).count()
}

/// Past the separators at `at`, and whether they hold a line break (`\n`, `\r`, or their
/// escapes). A run of `+` or `/` alone between blanks (concatenation, a `//` comment) is a
/// separator too.
fn skip_pem_separators(bytes: &[u8], mut at: usize) -> (usize, bool) {
    let mut broke = false;
    loop {
        match bytes.get(at) {
            Some(b'\r' | b'\n') => {
                broke = true;
                at += 1;
            }
            Some(b' ' | b'\t' | b'>' | b'#' | b'*' | b'|' | b';' | b',' | b'"' | b'\'') => at += 1,
            Some(b'\\') => {
                let slashes = bytes[at..].iter().take_while(|&&b| b == b'\\').count();
                match bytes.get(at + slashes) {
                    Some(b'n' | b'r') => broke = true,
                    Some(b't') => {}
                    _ => return (at, broke),
                }
                at += slashes + 1;
            }
            Some(b'+' | b'/') => {
                let marks = bytes[at..].iter().take_while(|&&b| matches!(b, b'+' | b'/')).count();
                let blank_after = bytes.get(at + marks).is_none_or(|b| b.is_ascii_whitespace());
                let blank_before = at == 0 || bytes[at - 1].is_ascii_whitespace();
                if !(blank_before && blank_after) {
                    return (at, broke);
                }
                at += marks;
            }
            _ => return (at, broke),
        }
    }
}

/// Whether a run ending at `end` ends its line: blanks, then a line break, the end, or
/// a quote (the string holding the key ends); or, on a line of runs between blanks (a
/// key whose line breaks were lost), a blank.
fn ends_line(bytes: &[u8], end: usize, broke_before: bool) -> bool {
    let rest = &bytes[end..];
    let blanks = rest.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
    match rest.get(blanks) {
        None | Some(b'\r' | b'\n' | b'\\' | b'"' | b'\'' | b'`') => true,
        Some(_) => !broke_before && blanks > 0,
    }
}

/// The end of a `-----END … PRIVATE KEY-----` (or `… PRIVATE KEY BLOCK-----`) line at `at`.
fn pem_footer(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = bytes.get(at..)?.strip_prefix(b"-----END ")?;
    let line = rest.iter().take(64).take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b' ').count();
    let words = &rest[..line];
    let kind = words.strip_suffix(b" BLOCK").unwrap_or(words);
    let ok = (kind == b"PRIVATE KEY" || kind.ends_with(b" PRIVATE KEY")) && rest[line..].starts_with(b"-----");
    ok.then_some(at + "-----END ".len() + line + "-----".len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts() {
        let s = "redis://app:p@ss:1@cache:6379";
        let (a, b) = url_password(s).unwrap();
        assert_eq!(&s[a..b], "p@ss:1");
        let s = " -u 'admin:hunter22";
        let (a, b) = curl_password(s).unwrap();
        assert_eq!(&s[a..b], "hunter22");
        let s = "Bearer  abc123def";
        let (a, b) = last_word(s);
        assert_eq!(&s[a..b], "abc123def");
        let s = r#"DB_PASSWORD" := "x y""#;
        let a = assignment(s).unwrap();
        assert_eq!((&s[a.name.0..a.name.1], &s[a.value.0..a.value.1], a.quoted), ("DB_PASSWORD", "x y", true));
        let s = "密码：Abc123";
        let a = assignment(s).unwrap();
        assert_eq!((&s[a.name.0..a.name.1], &s[a.value.0..a.value.1]), ("密码", "Abc123"));
    }

    #[test]
    fn pem_bodies() {
        let head = "-----BEGIN PRIVATE KEY-----";
        let line = "MIIEowIBAAKCAQEAx7Qb3Zk3JqLx9TmP2vRb8WcN4YdH6sQ1uE7aFpL0oKj5Ni2M";
        fn body(text: &str) -> Option<&str> {
            let from = "-----BEGIN PRIVATE KEY-----".len();
            pem_body(text, from, text.len()).map(|end| &text[from..end])
        }
        // Whole: to the END line.
        let t = format!("{head}\n{line}\nAbCd==\n-----END PRIVATE KEY-----\nrest");
        assert_eq!(body(&t), Some(&t[head.len()..t.len() - 5]));
        // Cut: to the last base64 line; a word after a full line is text.
        let t = format!("{head}\n{line}\n{line}\nAbCd==\nrest of the log");
        assert_eq!(body(&t), Some(&*format!("\n{line}\n{line}\nAbCd==")));
        let t = format!("{head}\n{line}\nThanks!");
        assert_eq!(body(&t), Some(&*format!("\n{line}")));
        // Escaped line breaks, quotes and concatenation (code).
        let t = format!("{head}\\n\" +\n  \"{line}\\n\" +\n  \"AbCd\\n-----END PRIVATE KEY-----\"");
        assert!(body(&t).is_some_and(|b| b.ends_with("-----END PRIVATE KEY-----")), "{t}");
        // Header lines before the body (a PGP block's `Version:`).
        let t = format!("{head}\nVersion: GnuPG v2\n\n{line}\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----");
        assert_eq!(body(&t), Some(&t[head.len()..]));
        // No base64 after the header: not a key.
        assert_eq!(body(&format!("{head} and the END line.")), None);
        assert_eq!(body(&format!("{head}\nComment: {}", "x".repeat(300))), None);
    }
}
