//! What a tool may return besides its text: [`Image`]s, [`Audio`], [`File`]s (a PDF, a
//! CSV, any document with a name and a MIME type) and [`ResourceLink`]s, each a [`Part`]
//! of the result.
//!
//! A tool returns them as its output type (`-> Image`, `-> Vec<Part>`, `-> Output`, or
//! any of these in a `Result`), or builds an [`Output`](crate::Output) with text and
//! parts. The result's text stays [`ToolResult::content`](crate::ToolResult::content),
//! what hooks, redaction, truncation and records have always read; the parts travel
//! beside it in [`ToolResult::parts`](crate::ToolResult::parts), and each model client
//! sends them in its provider's own shape (see [`model`](crate::model)).
//!
//! ```
//! use toolkit::parts::{Image, Part};
//! use toolkit::Output;
//!
//! const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
//! let chart = Output::text("Revenue by region, 2026").with_part(Image::png(PNG));
//! assert_eq!(chart.as_str(), "Revenue by region, 2026");
//! assert!(matches!(chart.parts(), [Part::Image(i)] if i.mime_type() == "image/png"));
//! ```
//!
//! **What is checked.** Before a result leaves its tool, each part's bytes must be what
//! its MIME type says (magic bytes: PNG, JPEG, GIF, WebP, WAV, MP3, Ogg, FLAC, AAC, MP4,
//! WebM, PDF, ZIP): `Image::png` of JPEG bytes is an error the model reads as a failed
//! call, never a lie told to the model. A type the checker does not know (`text/csv`)
//! is taken as declared. The whole result (text and bytes) is capped at
//! [`Limits::max_result_bytes`](crate::Limits::max_result_bytes) (20 MiB by default).
//!
//! # What each API gets
//!
//! A tool result's [parts](crate::parts) go in the shape each API takes inside a tool
//! result; what an API does not take there becomes a line of the result's text that
//! names it (`[audio/wav audio, 1.6 KiB] (not shown: the Messages API takes no audio in a
//! tool result)`), never a part dropped in silence:
//!
//! | part | Anthropic | OpenAI Responses | Gemini | Chat Completions | MCP (`McpServer`) |
//! |---|---|---|---|---|---|
//! | image (PNG, JPEG, GIF, WebP) | `image` block in the `tool_result` | `input_image` (data URL) in the `function_call_output` | `inlineData` in the `functionResponse`'s `parts` (PNG, JPEG, WebP) | `image_url` in a user message after the turn's results | `image` |
//! | PDF | `document` block (base64) | `input_file` | `inlineData` | `file` in that user message | `resource` (`blob`) |
//! | text file | `document` block (text source) | `input_file` | `inlineData` (`text/plain`) | `file` in that user message | `resource` (`text`) |
//! | audio | a line | a line | a line | `input_audio` (WAV, MP3) in that user message | `audio` |
//! | resource link | a line | a line | a line | a line | `resource_link` |
//!
//! Chat Completions takes only text in a `role: "tool"` message, and nothing may come
//! between a turn's tool messages: their parts follow in one `role: "user"` message
//! (`Attachments of the tool result call_1:` then the parts), and each tool message names
//! its parts. A model that takes fewer kinds than its API (a text-only model behind an
//! OpenAI-compatible server) says so with its builder's `result_parts([...])`: the other
//! parts become lines too.
//!
//! `McpTools` imports a server's `image`, `audio`, `resource` and `resource_link` blocks
//! as parts (annotations kept), bytes intact; a `resource` becomes a [`File`] named after
//! the last segment of its URI.
//!
//! **Not covered.** The [`Redactor`](crate::hooks::Redactor) reads text: it does not look
//! inside a part's bytes (a text file attached as a part is not redacted: redact it in
//! the tool, or in an after hook with [`AfterCall::parts_mut`](crate::AfterCall::parts_mut)).
//! [`Truncate`](crate::hooks::Truncate) counts text. A replay from an audit log
//! ([`testing::Replay`](crate::testing::Replay)) replays text only: the log keeps each
//! part's summary, never its bytes.

use std::fmt;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod check;
mod media;

pub(crate) use check::check_result;
use check::size_text;
pub use check::{MediaError, sniff};
pub use media::{Audio, ContentAnnotations, File, IMAGE_TYPES, Image, ResourceLink, base64, from_base64, is_text_type};

/// One piece of a tool's result that is not its text.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Part {
    /// An image the model can look at.
    Image(Image),
    /// A sound recording.
    Audio(Audio),
    /// A document with a name: a PDF, a text file, a spreadsheet.
    File(File),
    /// A pointer to a resource the model (or its host) may fetch: not its bytes.
    ResourceLink(ResourceLink),
}

/// The kind of a [`Part`], as records and audit lines name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PartKind {
    /// [`Part::Image`].
    Image,
    /// [`Part::Audio`].
    Audio,
    /// [`Part::File`].
    File,
    /// [`Part::ResourceLink`].
    ResourceLink,
}

impl PartKind {
    /// `image`, `audio`, `file` or `resource_link`.
    pub fn as_str(self) -> &'static str {
        match self {
            PartKind::Image => "image",
            PartKind::Audio => "audio",
            PartKind::File => "file",
            PartKind::ResourceLink => "resource_link",
        }
    }
}

