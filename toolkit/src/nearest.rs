//! The name a model probably meant: for an unknown tool and for an unknown field, one
//! rule, bounded whatever the model sent.

/// The candidate `name` most plausibly means: one equal to it but for case, `_` and `-`;
/// else one it starts (3 characters or more); else the nearest within a third of its
/// length in edits. `None` when none is plausible. A name longer than any candidate by
/// more than that limit is not compared at all, so the cost stays bounded.
pub(crate) fn nearest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = limit(name)?;
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

/// A name as names are compared: lower case, without `_` and `-`.
fn norm(s: &str) -> String {
    s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

/// How many edits away a candidate may be, or `None` when `name` can be no typo of any
/// (empty, or longer than 64 characters by more than that).
fn limit(name: &str) -> Option<usize> {
    let len = name.chars().count();
    let limit = (len / 3).max(1);
    // No candidate is longer than 64 characters: past that, no distance is small enough.
    (len != 0 && len <= 64 + limit).then_some(limit)
}

/// Many names prepared once for [`Names::nearest`]: the same rule as [`nearest`], at a
/// cost that does not grow with their number (a toolbox of 100,000 tools answers an
/// unknown name in microseconds, not the 240 ms a scan of all of them took).
pub(crate) struct Names {
    /// Normalized name → the first candidate with it.
    exact: std::collections::HashMap<String, usize>,
    /// Normalized names, sorted, with their candidate: prefixes by binary search.
    sorted: Vec<(String, usize)>,
    /// Places in `sorted` by normalized length (in characters), for the edit distance.
    by_len: Vec<Vec<usize>>,
}

/// At most this many candidates are measured by edit distance for one name: the
/// suggestion is a hint, and its cost must stay bounded however many tools share a
/// length.
const MEASURED: usize = 512;

impl Names {
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Names {
        let mut exact = std::collections::HashMap::new();
        let mut sorted = Vec::new();
        for (i, name) in names.into_iter().enumerate() {
            let n = norm(name);
            exact.entry(n.clone()).or_insert(i);
            sorted.push((n, i));
        }
        sorted.sort();
        let mut by_len: Vec<Vec<usize>> = Vec::new();
        for (at, (n, _)) in sorted.iter().enumerate() {
            let len = n.chars().count();
            if by_len.len() <= len {
                by_len.resize_with(len + 1, Vec::new);
            }
            by_len[len].push(at);
        }
        Names { exact, sorted, by_len }
    }

    /// The place of the candidate `name` most plausibly means (see [`nearest`]).
    pub(crate) fn nearest(&self, name: &str) -> Option<usize> {
        let limit = limit(name)?;
        let wanted = norm(name);
        if wanted.is_empty() {
            return None;
        }
        if let Some(&i) = self.exact.get(&wanted) {
            return Some(i);
        }
        let chars = wanted.chars().count();
        if chars >= 3 {
            let at = self.sorted.partition_point(|(n, _)| n.as_str() < wanted.as_str());
            if let Some((n, i)) = self.sorted.get(at)
                && n.starts_with(&wanted)
            {
                return Some(*i);
            }
        }
        let lengths = chars.saturating_sub(limit)..=chars + limit;
        let mut best: Option<(usize, usize)> = None;
        for at in lengths.filter_map(|len| self.by_len.get(len)).flatten().take(MEASURED) {
            let (n, i) = &self.sorted[*at];
            let d = edit_distance(&wanted, n);
            if d <= limit && best.is_none_or(|(b, _)| d < b) {
                best = Some((d, *i));
            }
        }
        best.map(|(_, i)| i)
    }
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
        // The prepared form agrees.
        let names = super::Names::new(tools);
        let at = |name: &str| names.nearest(name).map(|i| tools[i]);
        assert_eq!(at("get-weather"), Some("get_weather"));
        assert_eq!(at("DueDate"), Some("dueDate"));
        assert_eq!(at("due"), Some("dueDate"));
        assert_eq!(at("read_flie"), Some("read_file"));
        assert_eq!(at("zzz"), None);
        assert_eq!(at(&"x".repeat(1 << 20)), None);
    }
}
