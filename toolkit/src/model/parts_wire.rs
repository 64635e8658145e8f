//! A tool result's [parts](crate::parts) in each API's shape: what each takes inside a
//! tool result, and a line the model reads, in place of the part, for what it does not
//! take (never a part dropped in silence).

use serde_json::{Value, json};

use super::http::Transport;
use super::{Message, ModelRequest};
#[cfg(any(feature = "openai", feature = "anthropic"))]
use crate::parts::IMAGE_TYPES;
use crate::parts::Part;

impl<'a> ModelRequest<'a> {
    /// The same request with another conversation (a client's fitted copy).
    pub(crate) fn with_messages<'b>(&self, messages: &'b [Message]) -> ModelRequest<'b>
    where
        'a: 'b,
    {
        ModelRequest { messages, ..*self }
    }
}

impl Transport {
    /// The conversation as this model takes it: each tool result's parts of a kind the
    /// model does not take (the builder's `result_parts`) named in its text
    /// instead. Borrowed (no copy) when nothing changes.
    pub(crate) fn fit<'m>(&self, messages: &'m [Message]) -> std::borrow::Cow<'m, [Message]> {
        let Some(takes) = &self.result_parts else { return messages.into() };
        let refused =
            |m: &Message| matches!(m, Message::Tool { parts, .. } if parts.iter().any(|p| !takes.contains(&p.kind())));
        if !messages.iter().any(refused) {
            return messages.into();
        }
        let mut fitted = messages.to_vec();
        for message in &mut fitted {
            if let Message::Tool { content, parts, .. } = message {
                let (kept, named): (Vec<_>, Vec<_>) =
                    std::mem::take(parts).into_iter().partition(|p| takes.contains(&p.kind()));
                for part in named {
                    if !content.is_empty() {
                        content.push('\n');
                    }
                    content.push_str(&not_taken(&part));
                }
                *parts = kept;
            }
        }
        fitted.into()
    }
}

#[cfg(feature = "openai")]
/// `data:{mime};base64,{data}`: how OpenAI's APIs take inline bytes.
pub(super) fn data_url(mime: &str, data: &[u8]) -> String {
    format!("data:{mime};base64,{}", crate::parts::base64(data))
}

/// The line the model reads for a part its API did not take.
pub(super) fn not_sent(part: &Part, api: &str) -> String {
    format!("{} (not shown: {api} takes no {} in a tool result)", part.describe(), what(part))
}

/// The line the model reads for a part of a kind it does not take.
pub(super) fn not_taken(part: &Part) -> String {
    let what = match part {
        Part::Image(_) => "images",
        Part::Audio(_) => "audio",
        Part::File(_) => "files",
        _ => "such parts",
    };
    format!("{} (not shown: this model takes no {what})", part.describe())
}

fn what(part: &Part) -> String {
    match part {
        Part::Image(i) => format!("{} images", i.mime_type()),
        Part::Audio(_) => "audio".to_owned(),
        Part::File(f) => format!("{} files", f.mime_type()),
        _ => "such parts".to_owned(),
    }
}

#[cfg(feature = "anthropic")]
/// Anthropic's `tool_result` `content`: the text as it always was when there are no
/// parts; else blocks: the text, then each part in order, an `image` (PNG, JPEG, GIF,
/// WebP), a `document` (a PDF in base64, or a text file as a plain-text source, titled
/// with its name), or a text block for a link and for what the API does not take
/// (audio, other files).
pub(super) fn anthropic_content(content: &str, parts: &[Part]) -> Value {
    if parts.is_empty() {
        return Value::from(content);
    }
    let mut blocks = Vec::with_capacity(parts.len() + 1);
    if !content.is_empty() {
        blocks.push(json!({"type": "text", "text": content}));
    }
    for part in parts {
        let block = match part {
            Part::Image(i) if IMAGE_TYPES.contains(&i.mime_type()) => json!({
                "type": "image",
                "source": {"type": "base64", "media_type": i.mime_type(), "data": i.base64()}
            }),
            Part::File(f) if f.mime_type() == "application/pdf" => json!({
                "type": "document", "title": f.name(),
                "source": {"type": "base64", "media_type": "application/pdf", "data": f.base64()}
            }),
            Part::File(f) if f.as_text().is_some() => json!({
                "type": "document", "title": f.name(),
                "source": {"type": "text", "media_type": "text/plain", "data": f.as_text().unwrap_or_default()}
            }),
            Part::ResourceLink(_) => json!({"type": "text", "text": part.describe()}),
            _ => json!({"type": "text", "text": not_sent(part, "the Messages API")}),
        };
        blocks.push(block);
    }
    Value::Array(blocks)
}

