//! JSON paths as toolkit's messages write them (`filters.tags[0].name`, the form
//! `serde_path_to_error` uses): one step type, one reader, one writer.

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
