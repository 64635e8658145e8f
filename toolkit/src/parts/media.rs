//! The part types: [`Image`], [`Audio`], [`File`], [`ResourceLink`], their
//! [`ContentAnnotations`], and their bytes in base64.

use std::fmt;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::MediaError;
use super::check::sniff;

/// Hints for the client that shows a part (MCP's annotations): who it is for, how much
/// it matters, when it last changed. Sent where the protocol has a place for them (MCP);
/// model APIs have none, and their clients leave them out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentAnnotations {
    /// Who the part is meant for: `"user"`, `"assistant"`, or both.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audience: Vec<String>,
    /// How important it is, from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When it last changed (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The bytes of a part, serialized as base64.
mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use bytes::Bytes;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(data: &Bytes, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(data))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        STANDARD.decode(text.as_bytes()).map(Bytes::from).map_err(serde::de::Error::custom)
    }
}

/// The bytes in base64 (standard alphabet, padded): what every provider and MCP take.
pub fn base64(data: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// Bytes from base64 (standard alphabet; padding optional).
pub fn from_base64(text: &str) -> Result<Bytes, String> {
    use base64::Engine;
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine.decode(text.trim().as_bytes()).map(Bytes::from).map_err(|e| e.to_string())
}

/// What the four media types have in common: a MIME type, bytes, annotations.
macro_rules! media_common {
    ($t:ident) => {
        impl $t {
            /// The declared MIME type (`image/png`).
            pub fn mime_type(&self) -> &str {
                &self.mime_type
            }

            /// The bytes (cheap to clone: shared, not copied).
            pub fn data(&self) -> &Bytes {
                &self.data
            }

            /// The bytes in base64, as providers take them.
            pub fn base64(&self) -> String {
                base64(&self.data)
            }

            /// The annotations, if any.
            pub fn annotations(&self) -> Option<&ContentAnnotations> {
                self.annotations.as_ref()
            }

            /// With these annotations (sent over MCP).
            pub fn with_annotations(mut self, annotations: ContentAnnotations) -> Self {
                self.annotations = Some(annotations);
                self
            }
        }

        /// Shows the MIME type and the size, never the bytes.
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($t))
                    .field("mime_type", &self.mime_type)
                    .field("bytes", &self.data.len())
                    .finish_non_exhaustive()
            }
        }
    };
}

/// An image: PNG, JPEG, GIF or WebP, the four types every multimodal model API takes.
///
/// ```
/// use toolkit::parts::Image;
/// let logo = Image::from_bytes(b"\x89PNG\r\n\x1a\n...".to_vec()).unwrap();
/// assert_eq!(logo.mime_type(), "image/png");
/// assert!(Image::from_bytes(b"BM not a format models take".to_vec()).is_err());
/// ```
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Image {
    pub(super) mime_type: String,
    #[serde(with = "base64_bytes")]
    pub(super) data: Bytes,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) annotations: Option<ContentAnnotations>,
}

media_common!(Image);

/// The image MIME types model APIs take.
pub const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

impl Image {
    /// An image of this MIME type (checked against the bytes when the result leaves its
    /// tool).
    pub fn new(mime_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Image { mime_type: mime_type.into(), data: data.into(), annotations: None }
    }

    /// A PNG image.
    pub fn png(data: impl Into<Bytes>) -> Self {
        Image::new("image/png", data)
    }

    /// A JPEG image.
    pub fn jpeg(data: impl Into<Bytes>) -> Self {
        Image::new("image/jpeg", data)
    }

    /// A GIF image.
    pub fn gif(data: impl Into<Bytes>) -> Self {
        Image::new("image/gif", data)
    }

    /// A WebP image.
    pub fn webp(data: impl Into<Bytes>) -> Self {
        Image::new("image/webp", data)
    }

    /// An image of whichever of the four types its bytes are; `Err` names what they are
    /// when they are none of them.
    pub fn from_bytes(data: impl Into<Bytes>) -> Result<Self, MediaError> {
        let data = data.into();
        match sniff(&data) {
            Some(mime) if IMAGE_TYPES.contains(&mime) => Ok(Image::new(mime, data)),
            found => Err(MediaError::NotA { wanted: "image (PNG, JPEG, GIF or WebP)", found }),
        }
    }
}