#[cfg(feature = "openai")]
/// The Responses API's `function_call_output` `output`: the text when there are no
/// parts; else a list: `input_text`, then each part, an `input_image` (a data URL) or an
/// `input_file` (`filename`, `file_data` as a data URL), or an `input_text` for a link
/// and for audio, which a function's output cannot carry.
pub(super) fn responses_output(content: &str, parts: &[Part]) -> Value {
    if parts.is_empty() {
        return Value::from(content);
    }
    let mut items = Vec::with_capacity(parts.len() + 1);
    if !content.is_empty() {
        items.push(json!({"type": "input_text", "text": content}));
    }
    for part in parts {
        let item = match part {
            Part::Image(i) if IMAGE_TYPES.contains(&i.mime_type()) => {
                json!({"type": "input_image", "image_url": data_url(i.mime_type(), i.data())})
            }
            Part::File(f) => json!({
                "type": "input_file", "filename": f.name(), "file_data": data_url(f.mime_type(), f.data())
            }),
            Part::ResourceLink(_) => json!({"type": "input_text", "text": part.describe()}),
            _ => json!({"type": "input_text", "text": not_sent(part, "the Responses API")}),
        };
        items.push(item);
    }
    Value::Array(items)
}

#[cfg(feature = "gemini")]
/// The types Gemini takes inline in a function response (Gemini 3's multimodal function
/// responses).
const GEMINI_TYPES: [&str; 5] = ["image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"];

#[cfg(feature = "gemini")]
/// Gemini's function response with parts: the `response`'s text (with a line for each
/// part it cannot take, and each link), and `parts` of `inlineData` (`mimeType`, `data`,
/// `displayName`: a file's name, or `image_1.png`) for the images, PDFs and text files it
/// takes. `None` parts when there are none.
pub(super) fn gemini_parts(content: &str, parts: &[Part]) -> (String, Option<Value>) {
    if parts.is_empty() {
        return (content.to_owned(), None);
    }
    let mut text = content.to_owned();
    let mut inline = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let taken = match part {
            Part::Image(p) => Some((p.mime_type(), p.data(), format!("image_{}.{}", i + 1, extension(p.mime_type())))),
            Part::File(f) => Some((f.mime_type(), f.data(), f.name().to_owned())),
            _ => None,
        }
        .filter(|(mime, ..)| GEMINI_TYPES.contains(mime));
        let line = match (taken, part) {
            (Some((mime, data, name)), _) => {
                inline.push(json!({"inlineData": {
                    "mimeType": mime, "data": crate::parts::base64(data), "displayName": name
                }}));
                continue;
            }
            (None, Part::ResourceLink(_)) => part.describe(),
            (None, _) => not_sent(part, "the Gemini API"),
        };
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
    }
    (text, (!inline.is_empty()).then_some(Value::Array(inline)))
}

#[cfg(feature = "gemini")]
fn extension(mime: &str) -> &str {
    match mime {
        "image/jpeg" => "jpg",
        other => other.rsplit('/').next().unwrap_or("bin"),
    }
}

#[cfg(feature = "openai")]
/// Chat Completions takes only text in a `role: "tool"` message: the text, and a line
/// per part saying where it went.
pub(super) fn chat_tool_text(content: &str, parts: &[Part]) -> String {
    let mut text = content.to_owned();
    for part in parts {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&match chat_part(part) {
            Some(_) => format!("{} (attached in the next user message)", part.describe()),
            None if matches!(part, Part::ResourceLink(_)) => part.describe(),
            None => not_sent(part, "Chat Completions"),
        });
    }
    text
}

#[cfg(feature = "openai")]
/// The user-message content part of Chat Completions for a part: `image_url` (a data
/// URL), `input_audio` (WAV or MP3, base64), or `file` (`filename`, `file_data`).
fn chat_part(part: &Part) -> Option<Value> {
    Some(match part {
        Part::Image(i) if IMAGE_TYPES.contains(&i.mime_type()) => {
            json!({"type": "image_url", "image_url": {"url": data_url(i.mime_type(), i.data())}})
        }
        Part::Audio(a) if matches!(a.format(), "wav" | "mp3") => {
            json!({"type": "input_audio", "input_audio": {"data": a.base64(), "format": a.format()}})
        }
        Part::File(f) => {
            json!({"type": "file", "file": {"filename": f.name(), "file_data": data_url(f.mime_type(), f.data())}})
        }
        _ => return None,
    })
}

#[cfg(feature = "openai")]
/// The `role: "user"` message that follows a turn's tool messages in Chat Completions
/// when their results carried parts: for each call's parts, a text part naming the call,
/// then the parts. `None` when no result of the turn has a part Chat Completions takes.
pub(super) fn chat_attachments<'a>(results: impl Iterator<Item = (&'a str, &'a [Part])>) -> Option<Value> {
    let mut content = Vec::new();
    for (call_id, parts) in results {
        let taken: Vec<Value> = parts.iter().filter_map(chat_part).collect();
        if taken.is_empty() {
            continue;
        }
        content.push(json!({"type": "text", "text": format!("Attachments of the tool result {call_id}:")}));
        content.extend(taken);
    }
    (!content.is_empty()).then(|| json!({"role": "user", "content": content}))
}
