//! A provider's words, made readable for an error: its error message out of the JSON
//! envelope every provider uses (or an HTML page's text, or any body on one line), the
//! wait Gemini asks for in its body, and heads of long texts cut at a character.

use std::time::Duration;

use serde::Deserialize;

/// How much of a provider's message an error keeps: an HTML error page or a stack trace
/// is cut to a readable head.
pub(crate) const MESSAGE_CHARS: usize = 500;

/// The provider's error message (`{"error": {"message": ...}}`, which OpenAI, Anthropic
/// and Gemini all use, also as the first element of an array, as Gemini sometimes sends
/// it), else the body as text: an HTML (or XML) page's text without its markup, and any
/// body's whitespace runs as single spaces. Not cut: the caller scrubs the key, then cuts.
pub(crate) fn provider_message(text: &str) -> String {
    #[derive(Deserialize)]
    struct Envelope {
        error: Inner,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Inner {
        Object { message: String },
        Text(String),
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Body {
        One(Envelope),
        First([Envelope; 1]),
    }
    match serde_json::from_str::<Body>(text) {
        Ok(Body::One(Envelope { error: Inner::Object { message } | Inner::Text(message) }))
        | Ok(Body::First([Envelope { error: Inner::Object { message } | Inner::Text(message) }])) => message,
        Err(_) if text.trim().is_empty() => "(empty response body)".into(),
        Err(_) if text.trim_start().starts_with('<') => one_line(&markup_text(text)),
        Err(_) => one_line(text),
    }
}

/// The text of an HTML or XML page: tags, comments, scripts and styles taken out (each
/// tag read as a space, so `<h1>501</h1><p>Not Implemented</p>` reads `501 Not
/// Implemented`), the common entities decoded.
fn markup_text(page: &str) -> String {
    let mut text = String::with_capacity(page.len().min(4096));
    let mut rest = page;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        text.push(' ');
        let tag = &rest[open..];
        let lower: String = tag.chars().take(8).flat_map(char::to_lowercase).collect();
        // Where the markup that starts here ends: a comment at `-->`, a script or style at
        // its closing tag, any other tag at `>`; an unclosed one runs to the end.
        let end = if tag.starts_with("<!--") {
            tag.find("-->").map(|i| i + 3)
        } else if let Some(name) = ["script", "style"].into_iter().find(|name| lower[1..].starts_with(name)) {
            let close = format!("</{name}");
            let at = tag.as_bytes().windows(close.len()).position(|w| w.eq_ignore_ascii_case(close.as_bytes()));
            // `at` is where an ASCII `<` is: a character boundary.
            at.and_then(|i| tag[i..].find('>').map(|j| i + j + 1))
        } else {
            tag.find('>').map(|i| i + 1)
        };
        rest = end.map_or("", |end| &tag[end..]);
    }
    text.push_str(rest);
    for (entity, plain) in
        [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")]
    {
        if text.contains(entity) {
            text = text.replace(entity, plain);
        }
    }
    text
}

/// `text` with each run of whitespace as one space, trimmed.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first `chars` characters of `text`, with `…` when there was more.
pub(crate) fn head_with_ellipsis(text: &str, chars: usize) -> String {
    let cut = head(text, chars);
    if cut.len() == text.len() { text.to_string() } else { format!("{cut}…") }
}

/// The wait Gemini asks for in an error body: the `retryDelay` of the
/// `type.googleapis.com/google.rpc.RetryInfo` entry of `error.details` (a protobuf
/// duration: `"17s"`, `"1.5s"`). A wait too long for a `Duration` reads as
/// [`Duration::MAX`]; a negative or unreadable one is ignored.
pub(crate) fn retry_delay(text: &str) -> Option<Duration> {
    let body: serde_json::Value = serde_json::from_str(text).ok()?;
    // Gemini sends its error object alone, or as the one element of an array.
    let error = body.get("error").or_else(|| body.get(0)?.get("error"))?;
    error.get("details")?.as_array()?.iter().find_map(|detail| {
        let kind = detail.get("@type")?.as_str()?;
        if !kind.ends_with("google.rpc.RetryInfo") {
            return None;
        }
        let seconds: f64 = detail.get("retryDelay")?.as_str()?.trim().strip_suffix('s')?.parse().ok()?;
        (seconds >= 0.0).then(|| Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
    })
}

/// The first `chars` characters of `text`.
pub(crate) fn head(text: &str, chars: usize) -> &str {
    text.char_indices().nth(chars).map_or(text, |(i, _)| &text[..i])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn geminis_retry_delay_is_read_from_the_body() {
        let body = |delay: &str| {
            json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure"},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
            ]}})
            .to_string()
        };
        assert_eq!(retry_delay(&body("17s")), Some(Duration::from_secs(17)));
        assert_eq!(retry_delay(&body("1.5s")), Some(Duration::from_millis(1500)));
        assert_eq!(retry_delay(&body("0.000340s")), Some(Duration::from_micros(340)));
        assert_eq!(retry_delay(&format!("[{}]", body("2s"))), Some(Duration::from_secs(2)), "as an array");
        assert_eq!(retry_delay(&body("1e300s")), Some(Duration::MAX));
        for ignored in ["-1s", "17", "soon", "NaNs", ""] {
            assert_eq!(retry_delay(&body(ignored)), None, "{ignored}");
        }
        for other in ["<html>429</html>", r#"{"error": {"message": "slow down"}}"#, r#"{"error": {"details": 3}}"#] {
            assert_eq!(retry_delay(other), None, "{other}");
        }
    }

    #[test]
    fn error_bodies_are_read_as_one_readable_line() {
        assert_eq!(provider_message(r#"{"error": {"message": "bad key", "type": "x"}}"#), "bad key");
        assert_eq!(provider_message(r#"[{"error": {"code": 400, "message": "in an array"}}]"#), "in an array");
        assert_eq!(provider_message(r#"{"error": "plain"}"#), "plain");
        assert_eq!(provider_message("  \n"), "(empty response body)");
        assert_eq!(provider_message("upstream\n\n  connect error  "), "upstream connect error");
        let page = "<!DOCTYPE html><HTML><head><title>502 Bad Gateway</title><STYLE>p { x: 1 }</style>\
                    <script type=\"a\">if (a < b) {}</SCRIPT></head><body><!-- <p>hidden</p> -->\
                    <h1>Bad&nbsp;Gateway</h1><p>nginx &amp; co &lt;1.2&gt;</p></body></html>";
        assert_eq!(provider_message(page), "502 Bad Gateway Bad Gateway nginx & co <1.2>");
        // Unclosed markup and text that is not a page do not panic, and lose nothing else.
        assert_eq!(provider_message("<p>cut <script>never closed"), "cut");
        assert_eq!(provider_message("<p>日本語 <b>テキスト"), "日本語 テキスト");
        assert_eq!(head_with_ellipsis("abcdef", 3), "abc…");
        assert_eq!(head_with_ellipsis("abc", 3), "abc");
    }
}
