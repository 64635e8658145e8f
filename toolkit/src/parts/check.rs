//! What is checked of a part before it leaves its tool: its bytes against its MIME type
//! (magic bytes), and the result's size.

use super::Part;
use crate::error::{ErrorKind, ToolError};

/// Why a part was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MediaError {
    /// The bytes are not what the MIME type says.
    #[error("the bytes of this {declared} part are {}", found.map_or_else(|| "of no type the checker knows".to_owned(), |f| f.to_owned()))]
    Mismatch {
        /// The declared MIME type.
        declared: String,
        /// What the bytes are, when the checker knows.
        found: Option<&'static str>,
    },
    /// The bytes are none of the types wanted.
    #[error("the bytes are not a {wanted}: they are {}", found.map_or("of no type the checker knows", |f| f))]
    NotA {
        /// What was wanted.
        wanted: &'static str,
        /// What they are, when the checker knows.
        found: Option<&'static str>,
    },
    /// A MIME type this kind of part cannot have.
    #[error("an {what} part cannot be {declared}: it takes {takes}")]
    Unsupported {
        /// The kind of part.
        what: &'static str,
        /// The declared type.
        declared: String,
        /// What it takes.
        takes: &'static str,
    },
}

/// The MIME type the bytes' signature shows, among the types the checker knows.
pub fn sniff(data: &[u8]) -> Option<&'static str> {
    let at = |i: usize, sig: &[u8]| data.get(i..i + sig.len()) == Some(sig);
    Some(if at(0, b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if at(0, b"\xFF\xD8\xFF") {
        "image/jpeg"
    } else if at(0, b"GIF87a") || at(0, b"GIF89a") {
        "image/gif"
    } else if at(0, b"RIFF") && at(8, b"WEBP") {
        "image/webp"
    } else if at(0, b"RIFF") && at(8, b"WAVE") {
        "audio/wav"
    } else if at(0, b"%PDF-") {
        "application/pdf"
    } else if at(0, b"ID3") || (data.len() > 1 && data[0] == 0xFF && matches!(data[1], 0xFB | 0xF3 | 0xF2 | 0xE3)) {
        "audio/mpeg"
    } else if data.len() > 1 && data[0] == 0xFF && matches!(data[1], 0xF1 | 0xF9) {
        "audio/aac"
    } else if at(0, b"OggS") {
        "audio/ogg"
    } else if at(0, b"fLaC") {
        "audio/flac"
    } else if at(4, b"ftyp") {
        "audio/mp4"
    } else if at(0, b"\x1A\x45\xDF\xA3") {
        "audio/webm"
    } else if at(0, b"PK\x03\x04") {
        "application/zip"
    } else {
        return None;
    })
}

/// The canonical name of a MIME type the checker knows (aliases folded), or `None`.
fn known(mime: &str) -> Option<&'static str> {
    let mime = mime.split(';').next().unwrap_or(mime).trim().to_ascii_lowercase();
    Some(match mime.as_str() {
        "image/png" => "image/png",
        "image/jpeg" | "image/jpg" | "image/pjpeg" => "image/jpeg",
        "image/gif" => "image/gif",
        "image/webp" => "image/webp",
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => "audio/wav",
        "audio/mpeg" | "audio/mp3" => "audio/mpeg",
        "audio/aac" | "audio/x-aac" => "audio/aac",
        "audio/ogg" | "audio/opus" | "audio/vorbis" | "application/ogg" => "audio/ogg",
        "audio/flac" | "audio/x-flac" => "audio/flac",
        "audio/mp4" | "audio/m4a" | "audio/x-m4a" => "audio/mp4",
        "audio/webm" => "audio/webm",
        "application/pdf" => "application/pdf",
        "application/zip" => "application/zip",
        _ => return None,
    })
}

/// Whether `data` is what `mime` says, when the checker knows `mime`. Office documents
/// (`.docx`, `.xlsx`, `.pptx`, EPUB) are ZIP files.
pub(super) fn matches(mime: &str, data: &[u8]) -> Result<(), MediaError> {
    let lower = mime.to_ascii_lowercase();
    let wanted =
        if lower.starts_with("application/vnd.openxmlformats-officedocument.") || lower == "application/epub+zip" {
            Some("application/zip")
        } else {
            known(mime)
        };
    let Some(wanted) = wanted else { return Ok(()) };
    let found = sniff(data);
    if found == Some(wanted) {
        return Ok(());
    }
    Err(MediaError::Mismatch { declared: mime.to_owned(), found })
}

