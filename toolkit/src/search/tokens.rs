//! Words of tool names, descriptions and queries, as the search index compares them.
//!
//! A text is cut at anything that is not a letter or a digit; an identifier is cut
//! further at its case and digit changes (`getWeatherForecast`, `HTTPServer2` →
//! `get weather forecast`, `http server`; `get_weather` is cut at `_` already); numbers
//! are dropped (they tell no tool apart); everything is lowercased (Unicode), and a few
//! English endings are stripped (`forecasts`, `forecasting` → `forecast`; `movie`,
//! `movies` → `movi`) so a query and a description meet whatever form each uses. Scripts written without spaces (Chinese, Japanese, Korean) give each
//! character and each pair of neighbours, so `天气预报` matches `天气` and `预报`. Common
//! English words (`the`, `to`, `please`) are dropped.

/// The words of `text`, in order, for the index or a query.
#[cfg(test)]
pub(crate) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_token(text, &mut |word| out.push(word.to_string()));
    out
}

/// Calls `f` with each word of `text`, in order (no allocation per word but the ones
/// a stem or a lowercase needs).
pub(crate) fn each_token(text: &str, f: &mut impl FnMut(&str)) {
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                split_word(&text[s..i], f);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        split_word(&text[s..], f);
    }
}

/// Whether `c` belongs to a script written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF) // CJK Extensions B and on
}

/// Cuts one run of letters and digits: unspaced scripts into characters and pairs,
/// the rest at case and digit changes.
fn split_word(word: &str, f: &mut impl FnMut(&str)) {
    if word.is_ascii() {
        return split_identifier(word, f);
    }
    let mut rest = word;
    while let Some(first) = rest.chars().next() {
        let split = rest.char_indices().find(|(_, c)| unspaced(*c) != unspaced(first)).map_or(rest.len(), |(i, _)| i);
        let (run, after) = rest.split_at(split);
        if unspaced(first) {
            let mut chars = run.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                let end = i + c.len_utf8();
                f(&run[i..end]);
                if let Some(&(_, next)) = chars.peek() {
                    f(&run[i..end + next.len_utf8()]);
                }
            }
        } else {
            split_identifier(run, f);
        }
        rest = after;
    }
}

/// `getWeatherForecast` → `get`, `weather`, `forecast`; `HTTPServer2` → `http`,
/// `server`, `2`.
fn split_identifier(word: &str, f: &mut impl FnMut(&str)) {
    let mut start = 0;
    let mut prev: Option<char> = None;
    let mut chars = word.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let boundary = prev.is_some_and(|p| {
            (p.is_lowercase() && c.is_uppercase())
                || (p.is_alphabetic() != c.is_alphabetic())
                // The last capital of an acronym starts the next word: `HTTPServer`.
                || (p.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase))
        });
        if boundary {
            push_word(&word[start..i], f);
            start = i;
        }
        prev = Some(c);
    }
    if start < word.len() {
        push_word(&word[start..], f);
    }
}

/// English words too common to tell tools apart.
const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "in", "is", "it", "me",
    "my", "of", "on", "or", "please", "s", "t", "that", "the", "this", "to", "what", "which", "with", "you", "your",
];

fn push_word(word: &str, f: &mut impl FnMut(&str)) {
    // Numbers (`3` of `Events_3`, a year in a request) tell no tool from another.
    if word.bytes().all(|b| b.is_ascii_digit()) {
        return;
    }
    let lower: std::borrow::Cow<'_, str> =
        if word.chars().any(char::is_uppercase) { word.to_lowercase().into() } else { word.into() };
    if STOP.contains(&lower.as_ref()) {
        return;
    }
    f(&stem(&lower));
}

/// A light English stemmer for ASCII words, after Porter's first and last steps:
/// plurals and `-ing`/`-ed` endings, then a final `y` as `i` and a final `e` dropped, so
/// `movie`, `movies`; `city`, `cities`; `create`, `creates`, `created`, `creating` meet.
fn stem(word: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if !word.is_ascii() || word.len() <= 3 {
        return Cow::Borrowed(word);
    }
    let cut = |suffix: &str, keep: usize| word.len() >= suffix.len() + keep && word.ends_with(suffix);
    // `-ies` keeps its `i` (the final `y` of the others becomes one); `-sses`, `-xes`,
    // `-ches`, `-shes`, `-zes` lose their `es`.
    let es = ["ies", "sses", "xes", "ches", "shes", "zes"];
    let base = if es.iter().any(|suffix| cut(suffix, 2)) {
        &word[..word.len() - 2]
    } else if cut("ing", 4) {
        &word[..word.len() - 3]
    } else if cut("ed", 4) && !word.ends_with("eed") {
        &word[..word.len() - 2]
    } else if word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && !word.ends_with("is") {
        &word[..word.len() - 1]
    } else {
        word
    };
    if base.len() > 3 && base.ends_with('y') {
        return Cow::Owned(format!("{}i", &base[..base.len() - 1]));
    }
    if base.len() > 4 && base.ends_with('e') {
        return Cow::Borrowed(&base[..base.len() - 1]);
    }
    Cow::Borrowed(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Vec<String> {
        tokens(text)
    }

    #[test]
    fn identifiers_are_cut_at_case_digits_and_separators() {
        assert_eq!(t("get_weather"), ["get", "weather"]);
        assert_eq!(t("getWeatherForecast"), ["get", "weather", "forecast"]);
        assert_eq!(t("HTTPServer2"), ["http", "server"], "numbers tell no tool apart");
        assert_eq!(t("list-s3-buckets"), ["list", "bucket"]);
        assert_eq!(t("sendEmail v2.1"), ["send", "email", "v"]);
    }

    #[test]
    fn endings_and_common_words_do_not_count() {
        assert_eq!(t("Forecasts for the cities"), ["forecast", "citi"]);
        assert_eq!(t("movie movies city created creating"), ["movi", "movi", "citi", "creat", "creat"]);
        assert_eq!(t("Searching the boxes"), ["search", "box"]);
        assert_eq!(t("booked"), ["book"]);
        assert_eq!(t("status address"), ["status", "address"]);
    }

    #[test]
    fn other_scripts_and_cases() {
        assert_eq!(t("Straße ÜBER Köln"), ["straße", "über", "köln"]);
        assert_eq!(t("天气预报"), ["天", "天气", "气", "气预", "预", "预报", "报"]);
        assert_eq!(t("查询 weather"), ["查", "查询", "询", "weather"]);
        assert_eq!(t("погода в Москве"), ["погода", "в", "москве"]);
        assert_eq!(t("  ,;  "), Vec::<String>::new());
    }
}