/// A sound recording: WAV, MP3, Ogg, FLAC, AAC, MP4 audio or WebM.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Audio {
    pub(super) mime_type: String,
    #[serde(with = "base64_bytes")]
    pub(super) data: Bytes,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) annotations: Option<ContentAnnotations>,
}

media_common!(Audio);

impl Audio {
    /// Audio of this MIME type (checked against the bytes when the result leaves its
    /// tool).
    pub fn new(mime_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        Audio { mime_type: mime_type.into(), data: data.into(), annotations: None }
    }

    /// WAV audio (`audio/wav`).
    pub fn wav(data: impl Into<Bytes>) -> Self {
        Audio::new("audio/wav", data)
    }

    /// MP3 audio (`audio/mpeg`).
    pub fn mp3(data: impl Into<Bytes>) -> Self {
        Audio::new("audio/mpeg", data)
    }

    /// Audio of whichever type its bytes are.
    pub fn from_bytes(data: impl Into<Bytes>) -> Result<Self, MediaError> {
        let data = data.into();
        match sniff(&data) {
            Some(mime) if mime.starts_with("audio/") => Ok(Audio::new(mime, data)),
            found => Err(MediaError::NotA { wanted: "sound recording", found }),
        }
    }

    /// The format's short name, as OpenAI's `input_audio` takes it (`wav`, `mp3`, ...).
    pub fn format(&self) -> &str {
        match self.mime_type.as_str() {
            "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
            "audio/mpeg" | "audio/mp3" => "mp3",
            other => other.strip_prefix("audio/").unwrap_or(other),
        }
    }
}

/// A document with a name: a PDF, a text file, a spreadsheet, any MIME type.
///
/// ```
/// use toolkit::parts::File;
/// let report = File::new("q3.csv", "text/csv", "region,revenue\nnorth,120\n");
/// assert_eq!((report.name(), report.mime_type()), ("q3.csv", "text/csv"));
/// ```
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct File {
    pub(super) name: String,
    pub(super) mime_type: String,
    #[serde(with = "base64_bytes")]
    pub(super) data: Bytes,
    /// Where it lives, when it has an address (MCP's embedded resource `uri`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) annotations: Option<ContentAnnotations>,
}

media_common!(File);

impl File {
    /// A file with this name and MIME type.
    pub fn new(name: impl Into<String>, mime_type: impl Into<String>, data: impl Into<Bytes>) -> Self {
        File { name: name.into(), mime_type: mime_type.into(), data: data.into(), uri: None, annotations: None }
    }

    /// A PDF document.
    pub fn pdf(name: impl Into<String>, data: impl Into<Bytes>) -> Self {
        File::new(name, "application/pdf", data)
    }

    /// A plain-text document.
    pub fn text(name: impl Into<String>, text: impl Into<String>) -> Self {
        File::new(name, "text/plain", text.into())
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its address, if it has one.
    pub fn uri(&self) -> Option<&str> {
        self.uri.as_deref()
    }

    /// With this address (MCP sends it as the embedded resource's `uri`).
    pub fn with_uri(mut self, uri: impl Into<String>) -> Self {
        self.uri = Some(uri.into());
        self
    }

    /// The text, when the file is text (a `text/*` type, JSON, XML, ...) in UTF-8.
    pub fn as_text(&self) -> Option<&str> {
        is_text_type(&self.mime_type).then(|| std::str::from_utf8(&self.data).ok()).flatten()
    }
}

/// Whether a MIME type is text (`text/*`, JSON, XML, YAML, JavaScript).
pub fn is_text_type(mime: &str) -> bool {
    let mime = mime.split(';').next().unwrap_or(mime).trim();
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(mime, "application/json" | "application/xml" | "application/yaml" | "application/javascript")
}

/// A pointer to a resource the model (or its host) may fetch: its URI and name, with
/// what is known about it. No bytes: nothing to check, nothing to cap.
///
/// ```
/// use toolkit::parts::ResourceLink;
/// let link = ResourceLink::new("file:///reports/q3.pdf", "q3.pdf").with_mime_type("application/pdf");
/// assert_eq!(link.uri, "file:///reports/q3.pdf");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name (an identifier, such as a file name).
    pub name: String,
    /// A title for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client (sent over MCP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ContentAnnotations>,
}

impl ResourceLink {
    /// A link to `uri`, named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
        }
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a size in bytes.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// With annotations.
    pub fn with_annotations(mut self, annotations: ContentAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}