/// A size for people: `812 B`, `12.4 KiB`, `3.1 MiB`.
pub(crate) fn size_text(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

/// Checks the parts of a result that left its tool, and its size: each part's bytes
/// against its type, then the text and the bytes together against `max` bytes. The
/// model reads what went wrong; the operator reads why in the detail.
#[cold]
pub(crate) fn check_result(text: &str, parts: &[Part], max: usize) -> Result<(), ToolError> {
    for (i, part) in parts.iter().enumerate() {
        if let Err(why) = part.check() {
            return Err(ToolError::new(
                ErrorKind::ToolFailed,
                format!("the tool produced {} it could not send", part.kind().with_article()),
            )
            .with_detail(format!("part {} of the result: {why}", i + 1)));
        }
    }
    let total = parts.iter().fold(text.len(), |sum, p| sum.saturating_add(p.len()));
    if total > max {
        return Err(ToolError::new(
            ErrorKind::ResultTooLarge,
            format!(
                "the result is {}, over the {} a result may be; ask for less (fewer items, a smaller page or image)",
                size_text(total),
                size_text(max)
            ),
        )
        .with_detail(format!("{total} bytes in the text and {} parts, limit {max} bytes", parts.len())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parts::{Audio, ContentAnnotations, File, Image, Part, PartKind, from_base64};

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    const JPEG: &[u8] = b"\xFF\xD8\xFF\xE0\0\x10JFIF";

    #[test]
    fn each_known_signature_is_recognised() {
        let cases: [(&[u8], &str); 13] = [
            (PNG, "image/png"),
            (JPEG, "image/jpeg"),
            (b"GIF89a\x01\0", "image/gif"),
            (b"RIFF\x24\0\0\0WEBPVP8 ", "image/webp"),
            (b"RIFF\x24\0\0\0WAVEfmt ", "audio/wav"),
            (b"ID3\x04\0\0\0\0", "audio/mpeg"),
            (b"\xFF\xFB\x90\x64", "audio/mpeg"),
            (b"\xFF\xF1\x50\x80", "audio/aac"),
            (b"OggS\0\x02", "audio/ogg"),
            (b"fLaC\0\0\0\x22", "audio/flac"),
            (b"\0\0\0\x20ftypM4A ", "audio/mp4"),
            (b"%PDF-1.7\n", "application/pdf"),
            (b"PK\x03\x04\x14\0", "application/zip"),
        ];
        for (bytes, mime) in cases {
            assert_eq!(sniff(bytes), Some(mime), "{mime}");
        }
        assert_eq!(sniff(b"plain text"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn a_declared_type_the_bytes_contradict_is_refused() {
        assert!(Part::from(Image::png(PNG)).check().is_ok());
        let lie = Part::from(Image::png(JPEG)).check().unwrap_err();
        assert_eq!(lie.to_string(), "the bytes of this image/png part are image/jpeg");
        // Providers take the four canonical names only: an alias is refused, and says which.
        let alias = Part::from(Image::new("image/jpg", JPEG)).check().unwrap_err();
        assert!(alias.to_string().contains("image/png, image/jpeg, image/gif or image/webp"), "{alias}");
        assert!(Part::from(Audio::new("audio/x-wav", &b"RIFF\0\0\0\0WAVEfmt "[..])).check().is_ok(), "an alias");
        let bmp = Part::from(Image::new("image/bmp", &b"BM..."[..])).check().unwrap_err();
        assert!(bmp.to_string().contains("send other images as a File"), "{bmp}");
        assert!(Part::from(File::pdf("a.pdf", PNG)).check().is_err());
        assert!(Part::from(File::new("a.csv", "text/csv", "a,b\n")).check().is_ok(), "unknown types pass");
        let docx = File::new("a.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", PNG);
        assert!(Part::from(docx).check().is_err(), "an office document is a ZIP file");
        assert!(Part::from(Audio::wav(PNG)).check().is_err());
    }

    #[test]
    fn a_result_over_the_cap_is_an_error_that_says_how_big() {
        let parts = [Part::from(Image::png(PNG))];
        assert!(check_result("abc", &parts, 100).is_ok());
        let e = check_result("abc", &parts, 10).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ResultTooLarge);
        assert!(e.message.starts_with("the result is 19 B, over the 10 B"), "{}", e.message);
    }

    #[test]
    fn bytes_round_trip_through_json_as_base64() {
        let part = Part::from(
            Image::png(PNG).with_annotations(ContentAnnotations { priority: Some(0.5), ..Default::default() }),
        );
        let json = serde_json::to_value(&part).unwrap();
        assert_eq!(json["type"], "image");
        assert_eq!(json["mime_type"], "image/png");
        assert_eq!(json["data"], "iVBORw0KGgoAAAANSUhEUg==");
        assert_eq!(json["annotations"]["priority"], 0.5);
        let back: Part = serde_json::from_value(json).unwrap();
        assert_eq!(back, part);
        assert_eq!(from_base64("iVBORw0KGgoAAAANSUhEUg").unwrap(), PNG, "padding optional");
    }

    #[test]
    fn a_summary_carries_the_hash_and_never_the_bytes() {
        let s = Part::from(File::pdf("q3.pdf", &b"%PDF-1.7\n"[..])).summary();
        assert_eq!((s.kind, s.bytes, s.name.as_deref()), (PartKind::File, 9, Some("q3.pdf")));
        assert_eq!(s.sha256.as_deref().map(str::len), Some(64));
        assert_eq!(format!("{:?}", Image::png(PNG)), "Image { mime_type: \"image/png\", bytes: 16, .. }");
    }
}