impl PartKind {
    /// `an image`, `audio`, `a file`, `a resource link`.
    fn with_article(self) -> &'static str {
        match self {
            PartKind::Image => "an image",
            PartKind::Audio => "audio",
            PartKind::File => "a file",
            PartKind::ResourceLink => "a resource link",
        }
    }
}

impl fmt::Display for PartKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Image(p) => p.fmt(f),
            Part::Audio(p) => p.fmt(f),
            Part::File(p) => p.fmt(f),
            Part::ResourceLink(p) => p.fmt(f),
        }
    }
}

impl From<Image> for Part {
    fn from(p: Image) -> Self {
        Part::Image(p)
    }
}

impl From<Audio> for Part {
    fn from(p: Audio) -> Self {
        Part::Audio(p)
    }
}

impl From<File> for Part {
    fn from(p: File) -> Self {
        Part::File(p)
    }
}

impl From<ResourceLink> for Part {
    fn from(p: ResourceLink) -> Self {
        Part::ResourceLink(p)
    }
}

impl From<&Part> for Part {
    fn from(p: &Part) -> Self {
        p.clone()
    }
}

impl Part {
    /// Which kind of part this is.
    pub fn kind(&self) -> PartKind {
        match self {
            Part::Image(_) => PartKind::Image,
            Part::Audio(_) => PartKind::Audio,
            Part::File(_) => PartKind::File,
            Part::ResourceLink(_) => PartKind::ResourceLink,
        }
    }

    /// The MIME type (a link's, when it states one).
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            Part::Image(p) => Some(p.mime_type()),
            Part::Audio(p) => Some(p.mime_type()),
            Part::File(p) => Some(p.mime_type()),
            Part::ResourceLink(l) => l.mime_type.as_deref(),
        }
    }

    /// The bytes (`None` for a link, which has none).
    pub fn data(&self) -> Option<&Bytes> {
        match self {
            Part::Image(p) => Some(p.data()),
            Part::Audio(p) => Some(p.data()),
            Part::File(p) => Some(p.data()),
            Part::ResourceLink(_) => None,
        }
    }

    /// How many bytes it carries (0 for a link).
    pub fn len(&self) -> usize {
        self.data().map_or(0, |d| d.len())
    }

    /// Whether it carries no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The part as records and audit lines show it: kind, MIME type, size and SHA-256,
    /// never the bytes.
    pub fn summary(&self) -> PartSummary {
        let (name, uri) = match self {
            Part::File(f) => (Some(f.name.clone()), f.uri.clone()),
            Part::ResourceLink(l) => (Some(l.name.clone()), Some(l.uri.clone())),
            Part::Image(_) | Part::Audio(_) => (None, None),
        };
        PartSummary {
            kind: self.kind(),
            mime_type: self.mime_type().map(str::to_owned),
            bytes: self.len() as u64,
            sha256: self.data().map(|d| crate::digest::hex(&Sha256::digest(d))),
            name,
            uri,
        }
    }

    /// One line for a model that cannot take this part, or a text view of it: what it
    /// is, never its bytes. `[image/png image, 12.4 KiB]`, `[file report.pdf
    /// (application/pdf), 88.0 KiB]`, `[resource link: q3.pdf <file:///q3.pdf>]`.
    pub fn describe(&self) -> String {
        match self {
            Part::Image(p) => format!("[{} image, {}]", p.mime_type, size_text(p.data.len())),
            Part::Audio(p) => format!("[{} audio, {}]", p.mime_type, size_text(p.data.len())),
            Part::File(p) => format!("[file {} ({}), {}]", p.name, p.mime_type, size_text(p.data.len())),
            Part::ResourceLink(l) => {
                let mut s = format!("[resource link: {} <{}>", l.name, l.uri);
                if let Some(m) = &l.mime_type {
                    s.push_str(&format!(" ({m})"));
                }
                if let Some(d) = &l.description {
                    s.push_str(&format!(": {d}"));
                }
                s.push(']');
                s
            }
        }
    }

    /// Checks the part: its bytes are what its MIME type says, and an image is one of
    /// the types models take. `Err` says what is wrong, for the operator.
    pub fn check(&self) -> Result<(), MediaError> {
        match self {
            Part::Image(p) => {
                if !IMAGE_TYPES.contains(&p.mime_type.as_str()) {
                    return Err(MediaError::Unsupported {
                        what: "image",
                        declared: p.mime_type.clone(),
                        takes: "image/png, image/jpeg, image/gif or image/webp (send other images as a File)",
                    });
                }
                check::matches(&p.mime_type, &p.data)
            }
            Part::Audio(p) => {
                if !p.mime_type.starts_with("audio/") {
                    return Err(MediaError::Unsupported {
                        what: "audio",
                        declared: p.mime_type.clone(),
                        takes: "an audio/* type",
                    });
                }
                check::matches(&p.mime_type, &p.data)
            }
            Part::File(p) => check::matches(&p.mime_type, &p.data),
            Part::ResourceLink(_) => Ok(()),
        }
    }
}

/// What a part is, for records and audit lines: never its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PartSummary {
    /// Its kind.
    pub kind: PartKind,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// How many bytes it carries.
    pub bytes: u64,
    /// The SHA-256 of the bytes, lowercase hex (`None` for a link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// A file's or a link's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A file's or a link's URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}
