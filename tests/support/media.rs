//! The media fixtures of the tests of results with parts (`tests/data/media`: a 4×4 PNG,
//! a WAV tone, a one-page PDF), and the SHA-256 every path's bytes are checked by.

use serde_json::Value;
use sha2::{Digest, Sha256};
use toolkit::parts::{Part, from_base64};

pub const PNG: &[u8] = include_bytes!("../data/media/chart.png");
pub const WAV: &[u8] = include_bytes!("../data/media/tone.wav");
pub const PDF: &[u8] = include_bytes!("../data/media/q3.pdf");

/// The SHA-256 of `bytes`, lowercase hex.
pub fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of base64 text's bytes.
pub fn sha64(text: &Value) -> String {
    sha(&from_base64(text.as_str().expect("base64 text")).expect("valid base64"))
}

/// The MIME type of a `data:` URL and the SHA-256 of its bytes.
pub fn sha_url(url: &Value) -> (String, String) {
    let url = url.as_str().expect("a data URL");
    let (head, data) = url.strip_prefix("data:").and_then(|u| u.split_once(";base64,")).expect("data:...;base64,");
    (head.to_owned(), sha64(&Value::from(data)))
}

/// The SHA-256 of each part's bytes (`None` for a link).
pub fn hashes(parts: &[Part]) -> Vec<Option<String>> {
    parts.iter().map(|p| p.data().map(|d| sha(d))).collect()
}
