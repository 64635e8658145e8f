//! The name a model probably meant: for an unknown tool and for an unknown field, one
//! rule, bounded whatever the model sent.

/// The candidate `name` most plausibly means: one equal to it but for case, `_` and `-`;
/// else one it starts (3 characters or more); else the nearest within a third of its
/// length in edits. `None` when none is plausible. A name longer than any candidate by
/// more than that limit is not compared at all, so the cost stays bounded.
pub(crate) fn nearest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let norm = |s: &str| s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect::<String>();
    let len = name.chars().count();
    let limit = (len / 3).max(1);
    // No candidate is longer than 64 characters: past that, no distance is small enough.
    if len == 0 || len > 64 + limit {
        return None;
    }
    let wanted = norm(name);
    if wanted.is_empty() {
        return None;
    }
    if let Some(same) = candidates.iter().find(|c| norm(c) == wanted) {
        return Some(same);
    }
    if wanted.chars().count() >= 3
        && let Some(longer) = candidates.iter().find(|c| norm(c).starts_with(&wanted))
    {
        return Some(longer);
    }
    candidates
        .iter()
        // The distance is at least the difference in length.
        .filter(|c| c.len().abs_diff(name.len()) <= limit * 4)
        .map(|c| (edit_distance(&wanted, &norm(c)), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Insertions, deletions and substitutions between two short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(row[j]).min(cur) };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::nearest;

    #[test]
    fn case_separators_prefixes_and_typos() {
        let tools = ["get_weather", "read_file", "dueDate"];
        assert_eq!(nearest("get-weather", &tools), Some("get_weather"));
        assert_eq!(nearest("DueDate", &tools), Some("dueDate"));
        assert_eq!(nearest("due", &tools), Some("dueDate"));
        assert_eq!(nearest("read_flie", &tools), Some("read_file"));
        assert_eq!(nearest("zzz", &tools), None);
        assert_eq!(nearest(&"x".repeat(1 << 20), &tools), None);
    }
}
