//! Truncation: keeps a long result from filling the model's context.

use std::borrow::Cow;

use crate::hook::{AfterCall, AfterHook, Hook, HookStep};

/// An after hook that cuts the model-visible text to at most `n` characters (never
/// inside a UTF-8 character) and says how much was cut, so the model knows the result
/// is partial and can ask for less.
///
/// The marker is `"\n…[truncated: {remaining} more characters]"` by default;
/// `{remaining}` is replaced by the number of characters cut. The raw output stays
/// readable by other hooks ([`AfterCall::output`]).
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::Truncate;
///
/// /// Say something long.
/// #[tool]
/// fn long() -> String { "héllo wörld".repeat(3) }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![long].with_hook(Truncate::chars(5));
/// let r = tools.call(ToolCall::new("1", "long", "{}")).await;
/// assert_eq!(r.content, "héllo\n…[truncated: 28 more characters]");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Truncate {
    name: Cow<'static, str>,
    max: usize,
    marker: Cow<'static, str>,
}

impl Truncate {
    /// Keeps at most `max` characters (Unicode scalar values).
    pub fn chars(max: usize) -> Self {
        Truncate {
            name: Cow::Borrowed("truncate"),
            max,
            marker: Cow::Borrowed("\n…[truncated: {remaining} more characters]"),
        }
    }

    /// Sets the text appended to a cut result; `{remaining}` is replaced by the number of
    /// characters cut.
    pub fn marker(mut self, marker: impl Into<Cow<'static, str>>) -> Self {
        self.marker = marker.into();
        self
    }

    /// Sets the hook's name (default `truncate`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// The text cut to the limit, with the marker; borrowed when it is short enough.
    ///
    /// ```
    /// let t = toolkit::hooks::Truncate::chars(2).marker("…");
    /// assert_eq!(t.truncate("日本語"), "日本…");
    /// assert_eq!(t.truncate("ab"), "ab");
    /// ```
    pub fn truncate<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match self.cut_at(text) {
            None => Cow::Borrowed(text),
            Some(at) => {
                let mut cut = text[..at].to_owned();
                cut.push_str(&self.marker_for(&text[at..]));
                Cow::Owned(cut)
            }
        }
    }

    /// The byte offset of the first character past the limit, if there is one.
    fn cut_at(&self, text: &str) -> Option<usize> {
        // A text of at most `max` bytes has at most `max` characters.
        if text.len() <= self.max {
            return None;
        }
        text.char_indices().nth(self.max).map(|(at, _)| at)
    }

    fn marker_for(&self, rest: &str) -> String {
        self.marker.replace("{remaining}", &rest.chars().count().to_string())
    }
}

impl AfterHook for Truncate {
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()> {
        if let Some(at) = self.cut_at(out.text()) {
            let marker = self.marker_for(&out.text()[at..]);
            let text = out.text_mut();
            text.truncate(at);
            text.push_str(&marker);
        }
        HookStep::Ready(Ok(()))
    }

    fn is_sync(&self) -> bool {
        true
    }
}

impl From<Truncate> for Hook {
    fn from(truncate: Truncate) -> Hook {
        Hook::new(truncate.name.clone()).priority(-20).on_after(truncate)
    }
}
