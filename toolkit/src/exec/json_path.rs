//! JSON paths as toolkit's messages write them (`filters.tags[0].name`, the form
//! `serde_path_to_error` uses): one step type, one reader, one writer; and, for the
//! error path, paths found in the arguments' raw text: the path of the value at a byte
//! ([`path_at`]) and the text of the value at a path ([`value_text`]).

/// One step of a path: into an object by key, or into an array by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<K> {
    Key(K),
    Index(usize),
}

/// The steps of `path` (`a.b[2].c` → `a`, `b`, `2`, `c`); an index that is not a number
/// is skipped.
pub(crate) fn parse(path: &str) -> Vec<Step<&str>> {
    let mut steps = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            steps.push(Step::Key(key));
        }
        while let Some((index, after)) = rest.split_once(']') {
            if let Ok(i) = index.parse() {
                steps.push(Step::Index(i));
            }
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    steps
}

/// Appends `step` to the path `out`: a key after a `.` (none at the start), an index in
/// brackets.
pub(crate) fn push<K: AsRef<str>>(out: &mut String, step: &Step<K>) {
    match step {
        Step::Key(key) => {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(key.as_ref());
        }
        Step::Index(i) => {
            out.push('[');
            out.push_str(&i.to_string());
            out.push(']');
        }
    }
}

/// The path of `steps`, outermost first.
pub(crate) fn write<'s, K: AsRef<str> + 's>(steps: impl IntoIterator<Item = &'s Step<K>>) -> String {
    let mut out = String::new();
    for step in steps {
        push(&mut out, step);
    }
    out
}

/// The text of the value at `path` in the arguments, as sent (the first occurrence of a
/// repeated key). A scan of the text, for the error path: a number is shown to the model
/// as it wrote it, not as serde_json's float.
pub(crate) fn value_text<'r>(raw: &'r str, path: &str) -> Option<&'r str> {
    let bytes = raw.as_bytes();
    let mut at = skip_space(bytes, 0);
    for step in parse(path) {
        at = match step {
            Step::Key(key) => member(raw, at, key)?,
            Step::Index(i) => element(bytes, at, i)?,
        };
    }
    let end = value_end(bytes, at)?;
    raw.get(at..end)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The end of the string starting at `at` (just past its closing quote).
pub(crate) fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end of the value starting at `at`.
pub(crate) fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let rest = &bytes[at..];
            Some(
                at + rest
                    .iter()
                    .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                    .unwrap_or(rest.len()),
            )
        }
    }
}

/// Where the value of `key` starts in the object starting at `at`.
fn member(raw: &str, at: usize, key: &str) -> Option<usize> {
    let bytes = raw.as_bytes();
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut i = skip_space(bytes, at + 1);
    while bytes.get(i) == Some(&b'"') {
        let key_end = string_end(bytes, i)?;
        let text = &raw[i..key_end];
        let matches = match serde_json::from_str::<std::borrow::Cow<'_, str>>(text) {
            Ok(name) => name == key,
            Err(_) => false,
        };
        i = skip_space(bytes, key_end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_space(bytes, i + 1);
        if matches {
            return Some(start);
        }
        i = skip_space(bytes, value_end(bytes, start)?);
        if bytes.get(i) != Some(&b',') {
            return None;
        }
        i = skip_space(bytes, i + 1);
    }
    None
}

/// Where element `index` starts in the array starting at `at`.
fn element(bytes: &[u8], at: usize, index: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    let mut i = skip_space(bytes, at + 1);
    for _ in 0..index {
        i = skip_space(bytes, value_end(bytes, i)?);
        if bytes.get(i) != Some(&b',') {
            return None;
        }
        i = skip_space(bytes, i + 1);
    }
    (bytes.get(i).is_some_and(|b| *b != b']')).then_some(i)
}

/// The path one step up (`a.b[2]` → `a.b`, `a.b` → `a`).
pub(crate) fn up(path: &str) -> &str {
    match path.rfind(['.', '[']) {
        Some(i) => &path[..i],
        None => "",
    }
}

/// The object holding the key a path ends at (`filters.extra` → `filters`).
pub(crate) fn parent_of(path: &str) -> &str {
    match path.rfind('.') {
        Some(i) => &path[..i],
        None => "",
    }
}

/// The byte offset of serde_json's 1-based line and column (the column counts the bytes
/// read on that line, so the offset is just past the byte the parser stopped at).
pub(crate) fn offset_of(raw: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match raw[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return raw.len(),
        }
    }
    (start + column).min(raw.len())
}

/// The JSON path (`filters.tags[0]`, as `serde_path_to_error` writes it) of the value
/// being read at byte `end` of `raw`: the text is scanned once, keeping a stack of the
/// containers entered and the key or index within each.
pub(crate) fn path_at(raw: &str, end: usize) -> String {
    let bytes = &raw.as_bytes()[..end.min(raw.len())];
    // Inside an object: the key being read or whose value is being read (`None` before
    // the first key, or between a comma and the next key); inside an array: the index of
    // the element being read.
    let mut stack: Vec<Step<Option<String>>> = Vec::new();
    // In an object, whether the next string is a key (before its colon).
    let mut want_key = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                stack.push(Step::Key(None));
                want_key = true;
            }
            b'[' => {
                stack.push(Step::Index(0));
                want_key = false;
            }
            b'}' | b']' => {
                stack.pop();
                want_key = false;
            }
            b':' => want_key = false,
            b',' => match stack.last_mut() {
                Some(Step::Key(key)) => {
                    *key = None;
                    want_key = true;
                }
                Some(Step::Index(n)) => *n += 1,
                None => {}
            },
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if want_key && let Some(Step::Key(key)) = stack.last_mut() {
                    let text = &raw[start..(i + 1).min(raw.len())];
                    *key = Some(serde_json::from_str::<String>(text).unwrap_or_else(|_| text.trim_matches('"').into()));
                    want_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for step in &stack {
        match step {
            Step::Key(Some(key)) => push(&mut path, &Step::Key(key)),
            Step::Key(None) => {}
            Step::Index(n) => push(&mut path, &Step::<&str>::Index(*n)),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_reads_and_writes_back_the_same() {
        for path in ["a", "a.b[2].c", "[0]", "tags[1][2]", "filters.tags[0].name", ""] {
            assert_eq!(write(&parse(path)), path);
        }
        assert_eq!(parse("a[x].b"), [Step::Key("a"), Step::Key("b")], "an index that is no number is skipped");
    }
}
