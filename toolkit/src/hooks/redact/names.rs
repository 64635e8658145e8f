//! Whether `name = value` holds a secret: which names are secret-named (by their last
//! word: `DB_PASSWORD`, `x-api-key`, `clientSecret`), and whether the value is a secret
//! rather than code, a look-up, a template, a type, a placeholder or prose.

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
}
