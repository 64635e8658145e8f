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

/// The word after the first one (`Bearer xyz` → `xyz`).
pub(super) fn after_word(span: &str) -> (usize, usize) {
    let word = span.find([' ', '\t']).unwrap_or(span.len());
    let token = word + (span.len() - word - span[word..].trim_start().len());
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
        let (a, b) = after_word(s);
        assert_eq!(&s[a..b], "abc123def");
        let s = r#"DB_PASSWORD" := "x y""#;
        let a = assignment(s).unwrap();
        assert_eq!((&s[a.name.0..a.name.1], &s[a.value.0..a.value.1], a.quoted), ("DB_PASSWORD", "x y", true));
        let s = "密码：Abc123";
        let a = assignment(s).unwrap();
        assert_eq!((&s[a.name.0..a.name.1], &s[a.value.0..a.value.1]), ("密码", "Abc123"));
    }
}
