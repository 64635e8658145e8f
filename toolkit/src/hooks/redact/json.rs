//! JSON text, redacted where it stands: string values (and keys) are scanned in place,
//! so the layout, the key order and every byte outside a secret stay as they were.
//! A value of a secret-named field is replaced whole when it is a secret (an object or
//! array always is), and read as text otherwise, as `redact_text` would read it; a number
//! that is a secret, or a container under a secret-named field, becomes a JSON string. A
//! string with escapes is also scanned decoded; if that finds more, the string alone is
//! re-encoded.

use super::engine::{Engine, Found, Replace};

/// The spans to replace in `text`, or `None` when `text` is not a JSON object or array.
pub(super) fn scan<'e>(engine: &'e Engine, text: &str) -> Option<Vec<Found<'e>>> {
    let first = text.trim_start().as_bytes().first();
    if !matches!(first, Some(b'{' | b'[')) || serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // Per open container: is it an object, and is a key expected next.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut key: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < bytes.len() {
        // An object or array under a secret-named field is replaced whole.
        if matches!(bytes[i], b'{' | b'[')
            && stack.last().is_some_and(|t| t.0 && !t.1)
            && let Some((_, label)) = key.and_then(|(s, e)| engine.secret_key(&text[s..e]))
        {
            let end = container_end(bytes, i);
            out.push(Found { start: i, end, replace: Replace::Quoted(label) });
            i = end;
            continue;
        }
        match bytes[i] {
            b'{' => {
                stack.push((true, true));
                key = None;
            }
            b'[' => {
                stack.push((false, false));
                key = None;
            }
            b'}' | b']' => {
                stack.pop();
                key = None;
            }
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.1 = top.0;
                }
                if stack.last().is_some_and(|t| !t.0) {
                    key = None;
                }
            }
            b':' => {
                if let Some(top) = stack.last_mut() {
                    top.1 = false;
                }
            }
            b'"' => {
                let end = string_end(bytes, i);
                let content = (i + 1, end);
                if stack.last().is_some_and(|t| t.0 && t.1) {
                    key = Some(content);
                    string(engine, text, content, None, &mut out);
                } else {
                    let name = key.map(|(s, e)| &text[s..e]);
                    string(engine, text, content, name, &mut out);
                }
                i = end + 1;
                continue;
            }
            b if b.is_ascii_whitespace() => {}
            _ => {
                let end = i + bytes[i..]
                    .iter()
                    .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                    .unwrap_or(bytes.len() - i);
                let name = if stack.last().is_some_and(|t| t.0) { key.map(|(s, e)| &text[s..e]) } else { None };
                scalar(engine, text, (i, end), name, &mut out);
                i = end;
                continue;
            }
        }
        i += 1;
    }
    Some(out)
}

/// The index just past the object or array that opens at `open`.
fn container_end(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The index of the quote that closes the string opened at `open`.
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// A string's content `(start, end)`, the value of field `name` (if any).
fn string<'e>(
    engine: &'e Engine,
    text: &str,
    (start, end): (usize, usize),
    name: Option<&str>,
    out: &mut Vec<Found<'e>>,
) {
    let raw = &text[start..end];
    let escaped = raw.contains('\\');
    let decoded = if escaped { serde_json::from_str::<String>(&text[start - 1..end + 1]).ok() } else { None };
    // The value of a secret-named field is replaced whole when it is a secret; when it
    // is not (`Bearer …`, prose), it is read as text, as `redact_text` reads it.
    if let Some((kind, label)) = name.and_then(|n| engine.secret_key(n)) {
        let value = decoded.as_deref().unwrap_or(raw);
        if super::names::assigned_secret(name.unwrap_or_default(), value, true, None, kind) {
            out.push(Found { start, end, replace: Replace::InString(label) });
            return;
        }
    }
    let before = out.len();
    engine.scan(text, start, end, true, out);
    let Some(decoded) = decoded else { return };
    // Escapes may hide a secret from the raw scan (`\n` glued to a key, `\u0040`).
    let mut inner = Vec::new();
    engine.scan(&decoded, 0, decoded.len(), false, &mut inner);
    if inner.len() > out.len() - before {
        out.truncate(before);
        let redacted = super::apply(&decoded, &inner, engine.template());
        let encoded = serde_json::to_string(&redacted).unwrap_or_default();
        out.push(Found { start: start - 1, end: end + 1, replace: Replace::Text(encoded) });
    }
}

/// A number, `true`, `false` or `null`, the value of field `name` (if any).
fn scalar<'e>(
    engine: &'e Engine,
    text: &str,
    (start, end): (usize, usize),
    name: Option<&str>,
    out: &mut Vec<Found<'e>>,
) {
    let token = &text[start..end];
    let number = token.starts_with(|c: char| c == '-' || c.is_ascii_digit());
    if !number {
        return;
    }
    if let Some((kind, label)) = name.and_then(|n| engine.secret_key(n))
        && super::names::assigned_secret(name.unwrap_or_default(), token, false, None, kind)
    {
        out.push(Found { start, end, replace: Replace::Quoted(label) });
        return;
    }
    let mut found = Vec::new();
    engine.scan(text, start, end, false, &mut found);
    if let [one] = found.as_slice()
        && one.start == start
        && one.end == end
        && let Replace::Label(label) = one.replace
    {
        out.push(Found { start, end, replace: Replace::Quoted(label) });
    }
}
