//! Vectors computed ahead of time by a real embedding model, served by text: an
//! [`Embedder`] for tests that run offline and in CI without the model.

use std::collections::HashMap;

use futures_util::future::BoxFuture;
use sha2::{Digest, Sha256};
use toolkit::search::{EmbedError, Embedder};

/// The vectors of one file written by `benches/data/embed.py`, by the SHA-256 of their
/// text.
pub struct Precomputed {
    model: String,
    vectors: HashMap<[u8; 32], Vec<f32>>,
}

impl Precomputed {
    /// all-MiniLM-L6-v2's vectors of every text of the BFCL retrieval set
    /// (`benches/data/bfcl_minilm.bin`).
    pub fn bfcl_minilm() -> Self {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/data/bfcl_minilm.bin");
        Precomputed::read("all-MiniLM-L6-v2", &std::fs::read(path).expect("benches/data/bfcl_minilm.bin"))
    }

    /// The file's layout: `TKVEC1\n`, the dimension (u32 LE), then per text its SHA-256,
    /// a scale (f32 LE) and the vector as i8.
    fn read(model: &str, bytes: &[u8]) -> Self {
        let body = bytes.strip_prefix(b"TKVEC1\n").expect("a vector file starts with TKVEC1");
        let dim = u32::from_le_bytes(body[..4].try_into().unwrap()) as usize;
        let record = 32 + 4 + dim;
        let body = &body[4..];
        assert_eq!(body.len() % record, 0, "a vector file holds whole records");
        let vectors = body
            .chunks_exact(record)
            .map(|r| {
                let key: [u8; 32] = r[..32].try_into().unwrap();
                let scale = f32::from_le_bytes(r[32..36].try_into().unwrap());
                (key, r[36..].iter().map(|&q| q as i8 as f32 * scale).collect())
            })
            .collect();
        Precomputed { model: model.to_owned(), vectors }
    }

    /// The vector of `text`.
    ///
    /// # Panics
    ///
    /// When the file has none: the texts changed since it was written (its header in
    /// `benches/data/embed.py` says how to write it again).
    pub fn get(&self, text: &str) -> Vec<f32> {
        self.try_get(text).unwrap_or_else(|| {
            panic!("no precomputed vector for {text:?}: run benches/data/embed.py again (see its header)")
        })
    }

    /// The vector of `text`, if the file has it.
    pub fn try_get(&self, text: &str) -> Option<Vec<f32>> {
        self.vectors.get(&<[u8; 32]>::from(Sha256::digest(text.as_bytes()))).cloned()
    }
}

impl Embedder for Precomputed {
    fn model(&self) -> &str {
        &self.model
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        let vectors = texts
            .iter()
            .map(|t| self.try_get(t).ok_or_else(|| EmbedError(format!("no precomputed vector for {t:?}"))))
            .collect();
        Box::pin(async move { vectors })
    }
}
